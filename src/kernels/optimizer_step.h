/* The optimizer step's decision and element math, shared by the backends'
 * optimizer_step entry (backend.h): so that a whole training step can be
 * replayed as one CUDA graph, nothing in it may wait for the host, and the
 * choices PyTorch's AMP recipe makes on the host (skip the step when the
 * gradients are not finite, unscale, clip) are made here from the
 * gradients' sum of squares, where it was reduced. The host writes this
 * step's scalars into an fc_step_in in backend memory before the step runs
 * and reads the fc_step_out once it is over (train/optimizer.c), the same
 * read that brings the step's loss.
 *
 * The arithmetic is train/optimizer.c's earlier host code, expression for
 * expression (double for the norm and the factor, one float multiply per
 * gradient, then kernels/adam.h's element body), so the CPU's bits did not
 * change when the decision moved. */
#ifndef FC_KERNELS_OPTIMIZER_STEP_H
#define FC_KERNELS_OPTIMIZER_STEP_H

#include <math.h>
#include <stdint.h>
#include "core/hd.h"
#include "kernels/adam.h"

/* What the host sets before a step (backend memory). */
typedef struct fc_step_in {
    fc_adam_scalars adam;     /* fc_adam_scalars_make for the step Adam takes if it is applied */
    double inv_scale;         /* 1 / loss scale: a power of two, so exact (1 without a scaler) */
    double clip_norm;         /* clip_grad_norm_'s max_norm; 0: no clipping */
    int32_t need_norm;        /* 1: the loss scaler or clipping needs the sum of squares */
    int32_t pad;
} fc_step_in;

/* What the step leaves for the host (backend memory), read once per step. */
typedef struct fc_step_out {
    double loss;              /* the step's loss: masked_loss sums its micro-batches here */
    double ss;                /* sum of squares of the gradients as backward left them (still scaled);
                                 NaN when need_norm is 0 (not computed) */
    float factor;             /* the gradients were multiplied by this before Adam (unscale x clip) */
    int32_t scaled;           /* 1: they were (factor != 1 in double) */
    int32_t applied;          /* 0: the gradients were not finite, nothing was changed */
    int32_t pad;
} fc_step_out;

/* clip_grad_norm_'s factor: min(max_norm / (norm + 1e-6), 1). */
FC_HD double fc_clip_coefficient(double norm, double max_norm) {
    double coef = max_norm / (norm + 1e-6);
    return coef < 1.0 ? coef : 1.0;
}

/* The decision, given the gradients' sum of squares (any value when
 * need_norm is 0): skip when it is not finite, else the factor that
 * unscales and clips. One thread runs it. */
FC_HD void fc_step_decide(const fc_step_in *in, double ss, fc_step_out *out) {
    double factor = in->inv_scale;
    out->ss = in->need_norm ? ss : NAN;
    out->applied = 1;
    if (in->need_norm) {
        if (!isfinite(ss)) {
            out->applied = 0;
            out->scaled = 0;
            out->factor = 1.0f;
            return;
        }
        if (in->clip_norm > 0) factor *= fc_clip_coefficient(sqrt(ss) * in->inv_scale, in->clip_norm);
    }
    out->scaled = factor != 1.0;
    out->factor = (float)factor;
}

/* One parameter of an applied step: the gradient scaled in place when
 * `scaled` (the caller's report and the tests read the unscaled, clipped
 * gradients), then Adam. The step's values come by value (in->adam,
 * out->scaled, out->factor), so a loop over parameters holds them in
 * registers and vectorises. */
FC_HD void fc_step_update(float *p, float *g, float *m, float *v, fc_adam_scalars s, int scaled, float factor) {
    float gi = *g;
    if (scaled) {
        gi = gi * factor;
        *g = gi;
    }
    fc_adam_update(p, gi, m, v, s);
}

#endif
