/* Mixed precision of a model: fp32 master weights in m->params, their
 * rounded copies in m->params_low, and a low block for the rounded inputs
 * of every linear layer (x_low, written by forward and read by backward's
 * weight gradient) and the rounded output gradient (dy_low). Only matrix
 * products read the low copies; everything else stays fp32. */
#include "core/error.h"
#include "models/model.h"

/* Rows of every low buffer start 64-byte aligned for 2- and 4-byte elements. */
#define FC_LOW_ALIGN 32

size_t fc_model_plan_low(fc_model *m, size_t width) {
    size_t off = m->low_elems;
    m->low_elems += (width + FC_LOW_ALIGN - 1) & ~(size_t)(FC_LOW_ALIGN - 1);
    return off;
}

static fc_status widen(const fc_linear *l, size_t index, void *ctx) {
    (void)index;
    size_t *w = ctx;
    if (l->rows * l->out > *w) *w = l->rows * l->out;
    return FC_OK;
}

/* dy_low holds the output gradient of any layer: the widest output. (Each
 * layer's x_low is planned as fc_model_add_linear adds it, in the order of
 * the walk.) */
void fc_model_plan_dy_low(fc_model *m) {
    size_t widest = 0;
    fc_model_for_each_linear(m, widen, &widest);
    m->s_dylow = fc_model_plan_low(m, widest);
}

size_t fc_model_low_param_bytes(const fc_model *m, fc_precision prec, const fc_backend *be) {
    return m->n_low_params * be->low_bytes(be, prec);
}

size_t fc_model_low_act_bytes(const fc_model *m, size_t B, fc_precision prec, const fc_backend *be) {
    return m->low_elems * B * be->low_bytes(be, prec);
}

static void release_low(fc_model *m) {
    m->be->release(m->be, m->params_low);
    m->be->release(m->be, m->lows);
    m->params_low = NULL;
    m->lows = NULL;
}

/* The low block for the reserved capacity (called by fc_model_reserve). */
fc_status fc_model_reserve_low(fc_model *m) {
    if (m->prec == FC_PREC_FP32 || m->lows || m->capacity == 0) return FC_OK;
    size_t bytes = fc_model_low_act_bytes(m, m->capacity, m->prec, m->be);
    m->lows = m->be->alloc(m->be, bytes);
    if (!m->lows)
        return fc_error_wrap(FC_ERR_MEMORY, "%s activations of %zu windows (%.1f MB): ",
                             fc_precision_name(m->prec), m->capacity, (double)bytes / 1e6);
    return FC_OK;
}

void fc_model_drop_low_acts(fc_model *m) {
    m->be->release(m->be, m->lows);
    m->lows = NULL;
}

fc_status fc_model_set_precision(fc_model *m, fc_precision prec) {
    if ((unsigned)prec >= FC_PREC_COUNT)
        return fc_error(FC_ERR_INVALID, "model: unknown precision %d", (int)prec);
    if (prec == m->prec) {   /* the weights may have changed since: re-round them */
        fc_model_refresh_low(m);
        return FC_OK;
    }
    release_low(m);
    m->prec = prec;
    if (prec == FC_PREC_FP32) return FC_OK;
    size_t bytes = fc_model_low_param_bytes(m, prec, m->be);
    m->params_low = m->be->alloc(m->be, bytes);
    if (!m->params_low) {
        m->prec = FC_PREC_FP32;
        return fc_error_wrap(FC_ERR_MEMORY, "%s copies of the weights (%.1f MB): ", fc_precision_name(prec),
                             (double)bytes / 1e6);
    }
    fc_model_refresh_low(m);
    fc_status st = fc_model_reserve_low(m);
    if (st != FC_OK) {
        release_low(m);
        m->prec = FC_PREC_FP32;
    }
    return st;
}

static void *low_at(const fc_model *m, void *base, size_t elem_offset) {
    return (char *)base + elem_offset * m->be->low_bytes(m->be, m->prec);
}

/* Each tensor to its aligned place (FC_LOW_PARAM_ALIGN), in runs of
 * tensors that lie end to end in both blocks (lengths that are multiples of
 * the alignment: most of them), so that a step rounds in a few calls, not
 * one per tensor (on a GPU, a launch each). */
void fc_model_refresh_low(fc_model *m) {
    if (m->prec == FC_PREC_FP32) return;
    size_t off = 0, low = 0, n = 0;   /* the run so far */
    for (size_t i = 0; i <= m->n_tensors; i++) {
        const fc_tensor *t = i < m->n_tensors ? &m->tensors[i] : NULL;
        if (t && !t->trainable) continue;
        if (t && n && t->offset == off + n && t->low_offset == low + n) {
            n += t->numel;
            continue;
        }
        if (n) m->be->round_to(m->be, low_at(m, m->params_low, low), m->params + off, n, m->prec);
        if (t) off = t->offset, low = t->low_offset, n = t->numel;
    }
}

fc_linear_call fc_model_linear_call(const fc_model *m, const fc_linear *l, const float *x, float *y,
                                    size_t B) {
    int low = m->prec != FC_PREC_FP32;
    return (fc_linear_call){
        .B = B, .I = l->in, .O = l->out, .act = l->act, .prec = m->prec,
        .x = x, .x_low = low ? low_at(m, m->lows, l->a_low * m->capacity) : NULL,
        .w = m->params + m->tensors[l->w].offset,
        .w_low = low ? low_at(m, m->params_low, m->tensors[l->w].low_offset) : NULL,
        .b = m->params + m->tensors[l->b].offset,
        .y = y,
    };
}

fc_status fc_model_linear_backward(fc_model *m, const fc_linear_call *c, const fc_linear *l, float *dy,
                                   float *dx) {
    void *dy_low = m->prec != FC_PREC_FP32 ? low_at(m, m->lows, m->s_dylow * m->capacity) : NULL;
    return m->be->linear_backward(m->be, c, dy, dy_low, dx, m->grads + m->tensors[l->w].offset,
                                  m->grads + m->tensors[l->b].offset);
}
