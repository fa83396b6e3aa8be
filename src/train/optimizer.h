/* The optimizer step of training: gradient check, unscaling and global-norm
 * clipping, Adam (PyTorch semantics) on the fp32 master weights, and the
 * refresh of the low-precision weight copies. The order is PyTorch's AMP
 * recipe: scaler.unscale_(opt); clip_grad_norm_(params, X);
 * scaler.step(opt); scaler.update(). */
#ifndef FC_TRAIN_OPTIMIZER_H
#define FC_TRAIN_OPTIMIZER_H

#include "models/model.h"
#include "train/loss_scaler.h"

typedef struct {
    float *m, *v;              /* Adam moments (n_trainable), device */
    fc_loss_scaler scaler;
    double clip_norm;          /* 0: no clipping */
    int64_t adam_steps;        /* steps taken (skipped ones excluded, as torch) */
} fc_optimizer;

typedef struct {
    int skipped;               /* 1: inf/NaN gradients, step skipped (fp16) */
    double grad_norm;          /* global L2 norm of the unscaled gradients before
                                  clipping; NaN when not computed (fp32 or bf16
                                  without clipping) */
    double clip_coef;          /* factor applied by clipping (1: none) */
} fc_step_report;

/* clip_grad_norm_'s factor: min(max_norm / (norm + 1e-6), 1). */
double fc_clip_coefficient(double norm, double max_norm);

/* Adam moments for m's trainable parameters, zeroed. loss_scaling enables
 * the dynamic loss scaler (fp16). clip_norm 0 disables clipping. */
fc_status fc_optimizer_init(fc_optimizer *o, fc_model *m, int loss_scaling, double clip_norm);
void fc_optimizer_free(fc_optimizer *o, fc_model *m);

/* The scale the loss gradient must be multiplied by before backward. */
static inline float fc_optimizer_loss_scale(const fc_optimizer *o) { return o->scaler.scale; }

/* One step from the gradients in m->grads (which it unscales and clips in
 * place), with learning rate lr and Adam(0.9, 0.999, 1e-8). */
fc_status fc_optimizer_step(fc_optimizer *o, fc_model *m, float lr, fc_step_report *r);

#endif
