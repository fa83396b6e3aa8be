/* neuralforecast's IQLoss head (implicit quantiles, Gouttes et al. 2021),
 * per point in FC_HD bodies the CPU and CUDA backends share. The network's
 * output yhat of a point and the point's quantile tau become, as
 * IQLoss.domain_map with its QuantileLayer computes them in float,
 *     c_k = cos((tau k) pi),  k = 0 .. D-1        (cos_embedding_dim D)
 *     z = W1 c + b1 (D),  a = PReLU(z; alpha1)    (quantile_layer.output_layer.0, .1)
 *     e = w2 . a + b2                              (quantile_layer.output_layer.2)
 *     x = yhat (1 + e),  u = w3 x + b3,  out = PReLU(u; alpha2)   (output_layer.0, .1)
 * with torch's PReLU: v > 0 ? v : alpha v. The parameters lie in one block
 * in that order (fc_iq_param_offsets). The forward keeps each point's
 * embedding c (n, D) for the backward, which runs twice: per point
 * (the gradients of yhat, and what the parameters' sums need), then per
 * parameter (its sum over the points in point order, in double): no
 * atomics, so both backends give the same bits for any thread count. */
#ifndef FC_KERNELS_IQ_HEAD_H
#define FC_KERNELS_IQ_HEAD_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"
#include "kernels/distribution_sample.h"

/* IQLoss's defaults: cos_embedding_dim, and the Beta's concentrations. */
#define FC_IQ_EMBEDDING_DIM 64
#define FC_IQ_MAX_DIM 1024

/* Offsets of the head's parameters in its block, and its size. */
typedef struct {
    size_t w1, b1, a1, w2, b2, w3, b3, a2, total;
} fc_iq_layout;

FC_HD fc_iq_layout fc_iq_param_offsets(size_t D) {
    fc_iq_layout l;
    l.w1 = 0;
    l.b1 = D * D;
    l.a1 = l.b1 + D;
    l.w2 = l.a1 + 1;
    l.b2 = l.w2 + D;
    l.w3 = l.b2 + 1;
    l.b3 = l.w3 + 1;
    l.a2 = l.b3 + 1;
    l.total = l.a2 + 1;
    return l;
}

/* One call over n points: the parameters (the layout's block), each
 * point's tau and yhat, and the buffers the backward reads: cosines
 * cs (n, D), z (n, D) and s (n, 3) = (e, x, u). Backward: dout (n) in; dyhat (n) out; gz (n, D)
 * and gs (n, 2) = (d e, d u) per point; dparams (the block) += the sums. */
typedef struct {
    const float *params, *tau, *yhat;
    float *out, *cs, *z, *s;
    const float *dout;
    float *dyhat, *gz, *gs, *dparams;
    size_t n, D;
} fc_iq_call;

FC_HD float fc_iq_prelu(float v, float alpha) { return v > 0.0f ? v : alpha * v; }

/* torch.cos(tau * integers * torch.pi): the product in float, then cos. */
FC_HD float fc_iq_cos(float tau, size_t k) { return cosf(tau * (float)k * 3.14159265358979323846f); }

/* Point i forward. */
FC_HD void fc_iq_forward_point(const fc_iq_call *c, size_t i) {
    size_t D = c->D;
    fc_iq_layout l = fc_iq_param_offsets(D);
    const float *p = c->params;
    float tau = c->tau[i], e = p[l.b2], *z = c->z + i * D, *cs = c->cs + i * D;
    for (size_t k = 0; k < D; k++) cs[k] = fc_iq_cos(tau, k);
    for (size_t j = 0; j < D; j++) {
        float acc = 0.0f;
        for (size_t k = 0; k < D; k++) acc += p[l.w1 + j * D + k] * cs[k];
        z[j] = acc + p[l.b1 + j];
        e += p[l.w2 + j] * fc_iq_prelu(z[j], p[l.a1]);
    }
    float x = c->yhat[i] * (1.0f + e), u = p[l.w3] * x + p[l.b3];
    c->s[3 * i] = e;
    c->s[3 * i + 1] = x;
    c->s[3 * i + 2] = u;
    c->out[i] = fc_iq_prelu(u, p[l.a2]);
}

/* Point i backward: d yhat, and the point's d e, d u and d z. */
FC_HD void fc_iq_backward_point(const fc_iq_call *c, size_t i) {
    size_t D = c->D;
    fc_iq_layout l = fc_iq_param_offsets(D);
    const float *p = c->params, *z = c->z + i * D;
    float e = c->s[3 * i], u = c->s[3 * i + 2], g = c->dout[i];
    float gu = u > 0.0f ? g : p[l.a2] * g;
    float gx = gu * p[l.w3], ge = gx * c->yhat[i];
    c->dyhat[i] = gx * (1.0f + e);
    c->gs[2 * i] = ge;
    c->gs[2 * i + 1] = gu;
    for (size_t j = 0; j < D; j++) {
        float ga = ge * p[l.w2 + j];
        c->gz[i * D + j] = z[j] > 0.0f ? ga : p[l.a1] * ga;
    }
}

/* Row j of W1's gradient, gz_j c_k summed over the points in point order
 * for every k at once (the points' rows read in turn), added to dparams.
 * acc: D doubles of scratch. */
FC_HD void fc_iq_backward_w1_row(const fc_iq_call *c, size_t j, double *acc) {
    size_t D = c->D;
    for (size_t k = 0; k < D; k++) acc[k] = 0.0;
    for (size_t i = 0; i < c->n; i++) {
        float g = c->gz[i * D + j];
        const float *cs = c->cs + i * D;
        for (size_t k = 0; k < D; k++) acc[k] += (double)(g * cs[k]);
    }
    for (size_t k = 0; k < D; k++) c->dparams[j * D + k] += (float)acc[k];
}

/* Parameter q's gradient (q past W1: fc_iq_backward_w1_row has those): its
 * sum over the points, in point order, added to dparams[q]. */
FC_HD void fc_iq_backward_param(const fc_iq_call *c, size_t q) {
    size_t D = c->D, n = c->n;
    fc_iq_layout l = fc_iq_param_offsets(D);
    const float *p = c->params;
    double sum = 0.0;
    if (q < l.a1) {                 /* b1[j] */
        for (size_t i = 0; i < n; i++) sum += (double)c->gz[i * D + (q - l.b1)];
    } else if (q == l.a1) {         /* alpha1: ga_j z_j where z_j <= 0 */
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < D; j++) {
                float zj = c->z[i * D + j];
                if (!(zj > 0.0f)) sum += (double)(c->gs[2 * i] * p[l.w2 + j] * zj);
            }
    } else if (q < l.b2) {          /* w2[j]: ge a_j */
        size_t j = q - l.w2;
        for (size_t i = 0; i < n; i++) sum += (double)(c->gs[2 * i] * fc_iq_prelu(c->z[i * D + j], p[l.a1]));
    } else if (q == l.b2) {
        for (size_t i = 0; i < n; i++) sum += (double)c->gs[2 * i];
    } else if (q == l.w3) {         /* gu x */
        for (size_t i = 0; i < n; i++) sum += (double)(c->gs[2 * i + 1] * c->s[3 * i + 1]);
    } else if (q == l.b3) {
        for (size_t i = 0; i < n; i++) sum += (double)c->gs[2 * i + 1];
    } else {                        /* alpha2: g u where u <= 0 */
        for (size_t i = 0; i < n; i++) {
            float u = c->s[3 * i + 2];
            if (!(u > 0.0f)) sum += (double)(c->dout[i] * u);
        }
    }
    c->dparams[q] += (float)sum;
}

/* Point i's training quantile: a draw of Beta(concentration1,
 * concentration0) (torch's Beta, X / (X + Y) of gammas), keyed by the
 * step's seed and the point, so a replayed step draws the same. */
FC_HD float fc_iq_draw_tau(uint64_t seed, size_t i, float concentration0, float concentration1) {
    fc_draw_rng r = fc_draw_rng_at(seed, (uint32_t)i, (uint32_t)((uint64_t)i >> 32), 0x54415553u, 0u);
    double x = fc_draw_gamma(&r, (double)concentration1), y = fc_draw_gamma(&r, (double)concentration0);
    return (float)(x / (x + y));
}

#endif
