/* The model object: tensor table, parameter block, activation plan and
 * PyTorch-default initialisation. Everything that depends on the kind
 * (build, forward, backward, buffers) goes through its row, m->ops
 * (model_kinds.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "core/rng.h"
#include "models/model_kinds.h"


size_t fc_model_add_tensor(fc_model *m, const char *name, int ndim, int64_t d0, int64_t d1, int trainable) {
    FC_ASSERT(m->n_tensors < FC_TENSOR_CAP);
    fc_tensor *t = &m->tensors[m->n_tensors];
    memset(t, 0, sizeof *t);
    FC_ASSERT(strlen(name) < sizeof t->name);   /* a state_dict name is never cut */
    snprintf(t->name, sizeof t->name, "%s", name);
    t->ndim = ndim;
    t->shape[0] = d0;
    t->shape[1] = ndim > 1 ? d1 : 1;
    t->numel = (size_t)d0 * (size_t)(ndim > 1 ? d1 : 1);
    t->trainable = trainable;
    return m->n_tensors++;
}

fc_status fc_model_add_linear_rows(fc_model *m, fc_linear *lin, const char *weight, const char *bias, size_t in,
                                   size_t out, fc_activation act, size_t rows) {
    lin->in = in;
    lin->out = out;
    lin->rows = rows;
    lin->act = act;
    lin->a_low = fc_model_plan_low(m, rows * in);
    lin->w = fc_model_add_tensor(m, weight, 2, (int64_t)out, (int64_t)in, 1);
    lin->b = fc_model_add_tensor(m, bias, 1, (int64_t)out, 1, 1);
    return FC_OK;
}

int fc_model_add_layer(fc_model *m, const char *prefix, const char *name, size_t in, size_t out, fc_activation act,
                       size_t rows) {
    char weight[sizeof m->tensors->name], bias[sizeof m->tensors->name];
    int w = snprintf(weight, sizeof weight, "%s.%s.weight", prefix, name);
    int b = snprintf(bias, sizeof bias, "%s.%s.bias", prefix, name);
    FC_ASSERT(w > 0 && (size_t)w < sizeof weight && b > 0 && (size_t)b < sizeof bias);   /* names are never cut */
    FC_ASSERT(m->n_linear < FC_MAX_MODEL_LINEARS);
    fc_model_add_linear_rows(m, &m->lin[m->n_linear], weight, bias, in, out, act, rows);
    return m->n_linear++;
}

fc_status fc_model_add_linear(fc_model *m, fc_linear *lin, const char *prefix, size_t in, size_t out,
                              fc_activation act) {
    char weight[64], bias[64];
    snprintf(weight, sizeof weight, "%s.weight", prefix);
    snprintf(bias, sizeof bias, "%s.bias", prefix);
    return fc_model_add_linear_rows(m, lin, weight, bias, in, out, act, 1);
}

/* 0: trainable, 1: state (changed by training), 2: constant buffer. */
static int tensor_class(const fc_tensor *t) { return t->trainable ? 0 : t->state ? 1 : 2; }

/* Trainable tensors first, in table order, then the state buffers, then
 * the constant ones: the gradient and the optimizer cover [0, n_trainable),
 * the best weights [0, n_state). */
static void assign_offsets(fc_model *m) {
    size_t off = 0, low = 0;
    for (int pass = 0; pass < 3; pass++) {
        for (size_t i = 0; i < m->n_tensors; i++)
            if (tensor_class(&m->tensors[i]) == pass) {
                fc_tensor *t = &m->tensors[i];
                t->offset = off;
                off += t->numel;
                if (pass) continue;
                t->low_offset = low;   /* the rounded copies: each tensor aligned (FC_LOW_PARAM_ALIGN) */
                low += (t->numel + FC_LOW_PARAM_ALIGN - 1) / FC_LOW_PARAM_ALIGN * FC_LOW_PARAM_ALIGN;
            }
        if (pass == 0) m->n_trainable = off;
        if (pass == 1) m->n_state = off;
    }
    m->n_floats = off;
    m->n_low_params = low;
}

fc_status fc_model_plan(const fc_model_config *cfg, fc_model **out) {
    *out = NULL;
    const fc_model_kind_ops *ops;
    FC_TRY(fc_model_config_check(cfg));   /* refuses a kind without a complete row */
    FC_TRY(fc_model_kind_lookup(cfg->kind, &ops));
    fc_model *m = fc_calloc(1, sizeof *m, "model");
    if (!m) return FC_ERR_MEMORY;
    m->cfg = *cfg;
    m->ops = ops;
    m->tensors = fc_calloc(FC_TENSOR_CAP, sizeof *m->tensors, "tensor table");
    fc_status st = m->tensors ? ops->build(m) : FC_ERR_MEMORY;
    if (st == FC_OK && cfg->iq_dim) st = fc_iq_head_build(m);
    if (st != FC_OK) { fc_model_free(&m); return st; }
    assign_offsets(m);
    fc_model_plan_dy_low(m);
    *out = m;
    return FC_OK;
}

fc_status fc_model_allocate(fc_model *m, fc_backend *be) {
    m->be = be;
    m->params = be->alloc(be, m->n_floats * sizeof(float));
    if (!m->params)
        return fc_error_wrap(FC_ERR_MEMORY, "%s with %zu parameters (%.1f MB): ", m->ops->name,
                             m->n_floats, (double)m->n_floats * sizeof(float) / 1e6);
    be->fill(be, m->params, 0.0f, m->n_floats);
    FC_TRY(m->ops->fill_buffers(m));
    if (m->cfg.iq_dim) fc_iq_head_fill_buffers(m);
    return FC_OK;
}

fc_status fc_model_create(const fc_model_config *cfg, fc_backend *be, fc_model **out) {
    FC_TRY(fc_model_plan(cfg, out));
    fc_status st = fc_model_allocate(*out, be);
    if (st != FC_OK) fc_model_free(out);
    return st;
}

void fc_model_free(fc_model **mp) {
    fc_model *m = *mp;
    if (!m) return;
    if (m->be) {
        m->be->release(m->be, m->params);
        m->be->release(m->be, m->grads);
        m->be->release(m->be, m->acts);
        m->be->release(m->be, m->scratch);
        m->be->release(m->be, m->params_low);
        m->be->release(m->be, m->lows);
    }
    free(m->tensors);
    free(m);
    *mp = NULL;
}

const fc_tensor *fc_model_find(const fc_model *m, const char *name) {
    for (size_t i = 0; i < m->n_tensors; i++)
        if (!strcmp(m->tensors[i].name, name)) return &m->tensors[i];
    return NULL;
}

size_t fc_model_act_floats(const fc_model *m, size_t B) { return m->act_floats * B + m->fixed_floats; }
size_t fc_model_scratch_floats(const fc_model *m, size_t B) { return m->grad_scratch_floats * B; }

fc_status fc_model_reserve(fc_model *m, size_t B, int with_grads) {
    fc_backend *be = m->be;
    if (B > m->capacity) {
        be->release(be, m->acts);
        be->release(be, m->scratch);
        m->scratch = NULL;
        fc_model_drop_low_acts(m);
        m->acts = be->alloc(be, fc_model_act_floats(m, B) * sizeof(float));
        if (!m->acts) {
            m->capacity = 0;
            return fc_error_wrap(FC_ERR_MEMORY, "activations of %zu windows (%.1f MB): ", B,
                                 (double)fc_model_act_floats(m, B) * sizeof(float) / 1e6);
        }
        m->capacity = B;
    }
    FC_TRY(fc_model_reserve_low(m));
    if (with_grads && !m->scratch) {
        m->scratch = be->alloc(be, fc_model_scratch_floats(m, m->capacity) * sizeof(float));
        if (!m->scratch) return FC_ERR_MEMORY;
    }
    if (with_grads && !m->grads) {
        m->grads = be->alloc(be, m->n_trainable * sizeof(float));
        if (!m->grads) return FC_ERR_MEMORY;
        be->fill(be, m->grads, 0.0f, m->n_trainable);
    }
    return FC_OK;
}

/* fan_in of a tensor: the weight's in-features; a bias takes its weight's. */
static size_t fan_in_of(const fc_model *m, size_t i) {
    const fc_tensor *t = &m->tensors[i];
    if (t->ndim == 2) return (size_t)t->shape[1];
    if (t->init_constant || t->init_bound > 0.0) return 1;   /* not read */
    FC_ASSERT(i > 0 && m->tensors[i - 1].ndim == 2);
    return (size_t)m->tensors[i - 1].shape[1];
}

fc_status fc_model_init_params(fc_model *m, uint64_t seed) {
    size_t n = m->n_floats;
    float *host = fc_malloc(n * sizeof(float), "initial parameters");
    if (!host) return FC_ERR_MEMORY;
    m->be->to_host(m->be, host, m->params, n * sizeof(float));   /* keeps the buffers */
    for (size_t i = 0; i < m->n_tensors; i++) {
        const fc_tensor *t = &m->tensors[i];
        if (!t->trainable && !(t->init_bound > 0.0)) continue;   /* buffers: fill_buffers' */
        /* kaiming_uniform(a=sqrt(5)) and the bias rule both give 1/sqrt(fan_in); a layer
         * without inputs (TiDE's unused projection) gets a zero bias, as torch's rule */
        size_t fan_in = fan_in_of(m, i);
        float bound = t->init_bound > 0.0 ? (float)t->init_bound : fan_in ? 1.0f / sqrtf((float)fan_in) : 0.0f;
        for (size_t k = 0; k < t->numel && t->init_constant; k++) host[t->offset + k] = t->init_value;
        for (size_t k = 0; k < t->numel && !t->init_constant; k++) {
            size_t idx = t->offset + k;
            fc_philox_out r = fc_rng_block(seed, FC_RNG_STREAM_INIT, idx);
            host[idx] = (2.0f * fc_u32_to_unit_float(r.v[0]) - 1.0f) * bound;
        }
    }
    m->be->to_device(m->be, m->params, host, n * sizeof(float));
    free(host);
    return FC_OK;
}

static fc_status check_batch(const fc_model *m, size_t B, int backward) {
    if (B == 0 || B > m->capacity)
        return fc_error(FC_ERR_INVALID, "model: batch of %zu windows, room reserved for %zu", B, m->capacity);
    if (backward && (!m->grads || !m->scratch))
        return fc_error(FC_ERR_INVALID, "model: backward without reserved gradients");
    return FC_OK;
}

/* A kind of exogenous input the model reads must come with the batch. */
static fc_status check_exog(const fc_model *m) {
    const fc_model_config *c = &m->cfg;
    if ((c->futr_exog.n && !m->exog.futr) || (c->hist_exog.n && !m->exog.hist) || (c->stat_exog.n && !m->exog.stat))
        return fc_error(FC_ERR_INVALID, "model: a forward without the exogenous inputs it reads (%d future, %d past, "
                        "%d static)", c->futr_exog.n, c->hist_exog.n, c->stat_exog.n);
    return FC_OK;
}

fc_status fc_model_forward(fc_model *m, float *forecast, const float *insample,
                           const float *insample_mask, size_t B) {
    FC_TRY(check_batch(m, B, 0));
    FC_TRY(check_exog(m));
    if (!m->cfg.iq_dim) return m->ops->forward(m, forecast, insample, insample_mask, B);
    FC_TRY(m->ops->forward(m, fc_iq_head_yhat(m), insample, insample_mask, B));   /* then IQLoss's head */
    fc_iq_head_forward(m, forecast, B);
    return FC_OK;
}

fc_status fc_model_backward(fc_model *m, float *dforecast, size_t B) {
    FC_TRY(check_batch(m, B, 1));
    return m->ops->backward(m, m->cfg.iq_dim ? fc_iq_head_backward(m, dforecast, B) : dforecast, B);
}

size_t fc_model_plan_act(fc_model *m, size_t width) {
    size_t off = m->act_floats;
    m->act_floats += (width + 15) & ~(size_t)15;   /* keeps every buffer 64-byte aligned per row block */
    return off;
}

size_t fc_model_plan_fixed(fc_model *m, size_t width) {
    size_t off = m->fixed_floats;
    m->fixed_floats += (width + 15) & ~(size_t)15;
    return off;
}

size_t fc_model_plan_scratch(fc_model *m, size_t width) {
    size_t off = m->grad_scratch_floats;
    m->grad_scratch_floats += (width + 15) & ~(size_t)15;
    return off;
}
