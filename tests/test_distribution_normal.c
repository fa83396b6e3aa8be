/* DistributionLoss('Normal')'s per-point kernels (kernels/distribution_normal.h):
 * the negative log-likelihood and its gradient against neuralforecast's
 * domain_map / scale_decouple / torch.distributions.Normal (autograd) in
 * tests/fixtures/losses.safetensors (python/make_loss_fixtures.py), the
 * gradient against central differences, and the exact quantiles against
 * Normal.icdf and against the quantiles neuralforecast samples (1000 draws),
 * within their sampling spread. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "io/safetensors.h"
#include "kernels/distribution_normal.h"

#define FIXTURE "tests/fixtures/losses.safetensors"
#define B 5
#define H 7
#define NQ 5

static const float QUANTILES[NQ] = {0.05f, 0.1f, 0.5f, 0.9f, 0.95f};

static const float *tensor(const fc_safetensors *f, const char *key, int ndim, const int64_t *shape) {
    const float *data = NULL;
    CHECK_MSG(fc_st_get_f32(f, key, ndim, shape, &data) == FC_OK, "%s", fc_last_error());
    return data;
}

typedef struct {
    const float *raw, *loc, *scale, *y;
} normal_inputs;

/* The NLL and its gradient against torch's, point by point. */
static void test_nll(const fc_safetensors *f, const normal_inputs *in) {
    int64_t bh[2] = {B, H}, bh2[3] = {B, H, 2};
    const float *nll = tensor(f, "normal.nll", 2, bh), *grad = tensor(f, "normal.grad", 3, bh2);
    if (!nll || !grad) return;
    double worst_l = 0, worst_g = 0;
    for (int i = 0; i < B * H; i++) {
        float ga, gb, l = fc_normal_nll(in->raw[2 * i], in->raw[2 * i + 1], in->loc[i / H], in->scale[i / H], in->y[i],
                                        &ga, &gb);
        double el = fabs(l - nll[i]) / (1e-6 + fabs(nll[i]));
        double eg = fmax(fabs(ga - grad[2 * i]), fabs(gb - grad[2 * i + 1])) / (1e-6 + fabs(grad[2 * i]) +
                                                                               fabs(grad[2 * i + 1]));
        worst_l = fmax(worst_l, el), worst_g = fmax(worst_g, eg);
        CHECK_MSG(el < 1e-5, "point %d: nll %.9g, torch %.9g", i, (double)l, (double)nll[i]);
        CHECK_MSG(eg < 1e-5, "point %d: gradient (%.9g, %.9g), torch (%.9g, %.9g)", i, (double)ga, (double)gb,
                  (double)grad[2 * i], (double)grad[2 * i + 1]);
    }
    printf("normal nll vs torch: worst relative error %.1e, gradient %.1e\n", worst_l, worst_g);
}

/* Central differences of the float kernel, step 1e-2: the NLL is smooth,
 * the quotient good to ~1e-4 relative (~5e-5 absolute where softplus is
 * nearly flat, b = -8); a wrong sign or factor is off by far more. */
static void test_finite_differences(const normal_inputs *in) {
    double worst = 0;
    for (int i = 0; i < B * H; i++) {
        float a = in->raw[2 * i], b = in->raw[2 * i + 1], loc = in->loc[i / H], sc = in->scale[i / H], y = in->y[i];
        float g[2], u, v;
        fc_normal_nll(a, b, loc, sc, y, &g[0], &g[1]);
        for (int k = 0; k < 2; k++) {
            float h = 1e-2f, p = k ? b : a;
            double up = k ? fc_normal_nll(a, p + h, loc, sc, y, &u, &v) : fc_normal_nll(p + h, b, loc, sc, y, &u, &v);
            double dn = k ? fc_normal_nll(a, p - h, loc, sc, y, &u, &v) : fc_normal_nll(p - h, b, loc, sc, y, &u, &v);
            double fd = (up - dn) / (double)((p + h) - (p - h));
            double err = fabs(fd - g[k]) / (5e-2 + fabs(fd));   /* absolute below 0.05: the std floor's tiny slope */
            worst = fmax(worst, err);
            CHECK_MSG(err < 2e-3, "point %d, output %d: gradient %.9g, central difference %.9g", i, k, (double)g[k],
                      fd);
        }
    }
    printf("normal nll finite differences: worst relative error %.1e\n", worst);
}

/* Exact quantiles: to Normal.icdf within float rounding; to the 1000-draw
 * sampled quantiles within 5 of their standard errors,
 * sqrt(q (1 - q) / n) / phi(z_q) std. */
static void test_quantiles(const fc_safetensors *f, const normal_inputs *in) {
    int64_t bhq[3] = {B, H, NQ};
    const float *icdf = tensor(f, "normal.icdf", 3, bhq), *sampled = tensor(f, "normal.sampled", 3, bhq);
    if (!icdf || !sampled) return;
    double worst_icdf = 0, worst_z = 0;
    for (int i = 0; i < B * H; i++) {
        float mean, std, d;
        fc_normal_params(in->raw[2 * i], in->raw[2 * i + 1], in->loc[i / H], in->scale[i / H], &mean, &std, &d);
        for (int j = 0; j < NQ; j++) {
            double q = QUANTILES[j], z = fc_norm_inv(q);
            float x = fc_normal_quantile(in->raw[2 * i], in->raw[2 * i + 1], in->loc[i / H], in->scale[i / H],
                                         QUANTILES[j]);
            double e = fabs(x - icdf[i * NQ + j]) / (fabs(mean) + std);
            double se = sqrt(q * (1 - q) / 1000.0) / fc_norm_pdf(z) * std;
            double zs = fabs(x - sampled[i * NQ + j]) / se;
            worst_icdf = fmax(worst_icdf, e), worst_z = fmax(worst_z, zs);
            CHECK_MSG(e < 1e-6, "point %d, q %g: %.9g, Normal.icdf %.9g", i, q, (double)x, (double)icdf[i * NQ + j]);
            CHECK_MSG(zs < 5.0, "point %d, q %g: %.9g, sampled %.9g (%.1f standard errors)", i, q, (double)x,
                      (double)sampled[i * NQ + j], zs);
        }
    }
    printf("normal quantiles: vs icdf %.1e relative, vs 1000 samples at most %.2f standard errors\n", worst_icdf,
           worst_z);
}

int main(void) {
    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(FIXTURE, &f) == FC_OK, "%s", fc_last_error());
    if (!f) return CHECK_DONE();
    int64_t bh2[3] = {B, H, 2}, b1[1] = {B}, bh[2] = {B, H};
    normal_inputs in = {tensor(f, "normal.raw", 3, bh2), tensor(f, "normal.loc", 1, b1),
                        tensor(f, "normal.scale", 1, b1), tensor(f, "normal.y", 2, bh)};
    const char *qs = fc_st_meta(f, "normal_quantiles");
    CHECK_MSG(qs && !strcmp(qs, "[0.05, 0.1, 0.5, 0.9, 0.95]"), "normal_quantiles %s", qs ? qs : "(none)");
    if (in.raw && in.loc && in.scale && in.y) {
        test_nll(f, &in);
        test_finite_differences(&in);
        test_quantiles(f, &in);
    }
    fc_st_free(&f);
    return CHECK_DONE();
}
