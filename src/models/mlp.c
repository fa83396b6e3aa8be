/* MLP as neuralforecast's MLP: num_layers Linear(+ReLU) layers of
 * hidden_size on the (unflipped) insample window, then Linear(hidden, h * Q),
 * whose rows are already the (B, h, Q) forecast (neuralforecast's reshape).
 * With exogenous inputs the first layer reads [y | hist | futr | stat]
 * (exog_inputs.c). Tensor names: mlp.<i>.weight/bias and out.weight/bias. This file is the
 * MLP's row of the kind table (model_kinds.h). */
#include <jansson.h>
#include <stdio.h>

#include "core/error.h"
#include "models/model_kinds.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)
#define SCR(m, off) ((m)->scratch + (off) * (m)->capacity)

/* MLP(): num_layers = 2 of hidden_size = 1024. */
void fc_mlp_defaults(fc_model_config *c) {
    c->hidden_size = 1024;
    c->num_layers = 2;
}

fc_status fc_mlp_check_config(const fc_model_config *c) {
    if (c->num_layers < 1 || c->num_layers > FC_MAX_LINEARS - 1)
        return fc_error(FC_ERR_INVALID, "MLP: num_layers must be 1 to %d (got %d)", FC_MAX_LINEARS - 1, c->num_layers);
    if (c->hidden_size < 1 || c->hidden_size > FC_MAX_DIM)
        return fc_error(FC_ERR_INVALID, "MLP: hidden_size must be 1 to %zu", FC_MAX_DIM);
    return FC_OK;
}

fc_status fc_mlp_build(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    char prefix[32];
    size_t in = fc_exog_input_width(c, 1, c->input_size), w = c->hidden_size;
    if (fc_model_has_exog(c)) {
        m->a_mlp_xin = fc_model_plan_act(m, in);
        fc_exog_plan(m);
    }
    for (int i = 0; i < c->num_layers; i++) {
        snprintf(prefix, sizeof prefix, "mlp.%d", i);
        fc_model_add_linear(m, &m->lin[i], prefix, i == 0 ? in : w, w, FC_ACT_RELU);
        m->a_mlp_out[i] = fc_model_plan_act(m, w);
    }
    size_t out = c->h * c->n_outputs;
    fc_model_add_linear(m, &m->lin[c->num_layers], "out", w, out, FC_ACT_NONE);
    m->n_linear = c->num_layers + 1;
    size_t width = w > out ? w : out;
    m->s_ping = fc_model_plan_scratch(m, width);
    m->s_pong = fc_model_plan_scratch(m, width);
    return FC_OK;
}

/* The MLP reads every point: neuralforecast's MLP ignores the mask too. */
fc_status fc_mlp_forward(fc_model *m, float *forecast, const float *insample, const float *insample_mask,
                         size_t B) {
    (void)insample_mask;
    const float *x = insample;
    if (fc_model_has_exog(&m->cfg)) {      /* [y | hist | futr | stat] */
        size_t L = m->cfg.input_size, width = m->lin[0].in;
        float *xin = ACT(m, m->a_mlp_xin);
        m->be->axpby_rows(m->be, xin, width, 1.0f, insample, L, 0.0f, B, L);
        fc_exog_fill_input(m, xin, width, L, 1, B);
        x = xin;
    }
    const float *input = x;
    for (int i = 0; i < m->n_linear; i++) {
        const fc_linear *l = &m->lin[i];
        float *y = i + 1 < m->n_linear ? ACT(m, m->a_mlp_out[i]) : forecast;
        fc_linear_call call = fc_model_linear_call(m, l, x, y, B);
        FC_TRY(m->be->linear_forward(m->be, &call));
        x = y;
    }
    m->mlp_input = input;
    return FC_OK;
}

/* Each layer's backward applies its own ReLU mask to dy (from its output). */
fc_status fc_mlp_backward(fc_model *m, float *dforecast, size_t B) {
    float *dy = dforecast;
    float *bufs[2] = {SCR(m, m->s_ping), SCR(m, m->s_pong)};
    for (int i = m->n_linear - 1; i >= 0; i--) {
        const fc_linear *l = &m->lin[i];
        const float *x = i > 0 ? ACT(m, m->a_mlp_out[i - 1]) : m->mlp_input;
        float *dx = i > 0 ? bufs[i & 1] : NULL;
        float *y = i + 1 < m->n_linear ? ACT(m, m->a_mlp_out[i]) : NULL;   /* NULL: no ReLU reads it */
        fc_linear_call call = fc_model_linear_call(m, l, x, y, B);
        FC_TRY(fc_model_linear_backward(m, &call, l, dy, dx));
        if (dx) dy = dx;
    }
    return FC_OK;
}

/* The MLP has no non-trainable tensors. */
fc_status fc_mlp_fill_buffers(fc_model *m) {
    (void)m;
    return FC_OK;
}

void fc_mlp_config_to_json(const fc_model_config *c, json_t *o) {
    json_object_set_new(o, "hidden_size", json_integer((json_int_t)c->hidden_size));
    json_object_set_new(o, "num_layers", json_integer(c->num_layers));
}

fc_status fc_mlp_config_from_json(json_t *o, fc_model_config *c, const char *where) {
    size_t layers = (size_t)c->num_layers;
    FC_TRY(fc_json_get_size(o, "hidden_size", &c->hidden_size, 1, where));
    FC_TRY(fc_json_get_size(o, "num_layers", &layers, 1, where));
    c->num_layers = (int)layers;
    return FC_OK;
}

/* Its flags; --hidden-size is TiDE's and PatchTST's too. */
static const fc_arch_option ARCH[] = {
    FC_ARCH_SIZE("hidden-size", hidden_size, 1, FC_MAX_DIM, "N", "MLP (1024), TiDE (512) and PatchTST (128) hidden width"),
    FC_ARCH_SIZE("num-layers", num_layers, 1, FC_MAX_LINEARS - 1, "N", "MLP hidden layers (2)"),
};
const fc_arch_option_rows fc_mlp_arch_options = FC_ARCH_ROWS(ARCH);
