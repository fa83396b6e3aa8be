/* neuralforecast's DistributionLoss('StudentT') per point, in FC_HD bodies
 * the CPU and CUDA backends share: the network's three raw outputs
 * (r0, r1, r2) of a point, split in that order by its _domain_map, become
 * student_scale_decouple's
 *     df = 3 + softplus(r0),  loc = r1 * scale + shift,
 *     tscale = (softplus(r2) + 0.1) * scale
 * (shift, scale: the window scaler's), and the loss is
 * torch.distributions.StudentT(df, loc, tscale).log_prob(y) negated, y on
 * the original scale. Float, as torch; gradients w.r.t. r0, r1, r2 are the
 * derivatives of torch's expression (digamma for df). */
#ifndef FC_KERNELS_DISTRIBUTION_STUDENTT_H
#define FC_KERNELS_DISTRIBUTION_STUDENTT_H

#include <math.h>
#include "core/hd.h"
#include "kernels/distribution_normal.h"

#define FC_STUDENTT_SCALE_EPS 0.1f   /* student_scale_decouple's eps */
#define FC_STUDENTT_MIN_DF 3.0f      /* df = 3 + softplus: finite variance */

/* digamma(x) for x > 0, in double: the recurrence up to x >= 10, then
 * the asymptotic series to x^-10 (its error there ~2e-14). C's libm has
 * none. */
FC_HD double fc_digamma(double x) {
    double r = 0.0;
    while (x < 10.0) { r -= 1.0 / x; x += 1.0; }
    double f = 1.0 / (x * x);
    return r + log(x) - 0.5 / x - f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

/* -StudentT(df, loc, tscale).log_prob(y) as torch writes it:
 * 0.5 (df + 1) log1p(z^2 / df) + log tscale + 0.5 log df + 0.5 log pi
 * + lgamma(df / 2) - lgamma((df + 1) / 2), z = (y - loc) / tscale;
 * grad[k] = d / d r_k. */
FC_HD float fc_studentt_nll(const float raw[3], float shift, float scale, float y, float grad[3]) {
    float ddf, dts;
    float df = FC_STUDENTT_MIN_DF + fc_softplus(raw[0], &ddf);
    float loc = raw[1] * scale + shift;
    float ts = (fc_softplus(raw[2], &dts) + FC_STUDENTT_SCALE_EPS) * scale;
    float z = (y - loc) / ts, z2 = z * z, u = z2 / df;
    float w = (df + 1.0f) / (df + z2);                       /* d/dz of the log1p term, over z */
    grad[1] = -w * z / ts * scale;                           /* dz/dloc = -1 / ts */
    grad[2] = (1.0f / ts - w * z2 / ts) * dts * scale;       /* dz/dts = -z / ts */
    double g_df = 0.5 * log1p((double)u) - 0.5 * (double)(df + 1.0f) * (double)u / ((double)df * (1.0 + (double)u)) +
                  0.5 / (double)df + 0.5 * (fc_digamma(0.5 * (double)df) - fc_digamma(0.5 * ((double)df + 1.0)));
    grad[0] = (float)g_df * ddf;
    const float half_log_pi = 0.57236494292470008707f;
    float Z = logf(ts) + 0.5f * logf(df) + half_log_pi + lgammaf(0.5f * df) - lgammaf(0.5f * (df + 1.0f));
    return 0.5f * (df + 1.0f) * log1pf(u) + Z;
}

#endif
