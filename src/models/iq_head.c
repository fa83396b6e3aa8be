/* IQLoss's head after any model kind (kernels/iq_head.h): its tensors,
 * named as neuralforecast's state_dict names IQLoss's modules (the loss's
 * QuantileLayer and output layer, registered on the model as `loss`), its
 * plan, and its forward and backward around the kind's. The kind forecasts
 * into the head's yhat activation; the head's output is the model's. */
#include <string.h>

#include "core/error.h"
#include "models/model.h"

#define ACT(m, off) ((m)->acts + (off) * (m)->capacity)
#define SCR(m, off) ((m)->scratch + (off) * (m)->capacity)

/* torch's PReLU initialises its one slope to 0.25. */
#define FC_PRELU_INIT 0.25f

static void add_prelu(fc_model *m, const char *name) {
    size_t t = fc_model_add_tensor(m, name, 1, 1, 1, 1);
    m->tensors[t].init_constant = 1;
    m->tensors[t].init_value = FC_PRELU_INIT;
}

/* The block's tensors in kernels/iq_head.h's order (W1, b1, alpha1, w2,
 * b2, w3, b3, alpha2), last among the trainable ones so the block is
 * contiguous, then the embedding's integers (a constant buffer). */
fc_status fc_iq_head_build(fc_model *m) {
    size_t D = m->cfg.iq_dim, H = m->cfg.h;
    if (D < 1 || D > FC_IQ_MAX_DIM || m->cfg.n_outputs != 1)
        return fc_error(FC_ERR_INVALID, "IQLoss: cos_embedding_dim %zu must be from 1 to %d, with one output per point",
                        D, FC_IQ_MAX_DIM);
    m->iq.first_tensor = m->n_tensors;
    fc_model_add_tensor(m, "loss.quantile_layer.output_layer.0.weight", 2, (int64_t)D, (int64_t)D, 1);
    fc_model_add_tensor(m, "loss.quantile_layer.output_layer.0.bias", 1, (int64_t)D, 1, 1);
    add_prelu(m, "loss.quantile_layer.output_layer.1.weight");
    fc_model_add_tensor(m, "loss.quantile_layer.output_layer.2.weight", 2, 1, (int64_t)D, 1);
    fc_model_add_tensor(m, "loss.quantile_layer.output_layer.2.bias", 1, 1, 1, 1);
    fc_model_add_tensor(m, "loss.output_layer.0.weight", 2, 1, 1, 1);
    fc_model_add_tensor(m, "loss.output_layer.0.bias", 1, 1, 1, 1);
    add_prelu(m, "loss.output_layer.1.weight");
    fc_model_add_tensor(m, "loss.quantile_layer.integers", 1, (int64_t)D, 1, 0);
    m->iq.a_yhat = fc_model_plan_act(m, H);
    m->iq.a_tau = fc_model_plan_act(m, H);
    m->iq.a_cs = fc_model_plan_act(m, H * D);
    m->iq.a_z = fc_model_plan_act(m, H * D);
    m->iq.a_s = fc_model_plan_act(m, 3 * H);
    m->iq.s_dyhat = fc_model_plan_scratch(m, H);
    m->iq.s_gz = fc_model_plan_scratch(m, H * D);
    m->iq.s_gs = fc_model_plan_scratch(m, 2 * H);
    m->iq.quantile = 0.5f;
    return FC_OK;
}

/* torch.arange(0, cos_embedding_dim), as floats. */
void fc_iq_head_fill_buffers(fc_model *m) {
    size_t D = m->cfg.iq_dim;
    const fc_tensor *t = &m->tensors[m->iq.first_tensor + 8];
    float k[FC_IQ_MAX_DIM];
    for (size_t i = 0; i < D; i++) k[i] = (float)i;
    m->be->to_device(m->be, m->params + t->offset, k, D * sizeof *k);
}

float *fc_iq_head_yhat(fc_model *m) { return ACT(m, m->iq.a_yhat); }
const float *fc_iq_head_taus(const fc_model *m) { return m->acts + m->iq.a_tau * m->capacity; }

static fc_iq_call head_call(fc_model *m, size_t B) {
    fc_iq_call c;
    memset(&c, 0, sizeof c);
    c.params = m->params + m->tensors[m->iq.first_tensor].offset;
    c.tau = ACT(m, m->iq.a_tau);
    c.yhat = ACT(m, m->iq.a_yhat);
    c.cs = ACT(m, m->iq.a_cs);
    c.z = ACT(m, m->iq.a_z);
    c.s = ACT(m, m->iq.a_s);
    c.n = B * m->cfg.h;
    c.D = m->cfg.iq_dim;
    return c;
}

/* Training draws each point's quantile (IQLoss._sample_quantiles); any
 * other forward forecasts m->iq.quantile (update_quantile). */
void fc_iq_head_forward(fc_model *m, float *forecast, size_t B) {
    fc_backend *be = m->be;
    fc_iq_call c = head_call(m, B);
    c.out = forecast;
    if (m->training)
        be->iq_taus(be, ACT(m, m->iq.a_tau), c.n, m->dropout_seed ^ 0x49514C4F53530000ull,
                    (float)m->cfg.iq_concentration0, (float)m->cfg.iq_concentration1);
    else
        be->fill(be, ACT(m, m->iq.a_tau), m->iq.quantile, c.n);
    be->iq_head_forward(be, &c);
}

float *fc_iq_head_backward(fc_model *m, float *dforecast, size_t B) {
    fc_iq_call c = head_call(m, B);
    c.out = NULL;
    c.dout = dforecast;
    c.dyhat = SCR(m, m->iq.s_dyhat);
    c.gz = SCR(m, m->iq.s_gz);
    c.gs = SCR(m, m->iq.s_gs);
    c.dparams = m->grads + m->tensors[m->iq.first_tensor].offset;
    m->be->iq_head_backward(m->be, &c);
    return c.dyhat;
}
