/* Exogenous inputs into the first layer of an MLP (neuralforecast's MLP,
 * NHITS and NBEATSx blocks): the layer reads
 *
 *   [ y (y_width) | hist (L', X) | futr ((L + h)', F) | stat (S) ]
 *
 * where ' is max-pooling over time with the block's kernel (ceil mode; N-HiTS
 * only, 1 elsewhere) applied to each channel, and hist / futr keep
 * neuralforecast's time-major, channel-fastest flattening
 * (x.permute(0, 2, 1) -> pool -> permute back -> reshape(B, -1)). The
 * exogenous values are data: no gradient flows into them, so the backward
 * only has to cut the y columns out of the layer's input gradient.
 *
 * Everything goes through backend calls (transpose_rows, maxpool1d,
 * axpby_rows), so a GPU backend runs it unchanged. */
#include "models/model.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)

int fc_model_has_exog(const fc_model_config *c) {
    return c->futr_exog.n > 0 || c->hist_exog.n > 0 || c->stat_exog.n > 0;
}

static size_t pooled(size_t len, size_t k) { return (len + k - 1) / k; }

size_t fc_exog_input_width(const fc_model_config *c, size_t pool_k, size_t y_width) {
    size_t L = c->input_size, H = c->h;
    return y_width + (size_t)c->hist_exog.n * pooled(L, pool_k) + (size_t)c->futr_exog.n * pooled(L + H, pool_k) +
           (size_t)c->stat_exog.n;
}

/* The widest channel block, (L + h) F or L X floats per window: the room of
 * the channel-major copies (pooling never widens them). */
static size_t widest_channels(const fc_model_config *c) {
    size_t hist = (size_t)c->hist_exog.n * c->input_size, futr = (size_t)c->futr_exog.n * (c->input_size + c->h);
    return hist > futr ? hist : futr;
}

void fc_exog_plan(fc_model *m) {
    size_t w = widest_channels(&m->cfg);
    if (!w) return;
    m->a_xT = fc_model_plan_act(m, w);
    m->a_xP = fc_model_plan_act(m, w);
    m->a_xArg = fc_model_plan_act(m, w);   /* int32 in float slots; the pooled argmax nobody reads back */
}

/* C channels of `len` points (B, len, C) into x's columns from col, pooled
 * by k; returns the next free column. */
static size_t put_channels(fc_model *m, float *x, size_t ldx, size_t col, const float *src, size_t len, size_t C,
                           size_t k, size_t B) {
    fc_backend *be = m->be;
    if (!C) return col;
    if (k == 1) {
        be->axpby_rows(be, x + col, ldx, 1.0f, src, len * C, 0.0f, B, len * C);
        return col + len * C;
    }
    size_t P = pooled(len, k);
    float *by_channel = ACT(m, m->a_xT), *pool = ACT(m, m->a_xP);
    be->transpose_rows(be, by_channel, C * len, src, len * C, B, len, C);             /* (B, C, len) */
    be->maxpool1d_forward(be, pool, (int32_t *)ACT(m, m->a_xArg), by_channel, B * C, len, k);   /* (B C, P) */
    be->transpose_rows(be, x + col, ldx, pool, C * P, B, C, P);                       /* (B, P, C) */
    return col + P * C;
}

void fc_exog_fill_input(fc_model *m, float *x, size_t width, size_t y_width, size_t pool_k, size_t B) {
    const fc_model_config *c = &m->cfg;
    size_t L = c->input_size, S = (size_t)c->stat_exog.n;
    size_t col = put_channels(m, x, width, y_width, m->exog.hist, L, (size_t)c->hist_exog.n, pool_k, B);
    col = put_channels(m, x, width, col, m->exog.futr, L + c->h, (size_t)c->futr_exog.n, pool_k, B);
    if (S) m->be->axpby_rows(m->be, x + col, width, 1.0f, m->exog.stat, S, 0.0f, B, S);
}
