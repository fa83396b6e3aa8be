/* neuralforecast's DistributionLoss('Poisson') per point, in FC_HD bodies
 * the CPU and CUDA backends share: the network's one raw output r becomes
 * poisson_scale_decouple's rate = softplus(r * scale + shift) + 1e-10
 * (the scaler's shift and scale applied before the softplus, unlike
 * Normal's), and the loss is torch.distributions.Poisson(rate).log_prob(y)
 * negated, y >= 0 on the original scale (neuralforecast lets y be any
 * non-negative number: get_distribution sets the support to nonnegative).
 * Float, as torch; the gradient is w.r.t. r. */
#ifndef FC_KERNELS_DISTRIBUTION_POISSON_H
#define FC_KERNELS_DISTRIBUTION_POISSON_H

#include <math.h>
#include "core/hd.h"
#include "kernels/distribution_normal.h"

#define FC_POISSON_RATE_EPS 1e-10f   /* poisson_scale_decouple's eps */

/* -(xlogy(y, rate) - rate - lgamma(y + 1)); *grad = d / d r. */
FC_HD float fc_poisson_nll(float r, float shift, float scale, float y, float *grad) {
    float drate, rate = fc_softplus(r * scale + shift, &drate) + FC_POISSON_RATE_EPS;
    *grad = (1.0f - y / rate) * drate * scale;
    float xlogy = y == 0.0f ? 0.0f : y * logf(rate);
    return rate - xlogy + lgammaf(y + 1.0f);
}

#endif
