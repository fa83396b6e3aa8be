/* Forward and backward of a stack of N-HiTS / N-BEATS blocks with doubly
 * residual links, as neuralforecast's NHITS.forward and NBEATS.forward:
 *
 *   r_0 = flip(insample);  m = flip(insample_mask)
 *   forecast = insample[:, L-1]   (Naive1 level, repeated over H)
 *   for each block i:  theta_i = MLP_i(pool_i(r_i))
 *                      backcast_i, f_i = basis_i(theta_i)
 *                      r_{i+1} = (r_i - backcast_i) * m;  forecast += f_i
 *
 * Backward runs the blocks in reverse. Since forecast = level + sum f_i,
 * every block receives d forecast unchanged; d r_i gathers the residual path
 * (d r_{i+1} * m) and the path through block i's own input. The first
 * block's input is data, so its input gradient is never computed.
 *
 * With Q = n_outputs > 1 the forecast is (B, H, Q) and the level is added to
 * every output. N-HiTS knots and N-BEATS basis products are quantile-major
 * in neuralforecast ((B, Q, K) interpolated along K; (B, P, Q) against the
 * (P, H) basis), so those blocks work on (B, Q, *) rows and transpose to
 * and from (B, H, Q) (transpose_rows); backward transposes d forecast once
 * for all blocks. Q = 1 takes none of these paths: its calls, and thus its
 * bits, are those of the single-output model. */
#include <string.h>

#include "core/error.h"
#include "models/model_kinds.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)
#define SCR(m, off) ((m)->scratch + (off) * (m)->capacity)

void fc_block_add_mlp(fc_model *m, fc_block *blk, int block_index, size_t in, size_t n_theta) {
    const fc_model_config *c = &m->cfg;
    char prefix[48];
    int j = 0;
    blk->y_in = in;
    blk->in = in = fc_exog_input_width(c, blk->pool_k, in);   /* y's columns, then the exogenous ones */
    blk->n_theta = n_theta;
    /* nn.Sequential(Linear(in, u0), [Linear(u_k0, u_k1), ReLU(, Dropout)] * n_units, Linear(u_last, n_theta)):
     * with dropout each hidden layer takes 3 slots of the Sequential, so
     * the state_dict names (layers.1, layers.4, ...) stay neuralforecast's */
    int per = c->dropout_prob_theta > 0.0 ? 3 : 2;
    snprintf(prefix, sizeof prefix, "blocks.%d.layers.0", block_index);
    fc_model_add_linear(m, &blk->lin[j++], prefix, in, c->mlp_units[0][0], FC_ACT_NONE);
    for (int u = 0; u < c->n_units; u++) {
        snprintf(prefix, sizeof prefix, "blocks.%d.layers.%d", block_index, per * u + 1);
        fc_model_add_linear(m, &blk->lin[j++], prefix, c->mlp_units[u][0], c->mlp_units[u][1], FC_ACT_RELU);
    }
    snprintf(prefix, sizeof prefix, "blocks.%d.layers.%d", block_index, per * c->n_units + 1);
    fc_model_add_linear(m, &blk->lin[j++], prefix, c->mlp_units[c->n_units - 1][1], n_theta, FC_ACT_NONE);
    blk->n_linear = j;
}

static fc_status widen(const fc_linear *l, size_t index, void *ctx) {
    (void)index;
    size_t *w = ctx;
    if (l->in > *w) *w = l->in;
    if (l->out > *w) *w = l->out;
    return FC_OK;
}

/* The widest layer input or output, or the input window: the room of the
 * backward's ping-pong buffers. */
static size_t max_width(const fc_model *m) {
    size_t w = m->cfg.input_size;
    fc_model_for_each_linear(m, widen, &w);
    return w;
}

fc_status fc_blocks_build(fc_model *m, fc_block_describer describe) {
    int bi = 0;
    for (int s = 0; s < m->cfg.n_stacks; s++)
        for (int k = 0; k < m->cfg.n_blocks[s]; k++, bi++) describe(m, &m->blocks[bi], s, bi);
    m->n_blocks = bi;
    fc_blocks_plan(m);
    return FC_OK;
}

/* The widest basis block (P rows), 0 without one. */
static size_t max_basis_rows(const fc_model *m) {
    size_t p = 0;
    for (int i = 0; i < m->n_blocks; i++)
        if (m->blocks[i].basis == FC_BASIS_MATRIX && m->blocks[i].P > p) p = m->blocks[i].P;
    return p;
}

/* Buffers of the multi-output paths, planned after every single-output
 * buffer so that Q = 1 keeps its plan. */
static void plan_multi_output(fc_model *m) {
    size_t Q = m->cfg.n_outputs, H = m->cfg.h, P = max_basis_rows(m);
    m->a_qperm = fc_model_plan_act(m, Q * (P > H ? P : H));
    m->s_dfq = fc_model_plan_scratch(m, Q * H);
    if (P) m->s_dtq = fc_model_plan_scratch(m, Q * P);
}

static int has_exog_basis(const fc_model *m) {
    for (int i = 0; i < m->n_blocks; i++)
        if (m->blocks[i].basis == FC_BASIS_EXOG) return 1;
    return 0;
}

void fc_blocks_plan(fc_model *m) {
    size_t L = m->cfg.input_size, H = m->cfg.h, Q = m->cfg.n_outputs;
    m->a_mask = fc_model_plan_act(m, L);
    for (int i = 0; i < m->n_blocks; i++) {
        fc_block *b = &m->blocks[i];
        b->a_in = fc_model_plan_act(m, L);
        if (b->pool_k > 1) {
            b->a_pool = fc_model_plan_act(m, b->in);
            b->a_argmax = fc_model_plan_act(m, b->in);   /* int32 stored in float slots */
        }
        for (int j = 0; j < b->n_linear; j++) b->a_out[j] = fc_model_plan_act(m, b->lin[j].out);
        if (b->basis == FC_BASIS_MATRIX || b->basis == FC_BASIS_EXOG) b->a_back = fc_model_plan_act(m, L);
        if (b->basis != FC_BASIS_IDENTITY) b->a_fore = fc_model_plan_act(m, H * Q);
        if (b->in != b->y_in) b->a_xin = fc_model_plan_act(m, b->in);
    }
    if (fc_model_has_exog(&m->cfg)) fc_exog_plan(m);
    if (has_exog_basis(m)) fc_exog_basis_plan(m);
    size_t w = max_width(m);
    m->s_ping = fc_model_plan_scratch(m, w);
    m->s_pong = fc_model_plan_scratch(m, w);
    m->s_dr = fc_model_plan_scratch(m, L);
    m->s_dback = fc_model_plan_scratch(m, L);
    m->s_drtmp = fc_model_plan_scratch(m, L);
    if (Q > 1) plan_multi_output(m);
}

static const float *P(const fc_model *m, size_t tensor) { return m->params + m->tensors[tensor].offset; }

/* dropout_prob_theta: in training, after each hidden ReLU (the linears
 * with FC_ACT_RELU). Each (block, layer) draws from its own range of the
 * step's stream; the backward's same call on the gradient zeroes the same
 * points. Dropping in place leaves the ReLU's backward right: a dropped
 * point is 0 (no gradient either way), a kept one relu(z) / (1 - p) > 0
 * exactly when z > 0. */
static void block_dropout(fc_model *m, const fc_block *b, int j, float *x, size_t B) {
    const fc_linear *l = &b->lin[j];
    if (!m->training || m->cfg.dropout_prob_theta <= 0.0 || l->act != FC_ACT_RELU) return;
    uint64_t site = (uint64_t)(b - m->blocks) * FC_MAX_LINEARS + (uint64_t)j + 1;
    m->be->dropout(m->be, x, l->out, x, l->out, B, l->out, (float)m->cfg.dropout_prob_theta, m->dropout_seed,
                   site << 40);   /* disjoint ranges: B * out < 2^40 */
}

/* Runs the block's MLP on its (pooled) input; returns theta (B, n_theta). */
static fc_status block_mlp_forward(fc_model *m, fc_block *b, size_t B, const float **theta) {
    fc_backend *be = m->be;
    const float *x = ACT(m, b->a_in);
    if (b->pool_k > 1) {
        be->maxpool1d_forward(be, ACT(m, b->a_pool), (int32_t *)ACT(m, b->a_argmax), x, B,
                              m->cfg.input_size, b->pool_k);
        x = ACT(m, b->a_pool);
    }
    if (b->in != b->y_in) {                /* [y | hist | futr | stat] */
        float *xin = ACT(m, b->a_xin);
        be->axpby_rows(be, xin, b->in, 1.0f, x, b->y_in, 0.0f, B, b->y_in);
        fc_exog_fill_input(m, xin, b->in, b->y_in, b->pool_k, B);
        x = xin;
    }
    for (int j = 0; j < b->n_linear; j++) {
        const fc_linear *l = &b->lin[j];
        fc_linear_call call = fc_model_linear_call(m, l, x, ACT(m, b->a_out[j]), B);
        FC_TRY(be->linear_forward(be, &call));
        block_dropout(m, b, j, ACT(m, b->a_out[j]), B);
        x = ACT(m, b->a_out[j]);
    }
    *theta = x;
    return FC_OK;
}

/* An INTERP block's knots to the horizon, in the model's interpolation
 * mode (N-HiTS's interpolation_mode; N-BEATS has no INTERP block). */
static void interp_forward(fc_model *m, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t K,
                           size_t H) {
    fc_backend *be = m->be;
    if (m->cfg.interp_mode == FC_INTERP_NEAREST) be->interp_nearest_forward(be, y, ldy, x, ldx, B, K, H);
    else if (m->cfg.interp_mode == FC_INTERP_CUBIC) be->interp_cubic_forward(be, y, ldy, x, ldx, B, K, H);
    else be->interp_linear_forward(be, y, ldy, x, ldx, B, K, H);
}

static void interp_backward(fc_model *m, float *dx, size_t ldx, const float *dy, size_t ldy, size_t B, size_t K,
                            size_t H) {
    fc_backend *be = m->be;
    if (m->cfg.interp_mode == FC_INTERP_NEAREST) be->interp_nearest_backward(be, dx, ldx, dy, ldy, B, K, H);
    else if (m->cfg.interp_mode == FC_INTERP_CUBIC) be->interp_cubic_backward(be, dx, ldx, dy, ldy, B, K, H);
    else be->interp_linear_backward(be, dx, ldx, dy, ldy, B, K, H);
}

/* The (B, H, Q) forecast of an INTERP or MATRIX block with Q > 1, built
 * quantile-major in a_fore (B, Q, H) and transposed into a_qperm. */
static fc_status block_fore_multi(fc_model *m, fc_block *b, const float *theta, size_t B, const float **fore,
                                  size_t *ldf) {
    fc_backend *be = m->be;
    size_t L = m->cfg.input_size, H = m->cfg.h, Q = m->cfg.n_outputs, T = b->n_theta, K = b->n_knots;
    float *qh = ACT(m, b->a_fore), *perm = ACT(m, m->a_qperm);
    if (b->basis == FC_BASIS_INTERP) {         /* knots (B, Q, K): row q of window r at theta + L + q K */
        for (size_t q = 0; q < Q; q++)
            interp_forward(m, qh + q * H, Q * H, theta + L + q * K, T, B, K, H);
    } else {                                   /* (B, P, Q) -> (B, Q, P), then (B Q, P) . (P, H) */
        be->transpose_rows(be, perm, Q * b->P, theta + b->P, T, B, b->P, Q);
        FC_TRY(be->gemm(be, 0, 0, B * Q, H, b->P, 1.0f, perm, b->P, P(m, b->basis_fore), H, 0.0f, qh, H));
    }
    be->transpose_rows(be, perm, H * Q, qh, Q * H, B, Q, H);
    *fore = perm; *ldf = H * Q;
    return FC_OK;
}

/* The exogenous basis (exog_basis.c): forecast built (B, Q, H), made
 * (B, H, Q) when Q > 1 as the other bases' are. */
static fc_status block_exog_forward(fc_model *m, fc_block *b, const float *theta, size_t B, const float **back,
                                    size_t *ldb, const float **fore, size_t *ldf) {
    size_t L = m->cfg.input_size, H = m->cfg.h, Q = m->cfg.n_outputs;
    fc_exog_basis_forward(m, b, theta, ACT(m, b->a_back), ACT(m, b->a_fore), B);
    *back = ACT(m, b->a_back); *ldb = L;
    *fore = ACT(m, b->a_fore); *ldf = H * Q;
    if (Q > 1) {
        m->be->transpose_rows(m->be, ACT(m, m->a_qperm), H * Q, ACT(m, b->a_fore), Q * H, B, Q, H);
        *fore = ACT(m, m->a_qperm);
    }
    return FC_OK;
}

/* Splits theta into backcast (row stride *ldb) and block forecast (stride *ldf). */
static fc_status block_basis_forward(fc_model *m, fc_block *b, const float *theta, size_t B,
                                     const float **back, size_t *ldb, const float **fore, size_t *ldf) {
    fc_backend *be = m->be;
    size_t L = m->cfg.input_size, H = m->cfg.h, T = b->n_theta;
    *back = theta; *ldb = T;
    *fore = theta + L; *ldf = T;
    if (b->basis == FC_BASIS_EXOG) return block_exog_forward(m, b, theta, B, back, ldb, fore, ldf);
    if (m->cfg.n_outputs > 1 && b->basis != FC_BASIS_IDENTITY) {
        if (b->basis == FC_BASIS_MATRIX) {
            FC_TRY(be->gemm(be, 0, 0, B, L, b->P, 1.0f, theta, T, P(m, b->basis_back), L, 0.0f, ACT(m, b->a_back), L));
            *back = ACT(m, b->a_back); *ldb = L;
        }
        return block_fore_multi(m, b, theta, B, fore, ldf);
    }
    if (b->basis == FC_BASIS_INTERP) {
        interp_forward(m, ACT(m, b->a_fore), H, theta + L, T, B, b->n_knots, H);
        *fore = ACT(m, b->a_fore); *ldf = H;
    } else if (b->basis == FC_BASIS_MATRIX) {
        FC_TRY(be->gemm(be, 0, 0, B, L, b->P, 1.0f, theta, T, P(m, b->basis_back), L, 0.0f, ACT(m, b->a_back), L));
        FC_TRY(be->gemm(be, 0, 0, B, H, b->P, 1.0f, theta + b->P, T, P(m, b->basis_fore), H, 0.0f, ACT(m, b->a_fore), H));
        *back = ACT(m, b->a_back); *ldb = L;
        *fore = ACT(m, b->a_fore); *ldf = H;
    }
    return FC_OK;
}

fc_status fc_blocks_forward(fc_model *m, float *forecast, const float *insample,
                            const float *insample_mask, size_t B) {
    fc_backend *be = m->be;
    size_t L = m->cfg.input_size, H = m->cfg.h * m->cfg.n_outputs;   /* forecast row width */
    float *mask = ACT(m, m->a_mask);
    be->flip_rows(be, mask, L, insample_mask, L, B, L);
    be->flip_rows(be, ACT(m, m->blocks[0].a_in), L, insample, L, B, L);
    be->broadcast_col(be, forecast, insample, L, L - 1, B, H);
    if (has_exog_basis(m)) fc_exog_basis_build(m, B);
    for (int i = 0; i < m->n_blocks; i++) {
        fc_block *b = &m->blocks[i];
        const float *theta, *back, *fore;
        size_t ldb, ldf;
        FC_TRY(block_mlp_forward(m, b, B, &theta));
        FC_TRY(block_basis_forward(m, b, theta, B, &back, &ldb, &fore, &ldf));
        be->axpby_rows(be, forecast, H, 1.0f, fore, ldf, 1.0f, B, H);
        if (i + 1 < m->n_blocks) {          /* r_{i+1} = (r_i - backcast) * mask */
            float *next = ACT(m, m->blocks[i + 1].a_in);
            be->axpby_rows(be, next, L, 1.0f, ACT(m, b->a_in), L, 0.0f, B, L);
            be->axpby_rows(be, next, L, -1.0f, back, ldb, 1.0f, B, L);
            be->mul_rows(be, next, L, mask, L, B, L);
        }
    }
    return FC_OK;
}

/* The forecast part of d theta of an INTERP or MATRIX block with Q > 1,
 * from d forecast as (B, Q, H) (dfq): the forward's steps transposed. */
static fc_status block_fore_multi_backward(fc_model *m, fc_block *b, float *dtheta, const float *dfq, size_t B) {
    fc_backend *be = m->be;
    size_t L = m->cfg.input_size, H = m->cfg.h, Q = m->cfg.n_outputs, T = b->n_theta, K = b->n_knots;
    if (b->basis == FC_BASIS_INTERP) {
        for (size_t q = 0; q < Q; q++)
            interp_backward(m, dtheta + L + q * K, T, dfq + q * H, Q * H, B, K, H);
        return FC_OK;
    }
    float *dtq = SCR(m, m->s_dtq);              /* (B Q, P) = (B Q, H) . basis^T */
    FC_TRY(be->gemm(be, 0, 1, B * Q, b->P, H, 1.0f, dfq, H, P(m, b->basis_fore), H, 0.0f, dtq, b->P));
    be->transpose_rows(be, dtheta + b->P, T, dtq, Q * b->P, B, Q, b->P);
    return FC_OK;
}

/* d theta (B, n_theta) from d backcast (B,L) and d forecast (B,H,Q); dfq is
 * d forecast as (B,Q,H) when Q > 1. */
static fc_status block_basis_backward(fc_model *m, fc_block *b, float *dtheta, const float *dback,
                                      const float *dforecast, const float *dfq, size_t B) {
    fc_backend *be = m->be;
    size_t L = m->cfg.input_size, H = m->cfg.h, T = b->n_theta;
    if (b->basis == FC_BASIS_EXOG) {
        fc_exog_basis_backward(m, b, dtheta, dback, dforecast, dfq, B);
        return FC_OK;
    }
    if (m->cfg.n_outputs > 1 && b->basis != FC_BASIS_IDENTITY) {
        if (b->basis == FC_BASIS_MATRIX)
            FC_TRY(be->gemm(be, 0, 1, B, b->P, L, 1.0f, dback, L, P(m, b->basis_back), L, 0.0f, dtheta, T));
        else
            be->axpby_rows(be, dtheta, T, 1.0f, dback, L, 0.0f, B, L);
        return block_fore_multi_backward(m, b, dtheta, dfq, B);
    }
    if (b->basis == FC_BASIS_IDENTITY) H *= m->cfg.n_outputs;   /* theta holds the (H, Q) forecast as is */
    if (b->basis == FC_BASIS_MATRIX) {
        FC_TRY(be->gemm(be, 0, 1, B, b->P, L, 1.0f, dback, L, P(m, b->basis_back), L, 0.0f, dtheta, T));
        return be->gemm(be, 0, 1, B, b->P, H, 1.0f, dforecast, H, P(m, b->basis_fore), H, 0.0f, dtheta + b->P, T);
    }
    be->axpby_rows(be, dtheta, T, 1.0f, dback, L, 0.0f, B, L);
    if (b->basis == FC_BASIS_INTERP)
        interp_backward(m, dtheta + L, T, dforecast, H, B, b->n_knots, H);
    else
        be->axpby_rows(be, dtheta + L, T, 1.0f, dforecast, H, 0.0f, B, H);
    return FC_OK;
}

/* Back through the block's MLP (and pooling); writes d input (B,L) into
 * dinput when it is not NULL. */
static fc_status block_mlp_backward(fc_model *m, fc_block *b, float *dtheta, size_t B, float *dinput) {
    fc_backend *be = m->be;
    float *dy = dtheta, *spare = SCR(m, m->s_pong);
    int exog = b->in != b->y_in;
    for (int j = b->n_linear - 1; j >= 0; j--) {
        const fc_linear *l = &b->lin[j];
        const float *x = j > 0 ? ACT(m, b->a_out[j - 1]) : exog ? ACT(m, b->a_xin)
                       : b->pool_k > 1 ? ACT(m, b->a_pool) : ACT(m, b->a_in);
        int need_dx = j > 0 || dinput != NULL;
        float *dx = need_dx ? (j == 0 && b->pool_k == 1 && !exog ? dinput : spare) : NULL;
        fc_linear_call call = fc_model_linear_call(m, l, x, ACT(m, b->a_out[j]), B);
        block_dropout(m, b, j, dy, B);
        FC_TRY(fc_model_linear_backward(m, &call, l, dy, dx));
        if (dx == spare) { spare = dy; dy = dx; }
    }
    if (dinput && exog) {                  /* only y's columns lead back to the residual */
        float *keep = b->pool_k > 1 ? spare : dinput;
        be->axpby_rows(be, keep, b->y_in, 1.0f, dy, b->in, 0.0f, B, b->y_in);
        dy = keep;
    }
    if (dinput && b->pool_k > 1)
        be->maxpool1d_backward(be, dinput, dy, (const int32_t *)ACT(m, b->a_argmax), B, m->cfg.input_size, b->pool_k);
    return FC_OK;
}

fc_status fc_blocks_backward(fc_model *m, float *dforecast, size_t B) {
    fc_backend *be = m->be;
    size_t L = m->cfg.input_size;
    const float *mask = ACT(m, m->a_mask);
    float *dr = SCR(m, m->s_dr), *dback = SCR(m, m->s_dback), *drtmp = SCR(m, m->s_drtmp);
    const float *dfq = NULL;
    if (m->cfg.n_outputs > 1) {                    /* (B, H, Q) -> (B, Q, H), shared by every block */
        size_t H = m->cfg.h, Q = m->cfg.n_outputs;
        be->transpose_rows(be, SCR(m, m->s_dfq), Q * H, dforecast, H * Q, B, H, Q);
        dfq = SCR(m, m->s_dfq);
    }
    be->fill(be, dr, 0.0f, B * L);                 /* the last residual is unused */
    for (int i = m->n_blocks - 1; i >= 0; i--) {
        fc_block *b = &m->blocks[i];
        float *dtheta = SCR(m, m->s_ping);
        /* d backcast = -(d r_{i+1}) * mask */
        be->axpby_rows(be, dback, L, -1.0f, dr, L, 0.0f, B, L);
        be->mul_rows(be, dback, L, mask, L, B, L);
        FC_TRY(block_basis_backward(m, b, dtheta, dback, dforecast, dfq, B));
        FC_TRY(block_mlp_backward(m, b, dtheta, B, i > 0 ? drtmp : NULL));
        if (i > 0) {                               /* d r_i = d r_{i+1} * mask + d input_i */
            be->mul_rows(be, dr, L, mask, L, B, L);
            be->axpby_rows(be, dr, L, 1.0f, drtmp, L, 1.0f, B, L);
        }
    }
    return FC_OK;
}
