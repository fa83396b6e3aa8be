/* neuralforecast's DistributionLoss('NegativeBinomial') per point, in
 * FC_HD bodies the CPU and CUDA backends share: the network's two raw
 * outputs (r0, r1) become nbinomial_scale_decouple's
 *     mu = (softplus(r0) + 1e-8) * scale + shift,
 *     alpha = (softplus(r1) + 1e-8) / (scale + 1),
 *     total_count = 1 / alpha,  probs = mu alpha / (1 + mu alpha) + 1e-8,
 * and the loss is torch.distributions.NegativeBinomial(total_count,
 * probs).log_prob(y) negated: with logits = log p - log1p(-p) of p clamped
 * to [eps, 1 - eps] (probs_to_logits), -(n logsigmoid(-l) + y logsigmoid(l))
 * - lgamma(n + y) + lgamma(1 + y) + lgamma(n). The parameters in float, as
 * torch; the log-probability in double: in float, lgamma(n + y) -
 * lgamma(n) cancels most digits at a large total_count n (torch's float
 * value is off by ~1e-4 there). Gradients w.r.t. r0, r1 (0 through a
 * clamped probability, as clamp's backward). */
#ifndef FC_KERNELS_DISTRIBUTION_NBINOMIAL_H
#define FC_KERNELS_DISTRIBUTION_NBINOMIAL_H

#include <float.h>
#include <math.h>
#include "core/hd.h"
#include "kernels/distribution_normal.h"
#include "kernels/distribution_studentt.h"

#define FC_NBINOMIAL_EPS 1e-8f   /* nbinomial_scale_decouple's floors and probs offset */

/* F.logsigmoid(x) in torch's stable form, min(x, 0) - log1p(exp(-|x|)). */
FC_HD double fc_logsigmoid(double x) { return fmin(x, 0.0) - log1p(exp(-fabs(x))); }

/* -NegativeBinomial log_prob of y; grad[k] = d / d r_k. */
FC_HD float fc_nbinomial_nll(const float raw[2], float shift, float scale, float y, float grad[2]) {
    float dsm, dsa;
    float mu = (fc_softplus(raw[0], &dsm) + FC_NBINOMIAL_EPS) * scale + shift;
    float alpha = (fc_softplus(raw[1], &dsa) + FC_NBINOMIAL_EPS) / (scale + 1.0f);
    float n = 1.0f / alpha, ma = mu * alpha;
    float p = ma / (1.0f + ma) + FC_NBINOMIAL_EPS;
    int clamped = p < FLT_EPSILON || p > 1.0f - FLT_EPSILON;
    float pc = fminf(fmaxf(p, FLT_EPSILON), 1.0f - FLT_EPSILON);
    float l = logf(pc) - log1pf(-pc);
    /* d nll / d l and d nll / d n, in double (digamma) */
    double sig = 1.0 / (1.0 + exp(-(double)l));
    double g_l = (double)n * sig - (double)y * (1.0 - sig);
    double g_n = -fc_logsigmoid(-(double)l) - fc_digamma((double)n + (double)y) + fc_digamma((double)n);
    double dl_dp = clamped ? 0.0 : 1.0 / ((double)pc * (1.0 - (double)pc));
    double q = 1.0 + (double)ma, dp = dl_dp * g_l / (q * q);      /* d p / d(mu alpha) = 1 / (1 + mu alpha)^2 */
    double g_mu = dp * (double)alpha, g_alpha = dp * (double)mu - g_n / ((double)alpha * (double)alpha);
    grad[0] = (float)(g_mu * (double)dsm * (double)scale);
    grad[1] = (float)(g_alpha * (double)dsa / ((double)scale + 1.0));
    double nd = n, yd = y;
    double unnormalized = nd * fc_logsigmoid(-(double)l) + yd * fc_logsigmoid((double)l);
    double normalization = -lgamma(nd + yd) + lgamma(1.0 + yd) + lgamma(nd);
    return (float)(normalization - unnormalized);
}

#endif
