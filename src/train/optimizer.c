/* The optimizer step (see optimizer.h). One pass over the gradients for
 * their norm when a scaler or clipping needs it, one pass to apply
 * unscaling and clipping together, then Adam. */
#include <math.h>

#include "core/error.h"
#include "train/optimizer.h"

double fc_clip_coefficient(double norm, double max_norm) {
    double coef = max_norm / (norm + 1e-6);
    return coef < 1.0 ? coef : 1.0;
}

fc_status fc_optimizer_init(fc_optimizer *o, fc_model *m, int loss_scaling, double clip_norm) {
    fc_backend *be = m->be;
    *o = (fc_optimizer){.clip_norm = clip_norm};
    if (!(clip_norm >= 0) || !isfinite(clip_norm))
        return fc_error(FC_ERR_INVALID, "--clip-grad-norm must be a finite number >= 0 (0: off)");
    fc_loss_scaler_init(&o->scaler, loss_scaling);
    o->m = be->alloc(be, m->n_trainable * sizeof(float));
    o->v = be->alloc(be, m->n_trainable * sizeof(float));
    if (!o->m || !o->v) return FC_ERR_MEMORY;
    be->fill(be, o->m, 0.0f, m->n_trainable);
    be->fill(be, o->v, 0.0f, m->n_trainable);
    return FC_OK;
}

void fc_optimizer_free(fc_optimizer *o, fc_model *m) {
    m->be->release(m->be, o->m);
    m->be->release(m->be, o->v);
    o->m = o->v = NULL;
}

fc_status fc_optimizer_step(fc_optimizer *o, fc_model *m, float lr, fc_step_report *r) {
    fc_backend *be = m->be;
    size_t n = m->n_trainable;
    *r = (fc_step_report){.grad_norm = NAN, .clip_coef = 1.0};
    double factor = 1.0 / o->scaler.scale;   /* a power of two: exact */
    if (o->scaler.enabled || o->clip_norm > 0) {
        double ss;
        be->sum_squares(be, &ss, m->grads, n);
        int finite = isfinite(ss);
        if (fc_loss_scaler_update(&o->scaler, !finite)) {
            r->skipped = 1;
            return FC_OK;
        }
        if (!finite)
            return fc_error(FC_ERR_INVALID, "the gradients are not finite (norm %g): lower --lr or "
                            "train in fp32", sqrt(ss));
        r->grad_norm = sqrt(ss) * factor;
        if (o->clip_norm > 0) r->clip_coef = fc_clip_coefficient(r->grad_norm, o->clip_norm);
        factor *= r->clip_coef;
    }
    if (factor != 1.0) be->scale(be, m->grads, (float)factor, n);
    o->adam_steps++;
    be->adam_step(be, m->params, m->grads, o->m, o->v, n, lr, 0.9f, 0.999f, 1e-8f, o->adam_steps);
    fc_model_refresh_low(m);
    return FC_OK;
}
