/* neuralforecast's MLPResidual (TiDE's building block):
 *
 *   h1  = relu(lin1(x));  h2 = dropout(lin2(h1));  pre = h2 + skip(x)
 *   out = layernorm ? LayerNorm(pre) : pre
 *
 * on `rows` rows per window (a projection applied at every time step reads
 * (B rows, in)). Dropout masks come from the backend's Philox dropout with
 * the model's step seed and the block's own offset, so the backward redraws
 * the same mask instead of storing it. */
#include <stdio.h>

#include "core/error.h"
#include "models/model_kinds.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)
#define PAR(m, t) ((m)->params + (m)->tensors[t].offset)
#define GRAD(m, t) ((m)->grads + (m)->tensors[t].offset)

/* nn.LayerNorm's eps. */
#define FC_LAYER_NORM_EPS 1e-5f

void fc_resmlp_add(fc_model *m, fc_resmlp *r, const char *prefix, size_t in, size_t hidden, size_t out, size_t rows,
                   int layernorm) {
    char name[96];
    r->in = in;
    r->hidden = hidden;
    r->out = out;
    r->rows = rows;
    r->layernorm = layernorm;
    if (layernorm) {   /* registered first in MLPResidual.__init__; weight 1, bias 0 as nn.LayerNorm */
        snprintf(name, sizeof name, "%s.norm.weight", prefix);
        r->ln_w = fc_model_add_tensor(m, name, 1, (int64_t)out, 1, 1);
        snprintf(name, sizeof name, "%s.norm.bias", prefix);
        r->ln_b = fc_model_add_tensor(m, name, 1, (int64_t)out, 1, 1);
        m->tensors[r->ln_w].init_constant = m->tensors[r->ln_b].init_constant = 1;
        m->tensors[r->ln_w].init_value = 1.0f;
    }
    r->lin1 = fc_model_add_layer(m, prefix, "lin1", in, hidden, FC_ACT_RELU, rows);
    r->lin2 = fc_model_add_layer(m, prefix, "lin2", hidden, out, FC_ACT_NONE, rows);
    r->skip = fc_model_add_layer(m, prefix, "skip", in, out, FC_ACT_NONE, rows);
}

void fc_resmlp_plan(fc_model *m, fc_resmlp *r) {
    size_t R = r->rows;
    r->a_h1 = fc_model_plan_act(m, R * r->hidden);
    r->a_h2 = fc_model_plan_act(m, R * r->out);
    r->a_pre = fc_model_plan_act(m, R * r->out);
    if (!r->layernorm) return;
    r->a_out = fc_model_plan_act(m, R * r->out);
    r->a_mean = fc_model_plan_act(m, R);
    r->a_rstd = fc_model_plan_act(m, R);
}

/* Each backward scratch slot's width: d h2, d h1, the skip's d x, d pre. */
void fc_resmlp_scratch(const fc_resmlp *r, size_t slot[4]) {
    size_t need[4] = {r->rows * r->out, r->rows * r->hidden, r->rows * r->in, r->layernorm ? r->rows * r->out : 0};
    for (int i = 0; i < 4; i++)
        if (need[i] > slot[i]) slot[i] = need[i];
}

static fc_status run(fc_model *m, int layer, const float *x, float *y, size_t rows) {
    fc_linear_call call = fc_model_linear_call(m, &m->lin[layer], x, y, rows);
    return m->be->linear_forward(m->be, &call);
}

static int dropping(const fc_model *m) { return m->training && m->cfg.dropout > 0.0; }

fc_status fc_resmlp_forward(fc_model *m, fc_resmlp *r, const float *x, size_t B, const float **out) {
    fc_backend *be = m->be;
    size_t n = B * r->rows;
    float *h1 = ACT(m, r->a_h1), *h2 = ACT(m, r->a_h2), *pre = ACT(m, r->a_pre);
    FC_TRY(run(m, r->lin1, x, h1, n));
    FC_TRY(run(m, r->lin2, h1, h2, n));
    if (dropping(m))
        be->dropout(be, h2, r->out, h2, r->out, n, r->out, (float)m->cfg.dropout, m->dropout_seed, r->dropout_offset);
    FC_TRY(run(m, r->skip, x, pre, n));
    be->axpby_rows(be, pre, r->out, 1.0f, h2, r->out, 1.0f, n, r->out);
    *out = pre;
    if (!r->layernorm) return FC_OK;
    be->layer_norm_forward(be, ACT(m, r->a_out), r->out, pre, r->out, PAR(m, r->ln_w), PAR(m, r->ln_b),
                           ACT(m, r->a_mean), ACT(m, r->a_rstd), n, r->out, FC_LAYER_NORM_EPS);
    *out = ACT(m, r->a_out);
    return FC_OK;
}

static fc_status back(fc_model *m, int layer, const float *x, const float *y, float *dy, float *dx, size_t rows) {
    const fc_linear *l = &m->lin[layer];
    fc_linear_call call = fc_model_linear_call(m, l, x, (float *)y, rows);
    return fc_model_linear_backward(m, &call, l, dy, dx);
}

fc_status fc_resmlp_backward(fc_model *m, fc_resmlp *r, const float *x, float *dout, float *dx, float *const scratch[4],
                             size_t B) {
    fc_backend *be = m->be;
    size_t n = B * r->rows;
    float *dpre = dout, *dh2 = scratch[0], *dh1 = scratch[1], *dxs = scratch[2];
    if (r->layernorm) {   /* d pre into scratch[3] */
        dpre = scratch[3];
        be->layer_norm_backward(be, dpre, r->out, dout, r->out, ACT(m, r->a_pre), r->out, PAR(m, r->ln_w),
                                ACT(m, r->a_mean), ACT(m, r->a_rstd), GRAD(m, r->ln_w), GRAD(m, r->ln_b), n, r->out);
    }
    be->axpby_rows(be, dh2, r->out, 1.0f, dpre, r->out, 0.0f, n, r->out);
    if (dropping(m))   /* the same mask: the same call on the gradient */
        be->dropout(be, dh2, r->out, dh2, r->out, n, r->out, (float)m->cfg.dropout, m->dropout_seed, r->dropout_offset);
    FC_TRY(back(m, r->skip, x, NULL, dpre, dx ? dxs : NULL, n));
    FC_TRY(back(m, r->lin2, ACT(m, r->a_h1), NULL, dh2, dh1, n));
    FC_TRY(back(m, r->lin1, x, ACT(m, r->a_h1), dh1, dx, n));
    if (dx) be->axpby_rows(be, dx, r->in, 1.0f, dxs, r->in, 1.0f, n, r->in);
    return FC_OK;
}
