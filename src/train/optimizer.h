/* The optimizer step of training: gradient check, unscaling and global-norm
 * clipping, Adam (PyTorch semantics) on the fp32 master weights, and the
 * refresh of the low-precision weight copies. The order is PyTorch's AMP
 * recipe: scaler.unscale_(opt); clip_grad_norm_(params, X);
 * scaler.step(opt); scaler.update().
 *
 * The step runs in three parts so that a GPU can replay a whole training
 * step as one graph: fc_optimizer_prepare writes the step's scalars into
 * backend memory (outside the graph), fc_optimizer_launch queues the step
 * (the backend decides skip, unscale and clip from the gradients' norm:
 * kernels/optimizer_step.h), and fc_optimizer_finish, once the step's
 * report is on the host, updates the loss scaler and the step count. */
#ifndef FC_TRAIN_OPTIMIZER_H
#define FC_TRAIN_OPTIMIZER_H

#include "kernels/optimizer_step.h"
#include "models/model.h"
#include "train/loss_scaler.h"

typedef struct {
    float *m, *v;              /* Adam moments (n_trainable), device */
    fc_loss_scaler scaler;
    double clip_norm;          /* 0: no clipping */
    fc_optimizer_kind kind;    /* Adam (the default) or AdamW */
    float weight_decay;        /* torch's weight_decay for kind; 0: none */
    int64_t adam_steps;        /* steps taken (skipped ones excluded, as torch) */
    fc_step_in *in, *d_in;     /* this step's scalars: host staging and its backend copy */
    fc_step_out *out, *d_out;  /* the step's report (and loss): backend, and its host copy */
} fc_optimizer;

typedef struct {
    int skipped;               /* 1: inf/NaN gradients, step skipped (fp16) */
    double grad_norm;          /* global L2 norm of the unscaled gradients before
                                  clipping; NaN when not computed (fp32 or bf16
                                  without clipping) */
    double clip_coef;          /* factor applied by clipping (1: none) */
} fc_step_report;

/* Adam moments for m's trainable parameters, zeroed. loss_scaling enables
 * the dynamic loss scaler (fp16). clip_norm 0 disables clipping. */
fc_status fc_optimizer_init(fc_optimizer *o, fc_model *m, int loss_scaling, double clip_norm);
void fc_optimizer_free(fc_optimizer *o, fc_model *m);
/* torch.optim.Adam (weight decay as L2 on the gradient) or AdamW
 * (decoupled weight decay) with this weight_decay, instead of Adam without
 * it; FC_ERR_INVALID unless weight_decay is finite and >= 0. */
fc_status fc_optimizer_use(fc_optimizer *o, fc_optimizer_kind kind, double weight_decay);

/* The scale the loss gradient must be multiplied by before backward. */
static inline float fc_optimizer_loss_scale(const fc_optimizer *o) { return o->scaler.scale; }

/* Where the step's loss is summed (masked_loss's d_loss): its report. */
static inline double *fc_optimizer_loss_slot(fc_optimizer *o) { return &o->d_out->loss; }

/* The step's scalars (learning rate lr, Adam(0.9, 0.999, 1e-8) at the next
 * step count, the loss scale, clipping) into backend memory. Outside a
 * capture; before the step's launch. */
void fc_optimizer_prepare(fc_optimizer *o, fc_model *m, float lr);
/* Queues the step from the gradients in m->grads (unscaled and clipped in
 * place) with the scalars prepare wrote. Capturable. */
void fc_optimizer_launch(fc_optimizer *o, fc_model *m);
/* Copies the step's report (and its loss, into *loss) to the host, waiting
 * for the step, and does the host's part: the loss scaler's update, the
 * step count, the report. FC_ERR_INVALID when the gradients are not finite
 * without a loss scaler to skip the step. */
fc_status fc_optimizer_finish(fc_optimizer *o, fc_model *m, double *loss, fc_step_report *r);

/* The three in a row: one step from the gradients in m->grads. */
fc_status fc_optimizer_step(fc_optimizer *o, fc_model *m, float lr, fc_step_report *r);

#endif
