/* The optimizer step (see optimizer.h). The backend's optimizer_step makes
 * one pass over the gradients for their norm when a scaler or clipping
 * needs it and one pass that unscales, clips and applies Adam or AdamW. */
#include <math.h>

#include "core/error.h"
#include "train/optimizer.h"

fc_status fc_optimizer_init(fc_optimizer *o, fc_model *m, int loss_scaling, double clip_norm) {
    fc_backend *be = m->be;
    *o = (fc_optimizer){.clip_norm = clip_norm};
    if (!(clip_norm >= 0) || !isfinite(clip_norm))
        return fc_error(FC_ERR_INVALID, "--clip-grad-norm must be a finite number >= 0 (0: off)");
    fc_loss_scaler_init(&o->scaler, loss_scaling);
    o->m = be->alloc(be, m->n_trainable * sizeof(float));
    o->v = be->alloc(be, m->n_trainable * sizeof(float));
    o->d_in = be->alloc(be, sizeof *o->d_in);
    o->d_out = be->alloc(be, sizeof *o->d_out);
    o->in = be->host_alloc(be, sizeof *o->in);
    o->out = be->host_alloc(be, sizeof *o->out);
    if (!o->m || !o->v || !o->d_in || !o->d_out || !o->in || !o->out) return FC_ERR_MEMORY;
    be->fill(be, o->m, 0.0f, m->n_trainable);
    be->fill(be, o->v, 0.0f, m->n_trainable);
    *o->out = (fc_step_out){.ss = NAN};
    be->to_device(be, o->d_out, o->out, sizeof *o->out);
    return FC_OK;
}

fc_status fc_optimizer_use(fc_optimizer *o, fc_optimizer_kind kind, double weight_decay) {
    if (!(weight_decay >= 0) || !isfinite(weight_decay))
        return fc_error(FC_ERR_INVALID, "--weight-decay must be a finite number >= 0 (0: none)");
    o->kind = kind;
    o->weight_decay = (float)weight_decay;
    return FC_OK;
}

void fc_optimizer_free(fc_optimizer *o, fc_model *m) {
    fc_backend *be = m->be;
    be->sync(be);   /* staging copies may still read o->in */
    void *dev[] = {o->m, o->v, o->d_in, o->d_out}, *host[] = {o->in, o->out};
    for (size_t i = 0; i < 4; i++)
        if (dev[i]) be->release(be, dev[i]);
    for (size_t i = 0; i < 2; i++)
        if (host[i]) be->host_release(be, host[i]);
    o->m = o->v = NULL;
    o->d_in = o->in = NULL;
    o->d_out = o->out = NULL;
}

void fc_optimizer_prepare(fc_optimizer *o, fc_model *m, float lr) {
    fc_step_in *in = o->in;
    in->adam = fc_adam_scalars_make(lr, 0.9f, 0.999f, 1e-8f, o->weight_decay, o->kind, o->adam_steps + 1);
    in->inv_scale = 1.0 / o->scaler.scale;   /* a power of two: exact */
    in->clip_norm = o->clip_norm;
    in->need_norm = o->scaler.enabled || o->clip_norm > 0;
    m->be->to_device(m->be, o->d_in, in, sizeof *in);
}

void fc_optimizer_launch(fc_optimizer *o, fc_model *m) {
    m->be->optimizer_step(m->be, m->params, m->grads, o->m, o->v, m->n_trainable, o->d_in, o->d_out);
    fc_model_refresh_low(m);   /* after a skipped step too: the same values again */
}

fc_status fc_optimizer_finish(fc_optimizer *o, fc_model *m, double *loss, fc_step_report *r) {
    fc_backend *be = m->be;
    const fc_step_out *out = o->out;
    be->to_host(be, o->out, o->d_out, sizeof *o->out);   /* waits for the step */
    FC_TRY(be->status(be));
    *loss = out->loss;
    *r = (fc_step_report){.grad_norm = NAN, .clip_coef = 1.0};
    if (o->in->need_norm) {
        int finite = isfinite(out->ss);
        if (fc_loss_scaler_update(&o->scaler, !finite)) {
            r->skipped = 1;
            return FC_OK;
        }
        if (!finite)
            return fc_error(FC_ERR_INVALID, "the gradients are not finite (norm %g): lower --lr or "
                            "train in fp32", sqrt(out->ss));
        r->grad_norm = sqrt(out->ss) * o->in->inv_scale;
        if (o->clip_norm > 0) r->clip_coef = fc_clip_coefficient(r->grad_norm, o->clip_norm);
    }
    o->adam_steps++;
    return FC_OK;
}

fc_status fc_optimizer_step(fc_optimizer *o, fc_model *m, float lr, fc_step_report *r) {
    double loss;
    fc_optimizer_prepare(o, m, lr);
    fc_optimizer_launch(o, m);
    return fc_optimizer_finish(o, m, &loss, r);
}
