/* neuralforecast's DistributionLoss('Normal') per point, in FC_HD bodies the
 * CPU and CUDA backends share: the network's two raw outputs (a, b) of a
 * point become the Normal's parameters as its _domain_map (a split of the
 * last dimension) and normal_scale_decouple do it,
 *     mean = a * scale + loc,   std = (softplus(b) + 0.2) * scale,
 * with loc, scale the window scaler's shift and scale (_get_loc_scale; 0 and
 * 1 for the identity scaler, the 0.2 is added all the same), and the loss
 * is torch.distributions.Normal(mean, std).log_prob(y) negated, y on the
 * original scale (training_step passes the unscaled outsample_y). Float,
 * as torch on float tensors; gradients are autograd's w.r.t. a and b.
 *
 * Forecasts: neuralforecast samples num_samples draws and takes
 * torch.quantile of them; fcast gives the exact quantile
 * mean + std * Phi^-1(q), which the sampled quantiles converge to (their
 * spread at 1000 draws is about sqrt(q (1 - q) / 1000) / phi(z_q) std). */
#ifndef FC_KERNELS_DISTRIBUTION_NORMAL_H
#define FC_KERNELS_DISTRIBUTION_NORMAL_H

#include <math.h>
#include "core/hd.h"
#include "kernels/quant_normal.h"

/* normal_scale_decouple's eps: the least std, in units of the scale. */
#define FC_NORMAL_STD_EPS 0.2f

/* F.softplus(x) with torch's defaults (beta 1, threshold 20: x itself
 * above 20) and its derivative, sigmoid(x) (1 above the threshold). */
FC_HD float fc_softplus(float x, float *dx) {
    if (x > 20.0f) { *dx = 1.0f; return x; }
    *dx = 1.0f / (1.0f + expf(-x));
    return log1pf(expf(x));
}

/* The Normal's parameters of raw outputs a, b. *dstd_db: d std / d b. */
FC_HD void fc_normal_params(float a, float b, float loc, float scale, float *mean, float *std, float *dstd_db) {
    float ds, sp = fc_softplus(b, &ds);
    *mean = a * scale + loc;
    *std = (sp + FC_NORMAL_STD_EPS) * scale;
    *dstd_db = ds * scale;
}

/* -Normal(mean, std).log_prob(y) as torch writes it,
 * (y - mean)^2 / (2 std^2) + log(std) + log(sqrt(2 pi)), and its gradient
 * w.r.t. the raw outputs: *ga = d / d a, *gb = d / d b. */
FC_HD float fc_normal_nll(float a, float b, float loc, float scale, float y, float *ga, float *gb) {
    float mean, std, dstd_db;
    fc_normal_params(a, b, loc, scale, &mean, &std, &dstd_db);
    float r = y - mean, var = std * std;
    *ga = -(r / var) * scale;                               /* d/dmean = -(y - mean) / var */
    *gb = (1.0f / std - (r * r) / (var * std)) * dstd_db;   /* d/dstd = 1/std - (y - mean)^2 / std^3 */
    const float log_sqrt_2pi = 0.91893853320467274178f;
    return (r * r) / (2.0f * var) + logf(std) + log_sqrt_2pi;
}

/* The q-quantile of the point's Normal: mean + std * Phi^-1(q). */
FC_HD float fc_normal_quantile(float a, float b, float loc, float scale, float q) {
    float mean, std, dstd_db;
    fc_normal_params(a, b, loc, scale, &mean, &std, &dstd_db);
    return (float)((double)mean + (double)std * fc_norm_inv((double)q));
}

#endif
