/* The standard normal distribution for quant code on CPU and GPU: density,
 * cumulative distribution and its inverse. Shared by Black-Scholes, the
 * Kemna-Vorst geometric Asian and parametric VaR.
 *
 * The CDF uses erfc() so that the far tails keep full relative precision
 * (1 - 0.5 erfc(x) would lose it). The inverse is written by hand because
 * C's libm has none: Acklam's rational approximation (relative error
 * < 1.15e-9) polished by one Halley step on erfc, which brings it to
 * double precision. */
#ifndef FC_KERNELS_QUANT_NORMAL_H
#define FC_KERNELS_QUANT_NORMAL_H

#include <math.h>
#include "core/hd.h"

#define FC_INV_SQRT_2PI 0.39894228040143267793994605993438
#define FC_SQRT1_2 0.70710678118654752440084436210485

FC_HD double fc_norm_pdf(double x) { return FC_INV_SQRT_2PI * exp(-0.5 * x * x); }

FC_HD double fc_norm_cdf(double x) { return 0.5 * erfc(-x * FC_SQRT1_2); }

/* Acklam's starting point for the inverse CDF on (0, 1). */
FC_HD double fc_norm_inv_acklam(double p) {
    const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                         1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                         6.680131188771972e+01, -1.328068155288572e+01};
    const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                         -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                         3.754408661907416e+00};
    const double lo = 0.02425;
    if (p < lo) {
        double q = sqrt(-2.0 * log(p));
        return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    if (p > 1.0 - lo) {
        double q = sqrt(-2.0 * log(1.0 - p));
        return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
               ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
    }
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
}

/* Inverse standard normal CDF; p must lie in (0, 1). */
FC_HD double fc_norm_inv(double p) {
    double x = fc_norm_inv_acklam(p);
    /* One Halley step: e = Phi(x) - p, u = e / phi(x). */
    double e = fc_norm_cdf(x) - p;
    double u = e / fc_norm_pdf(x);
    return x - u / (1.0 + 0.5 * x * u);
}

#endif
