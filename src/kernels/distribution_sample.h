/* Draws from a point's DistributionLoss distribution, as torch's sample()
 * draws them for neuralforecast's predict (which takes the mean and
 * torch.quantile of num_samples draws): the same distributions, from
 * fcast's counter-based Philox stream instead of torch's generator, so a
 * forecast's draws are a function of (seed, point, draw) alone, on any
 * thread count. Written by hand because no C library draws from a
 * counter-based stream:
 *   - normal: Box-Muller (core/rng.h);
 *   - gamma: Marsaglia and Tsang (2000), with Gamma(a) = Gamma(a + 1)
 *     U^(1/a) below a = 1;
 *   - Poisson: multiplication of uniforms below a rate of 10, else
 *     Hoermann's PTRS (1993), as numpy's generator;
 *   - StudentT: loc + scale Z / sqrt(Chi2(df) / df), Chi2(df) =
 *     2 Gamma(df / 2), as torch's StudentT.rsample;
 *   - NegativeBinomial: Poisson(Gamma(total_count, rate exp(-logits))),
 *     as torch's NegativeBinomial.sample.
 * Each draw is computed in double and rounded to float (torch's float
 * tensors). FC_HD, so a CUDA kernel can draw the same numbers. */
#ifndef FC_KERNELS_DISTRIBUTION_SAMPLE_H
#define FC_KERNELS_DISTRIBUTION_SAMPLE_H

#include <float.h>
#include <math.h>
#include <stdint.h>
#include "core/hd.h"
#include "core/rng.h"
#include "kernels/distribution.h"

/* A draw's own random stream: Philox blocks at counter (a, b, c,
 * draw << 15 | block) under the seed's key (mixed with "SAMP", apart from
 * the other streams of core/rng.h), two uniforms per block. A forecast's
 * draw k of point t of a window is (window key, t, k), the window key a
 * hash of the model's input (train/distribution_forecast.h): the same
 * numbers however the windows are chunked, split, batched or served. */
#define FC_DRAW_BLOCK_BITS 15

typedef struct {
    uint32_t c[3], draw, block, k0, k1;
    double spare;
    int have_spare;
} fc_draw_rng;

/* Where a point's draws come from: the seed, its window's key and its step. */
typedef struct {
    uint64_t seed, window;
    uint32_t point;
} fc_draw_rng_key;

FC_HD fc_draw_rng fc_draw_rng_at(uint64_t seed, uint32_t a, uint32_t b, uint32_t c, uint32_t draw) {
    fc_draw_rng r = {{a, b, c}, draw << FC_DRAW_BLOCK_BITS, 0u, (uint32_t)seed ^ 0x53414D50u, (uint32_t)(seed >> 32),
                     0.0, 0};
    return r;
}

/* A uniform double in (0, 1). */
FC_HD double fc_draw_uniform(fc_draw_rng *r) {
    if (r->have_spare) { r->have_spare = 0; return r->spare; }
    uint32_t block = r->block++ & ((1u << FC_DRAW_BLOCK_BITS) - 1u);   /* a draw needing 2^15 blocks wraps */
    fc_philox_out b = fc_philox4x32(r->c[0], r->c[1], r->c[2], r->draw | block, r->k0, r->k1);
    r->spare = fc_u32x2_to_open_double(b.v[2], b.v[3]);
    r->have_spare = 1;
    return fc_u32x2_to_open_double(b.v[0], b.v[1]);
}

/* A standard normal (Box-Muller's cosine branch). */
FC_HD double fc_draw_normal(fc_draw_rng *r) {
    double u1 = fc_draw_uniform(r), u2 = fc_draw_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925286766559 * u2);
}

/* Gamma(shape a, rate 1), a > 0. */
FC_HD double fc_draw_gamma(fc_draw_rng *r, double a) {
    if (a < 1.0) {
        double u = fc_draw_uniform(r);
        return fc_draw_gamma(r, a + 1.0) * pow(u, 1.0 / a);
    }
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = fc_draw_normal(r), v = 1.0 + c * x;
        if (v <= 0.0) continue;
        v = v * v * v;
        double u = fc_draw_uniform(r);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) return d * v;
    }
}

/* Poisson(lam), lam >= 0; a rate too large for a double count is its own mean. */
FC_HD double fc_draw_poisson(fc_draw_rng *r, double lam) {
    if (!(lam > 0.0)) return 0.0;
    if (lam > 1e15) return floor(lam);
    if (lam < 10.0) {
        double limit = exp(-lam), prod = fc_draw_uniform(r), k = 0.0;
        while (prod > limit) { prod *= fc_draw_uniform(r); k += 1.0; }
        return k;
    }
    double slam = sqrt(lam), loglam = log(lam);
    double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        double U = fc_draw_uniform(r) - 0.5, V = fc_draw_uniform(r), us = 0.5 - fabs(U);
        double k = floor((2.0 * a / us + b) * U + lam + 0.43);
        if (us >= 0.07 && V <= vr) return k;
        if (k < 0.0 || (us < 0.013 && V > us)) continue;
        if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + k * loglam - lgamma(k + 1.0)) return k;
    }
}

/* One draw of the point's distribution from its raw outputs, with the
 * decouplings of kernels/distribution_<name>.h. */
FC_HD float fc_distribution_draw(int dist, const float *raw, float shift, float scale, fc_draw_rng *r) {
    float d;
    switch (dist) {
    case FC_DIST_NORMAL: {
        float mean, std, dstd;
        fc_normal_params(raw[0], raw[1], shift, scale, &mean, &std, &dstd);
        return (float)((double)mean + (double)std * fc_draw_normal(r));
    }
    case FC_DIST_STUDENTT: {
        float df = FC_STUDENTT_MIN_DF + fc_softplus(raw[0], &d);
        float loc = raw[1] * scale + shift, ts = (fc_softplus(raw[2], &d) + FC_STUDENTT_SCALE_EPS) * scale;
        double z = fc_draw_normal(r), chi2 = 2.0 * fc_draw_gamma(r, 0.5 * (double)df);
        return (float)((double)loc + (double)ts * z / sqrt(chi2 / (double)df));
    }
    case FC_DIST_POISSON: {
        float rate = fc_softplus(raw[0] * scale + shift, &d) + FC_POISSON_RATE_EPS;
        return (float)fc_draw_poisson(r, (double)rate);
    }
    default: {
        float mu = (fc_softplus(raw[0], &d) + FC_NBINOMIAL_EPS) * scale + shift;
        float alpha = (fc_softplus(raw[1], &d) + FC_NBINOMIAL_EPS) / (scale + 1.0f);
        float n = 1.0f / alpha, ma = mu * alpha, p = ma / (1.0f + ma) + FC_NBINOMIAL_EPS;
        float pc = fminf(fmaxf(p, FLT_EPSILON), 1.0f - FLT_EPSILON);
        double odds = (double)pc / (1.0 - (double)pc);   /* exp(logits): the gamma's scale */
        return (float)fc_draw_poisson(r, fc_draw_gamma(r, (double)n) * odds);
    }
    }
}

#endif
