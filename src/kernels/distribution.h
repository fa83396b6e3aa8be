/* neuralforecast's DistributionLoss as one loss over a point's raw outputs:
 * which distributions fcast has, how many outputs each takes per point
 * (its outputsize_multiplier), and the per-point negative log-likelihood
 * and gradient of each (kernels/distribution_<name>.h), dispatched by the
 * loss kind. FC_HD, so the CPU and CUDA backends' masked losses share it. */
#ifndef FC_KERNELS_DISTRIBUTION_H
#define FC_KERNELS_DISTRIBUTION_H

#include "core/hd.h"
#include "kernels/distribution_nbinomial.h"
#include "kernels/distribution_normal.h"
#include "kernels/distribution_poisson.h"
#include "kernels/distribution_studentt.h"

/* The most raw outputs a distribution takes per point (StudentT's 3). */
#define FC_DISTRIBUTION_MAX_PARAMS 3

/* The distributions, in the order of their loss kinds (kernels/loss.h's
 * FC_LOSS_NORMAL ...): the loss kind minus FC_LOSS_NORMAL. */
enum { FC_DIST_NORMAL = 0, FC_DIST_STUDENTT, FC_DIST_POISSON, FC_DIST_NBINOMIAL, FC_DIST_KINDS };

/* Raw outputs per point: Normal (loc, scale) 2, StudentT (df, loc, scale)
 * 3, Poisson (rate) 1, NegativeBinomial (total_count, probs) 2. */
FC_HD int fc_distribution_params(int dist) {
    switch (dist) {
    case FC_DIST_STUDENTT: return 3;
    case FC_DIST_POISSON: return 1;
    default: return 2;
    }
}

/* -log_prob(y) of the point's distribution from its raw outputs `raw`
 * with the window scaler's shift and scale, and into grad (the same count)
 * its derivatives w.r.t. the raw outputs. */
FC_HD float fc_distribution_nll(int dist, const float *raw, float shift, float scale, float y, float *grad) {
    switch (dist) {
    case FC_DIST_NORMAL: return fc_normal_nll(raw[0], raw[1], shift, scale, y, &grad[0], &grad[1]);
    case FC_DIST_STUDENTT: return fc_studentt_nll(raw, shift, scale, y, grad);
    case FC_DIST_POISSON: return fc_poisson_nll(raw[0], shift, scale, y, &grad[0]);
    default: return fc_nbinomial_nll(raw, shift, scale, y, grad);
    }
}

/* The mean of the point's distribution (torch's .mean): Normal's and
 * StudentT's loc (df >= 3), Poisson's rate, NegativeBinomial's
 * total_count exp(logits), each decoupled as the likelihood decouples it. */
FC_HD float fc_distribution_mean(int dist, const float *raw, float shift, float scale) {
    float d;
    switch (dist) {
    case FC_DIST_NORMAL:
    case FC_DIST_STUDENTT: return (dist == FC_DIST_NORMAL ? raw[0] : raw[1]) * scale + shift;
    case FC_DIST_POISSON: return fc_softplus(raw[0] * scale + shift, &d) + FC_POISSON_RATE_EPS;
    default: {
        float mu = (fc_softplus(raw[0], &d) + FC_NBINOMIAL_EPS) * scale + shift;
        float alpha = (fc_softplus(raw[1], &d) + FC_NBINOMIAL_EPS) / (scale + 1.0f);
        float ma = mu * alpha, p = ma / (1.0f + ma) + FC_NBINOMIAL_EPS;
        float pc = fminf(fmaxf(p, FLT_EPSILON), 1.0f - FLT_EPSILON);
        return (1.0f / alpha) * expf(logf(pc) - log1pf(-pc));
    }
    }
}

#endif
