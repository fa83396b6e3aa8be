/* Adam and AdamW, as PyTorch's torch.optim.Adam and torch.optim.AdamW on
 * CPU (amsgrad=False; the single-tensor and foreach paths compute the same
 * thing). Torch's update, per tensor (torch/optim/adam.py; AdamW is Adam
 * with decoupled_weight_decay=True):
 *     if weight_decay != 0:
 *         if decoupled: param.mul_(1 - lr * weight_decay)   # AdamW
 *         else: grad = grad.add(param, alpha=weight_decay)  # Adam's L2
 *     exp_avg.lerp_(grad, 1 - beta1)
 *     exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
 *     bias_correction1 = 1 - beta1 ** step          # Python floats: double
 *     bias_correction2 = 1 - beta2 ** step
 *     step_size = lr / bias_correction1
 *     denom = (exp_avg_sq.sqrt() / bias_correction2 ** 0.5).add_(eps)
 *     param.addcdiv_(exp_avg, denom, value=-step_size)
 * So the scalars are computed once per step in double and rounded to float
 * when they meet the tensors, and the per-element math is float. The
 * element body below follows torch's CPU kernels operation by operation:
 * lerp is torch's vectorised lerp (one fused multiply-add, and the
 * `end - (end - self) * (1 - w)` form when w >= 0.5), addcmul is
 * fma(value * t1, t2, self) (torch's kernel contracts it) and addcdiv
 * `self + (value * t1) / t2`, add with alpha fma(other, alpha, self)
 * (torch's vectorised add), mul by a Python float one float multiply by
 * it rounded to float, with no other contraction (we compile C11,
 * where GCC defaults to -ffp-contract=off). Checked bit for bit against
 * torch 2.x on 3 steps of 4099 parameters when this was written. */
#ifndef FC_KERNELS_ADAM_H
#define FC_KERNELS_ADAM_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "core/hd.h"

/* The per-step scalars, already in the precision the element math uses. */
typedef struct {
    float one_minus_beta1;      /* lerp weight of m towards g */
    float beta2;
    float one_minus_beta2;
    float neg_step_size;        /* -lr / (1 - beta1^step) */
    float bias_correction2_sqrt;
    float eps;
    float l2;                   /* Adam's weight_decay, added to the gradient as l2 * p; 0: none */
    float decay;                /* AdamW's 1 - lr * weight_decay, p's factor before the update; 1: none */
} fc_adam_scalars;

/* The two optimizers: torch.optim.Adam (weight decay as L2 on the
 * gradient) and torch.optim.AdamW (decoupled weight decay). */
typedef enum { FC_OPTIMIZER_ADAM = 0, FC_OPTIMIZER_ADAMW = 1 } fc_optimizer_kind;

/* The double a user most likely meant by the float x: the shortest decimal
 * that rounds to x (0.9f -> 0.9, 1e-3f -> 0.001). Torch holds lr and the
 * betas as Python floats (doubles); our API carries floats, and widening
 * 0.9f directly (0.899999976...) would shift the bias corrections and the
 * step size by a few float ulps. Host only; called once per step. */
static inline double fc_adam_intended_double(float x) {
    char buf[32];
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)x);
        double d = strtod(buf, NULL);
        if ((float)d == x) return d;
    }
    return (double)x;
}

/* Host only: the scalars of step `step` (1 for the first update), with
 * weight_decay as `kind` applies it (the lr of the step decays p in AdamW,
 * as torch reads group["lr"] each step). */
static inline fc_adam_scalars fc_adam_scalars_make(float lr, float beta1, float beta2, float eps,
                                                   float weight_decay, fc_optimizer_kind kind, int64_t step) {
    double lr_d = fc_adam_intended_double(lr);
    double b1 = fc_adam_intended_double(beta1);
    double b2 = fc_adam_intended_double(beta2);
    double bias_correction1 = 1.0 - pow(b1, (double)step);
    double bias_correction2 = 1.0 - pow(b2, (double)step);
    fc_adam_scalars s;
    s.one_minus_beta1 = (float)(1.0 - b1);
    s.beta2 = (float)b2;
    s.one_minus_beta2 = (float)(1.0 - b2);
    s.neg_step_size = (float)(-(lr_d / bias_correction1));
    s.bias_correction2_sqrt = (float)sqrt(bias_correction2);
    s.eps = (float)fc_adam_intended_double(eps);
    double wd = fc_adam_intended_double(weight_decay);
    s.l2 = kind == FC_OPTIMIZER_ADAM ? (float)wd : 0.0f;
    s.decay = kind == FC_OPTIMIZER_ADAMW ? (float)(1.0 - lr_d * wd) : 1.0f;
    return s;
}

/* One parameter: updates m, v and p in place from the gradient g. */
FC_HD void fc_adam_update(float *p, float g, float *m, float *v, fc_adam_scalars s) {
    if (s.l2 != 0.0f) g = fmaf(*p, s.l2, g);
    float w = s.one_minus_beta1;
    float mm = *m;
    mm = w < 0.5f ? fmaf(w, g - mm, mm) : fmaf(w - 1.0f, g - mm, g);
    float vv = *v * s.beta2;
    vv = fmaf(s.one_minus_beta2 * g, g, vv);
    float denom = sqrtf(vv) / s.bias_correction2_sqrt + s.eps;
    float pp = *p * s.decay;   /* exact when 1 */
    *p = pp + s.neg_step_size * mm / denom;
    *m = mm;
    *v = vv;
}

#endif
