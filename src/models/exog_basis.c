/* NBEATSx's exogenous basis (neuralforecast's ExogenousBasis): the basis
 * of a window is its own exogenous values, E (C, L + h) with C = F + S
 * channels (the future columns over the insample and the horizon, then each
 * static value repeated over time), and theta = [forecast C | backcast C]:
 *
 *   backcast[t] = sum_p theta[C + p] E[p, t]        t < L
 *   forecast[t] = sum_p theta[p]     E[p, L + t]    t < h
 *
 * The backcast is on the insample's own time order, although the residual
 * it is subtracted from is flipped (newest first): neuralforecast does so,
 * and parity means doing the same. The forecast is one value per point,
 * added to each of the Q outputs. C is a handful of columns, so the sums
 * are C passes of broadcast, multiply and add (backend calls a GPU runs as
 * they are), not a batched matrix product. */
#include "models/model.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)
#define SCR(m, off) ((m)->scratch + (off) * (m)->capacity)

static size_t channels(const fc_model *m) { return (size_t)(m->cfg.futr_exog.n + m->cfg.stat_exog.n); }

void fc_exog_basis_plan(fc_model *m) {
    size_t T = m->cfg.input_size + m->cfg.h;
    m->a_xbasis = fc_model_plan_act(m, channels(m) * T);
    m->a_xtmp = fc_model_plan_act(m, T);
    m->s_xdf = fc_model_plan_scratch(m, m->cfg.h);
}

void fc_exog_basis_build(fc_model *m, size_t B) {
    fc_backend *be = m->be;
    size_t T = m->cfg.input_size + m->cfg.h, F = (size_t)m->cfg.futr_exog.n, S = (size_t)m->cfg.stat_exog.n;
    size_t ld = channels(m) * T;
    float *E = ACT(m, m->a_xbasis), *tmp = ACT(m, m->a_xtmp);
    if (F) be->transpose_rows(be, E, ld, m->exog.futr, T * F, B, T, F);   /* (B, T, F) -> (B, F, T) */
    for (size_t s = 0; s < S; s++) {
        be->broadcast_col(be, tmp, m->exog.stat, S, s, B, T);
        be->axpby_rows(be, E + (F + s) * T, ld, 1.0f, tmp, T, 0.0f, B, T);
    }
}

/* out (B, n) row stride ldo = sum_p theta[:, first + p] * E[:, p, from .. from + n). */
static void project(fc_model *m, float *out, size_t ldo, const float *theta, size_t ldt, size_t first,
                    size_t from, size_t n, size_t B) {
    fc_backend *be = m->be;
    size_t C = channels(m), T = m->cfg.input_size + m->cfg.h;
    const float *E = ACT(m, m->a_xbasis);
    float *tmp = ACT(m, m->a_xtmp);
    for (size_t p = 0; p < C; p++) {
        be->broadcast_col(be, tmp, theta, ldt, first + p, B, n);
        be->mul_rows(be, tmp, n, E + p * T + from, C * T, B, n);
        be->axpby_rows(be, out, ldo, 1.0f, tmp, n, p ? 1.0f : 0.0f, B, n);
    }
}

void fc_exog_basis_forward(fc_model *m, const fc_block *b, const float *theta, float *back, float *fore, size_t B) {
    size_t C = channels(m), L = m->cfg.input_size, H = m->cfg.h, Q = m->cfg.n_outputs;
    project(m, back, L, theta, b->n_theta, C, 0, L, B);
    project(m, fore, Q * H, theta, b->n_theta, 0, L, H, B);
    for (size_t q = 1; q < Q; q++) m->be->axpby_rows(m->be, fore + q * H, Q * H, 1.0f, fore, Q * H, 0.0f, B, H);
}

/* dtheta[:, first + p] = sum_t d out[:, t] E[:, p, from + t]. */
static void project_backward(fc_model *m, float *dtheta, size_t ldt, size_t first, const float *dout, size_t ldo,
                             size_t from, size_t n, size_t B) {
    fc_backend *be = m->be;
    size_t C = channels(m), T = m->cfg.input_size + m->cfg.h;
    const float *E = ACT(m, m->a_xbasis);
    float *tmp = ACT(m, m->a_xtmp);   /* free again: the forward's projections are done */
    for (size_t p = 0; p < C; p++) {
        be->axpby_rows(be, tmp, n, 1.0f, dout, ldo, 0.0f, B, n);
        be->mul_rows(be, tmp, n, E + p * T + from, C * T, B, n);
        be->sum_rows_into_col(be, dtheta, ldt, first + p, tmp, B, n);
    }
}

void fc_exog_basis_backward(fc_model *m, const fc_block *b, float *dtheta, const float *dback,
                            const float *dforecast, const float *dfq, size_t B) {
    fc_backend *be = m->be;
    size_t C = channels(m), L = m->cfg.input_size, H = m->cfg.h, Q = m->cfg.n_outputs;
    const float *dfore = dforecast;
    if (Q > 1) {                        /* the Q outputs share the point's forecast: sum their gradients */
        float *sum = SCR(m, m->s_xdf);
        for (size_t q = 0; q < Q; q++) be->axpby_rows(be, sum, H, 1.0f, dfq + q * H, Q * H, q ? 1.0f : 0.0f, B, H);
        dfore = sum;
    }
    be->fill(be, dtheta, 0.0f, B * b->n_theta);
    project_backward(m, dtheta, b->n_theta, C, dback, L, 0, L, B);
    project_backward(m, dtheta, b->n_theta, 0, dfore, H, L, H, B);
}
