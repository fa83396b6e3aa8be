/* Body of the backend's gelu_forward and gelu_backward: exact GELU
 * (torch.nn.GELU(), approximate='none'), per element, in double from the
 * float input and rounded to float once:
 *
 *   y  = (float)(x * Phi(x))
 *   dx = (float)(dy * (Phi(x) + x * phi(x)))
 *
 * with Phi and phi kernels/quant_normal.h's fc_norm_cdf (0.5 erfc(-x /
 * sqrt 2)) and fc_norm_pdf (exp(-x^2 / 2) / sqrt(2 pi)) in double.
 *
 * Why erfc and double: torch's float formula x 0.5 (1 + erf(x / sqrt 2))
 * cancels for negative x (1 + erf is a difference of numbers near 1: 3e-4
 * off at x = -4, 4% at -5, and 0 below about -5.55, so torch's float GELU
 * is -0 there while x Phi(x) is still a normal float down to x = -13.1);
 * erfc keeps Phi's full relative precision in the tail. In double
 * Phi and phi are within a few ulp of the truth (2^-50 relative), far
 * below the one rounding to float at the end, so each result is the float
 * nearest the exact value unless that value lies within ~2^-50 of a
 * rounding midpoint. The backward's sum Phi + x phi cancels near its zero
 * (x = -0.7518), in double, so its error there is 2^-50 of |Phi| + |x phi|
 * before the rounding to float.
 *
 * Special values, as torch's: gelu(+inf) = +inf, gelu(-inf) = -inf * 0 =
 * NaN, NaN in gives NaN out; the backward at +-inf is NaN (inf * 0).
 *
 * Devices: erfc and exp are libm's on the CPU and CUDA's on the GPU, not
 * the same functions (each within a few ulp of double), so the two agree
 * to the float bit except where the exact value lies within those few ulp
 * of double of a float rounding midpoint: not guaranteed bit for bit, but
 * each device within one rounding (2^-24 relative) of the exact value.
 * Per element, so any thread count gives the same bits. */
#ifndef FC_KERNELS_GELU_H
#define FC_KERNELS_GELU_H

#include "core/hd.h"
#include "kernels/quant_normal.h"

FC_HD float fc_gelu_point(float x) {
    double xd = (double)x;
    return (float)(xd * fc_norm_cdf(xd));
}

/* d gelu / d x at the forward's input x, times dy. */
FC_HD float fc_gelu_backward_point(float dy, float x) {
    double xd = (double)x;
    return (float)((double)dy * (fc_norm_cdf(xd) + xd * fc_norm_pdf(xd)));
}

#endif
