/* DistributionLoss('StudentT'), ('Poisson') and ('NegativeBinomial')'s
 * per-point kernels (kernels/distribution_studentt.h, distribution_poisson.h,
 * distribution_nbinomial.h): the negative log-likelihood
 * and its gradient w.r.t. the raw outputs against neuralforecast's
 * domain_map / scale_decouple and torch.distributions' log_prob and
 * autograd (tests/fixtures/losses.safetensors, python/make_loss_fixtures.py),
 * and the gradient against central differences. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "core/error.h"
#include "io/safetensors.h"
#include "kernels/distribution_nbinomial.h"
#include "kernels/distribution_poisson.h"
#include "kernels/distribution_studentt.h"

#define FIXTURE "tests/fixtures/losses.safetensors"
#define B 5
#define H 7
#define MAX_K 3

/* One distribution: its raw outputs per point and its NLL kernel. */
typedef struct {
    const char *name;   /* the fixture's prefix */
    int k;
    float (*nll)(const float *raw, float shift, float scale, float y, float *grad);
} distribution;

static float studentt(const float *raw, float shift, float scale, float y, float *grad) {
    return fc_studentt_nll(raw, shift, scale, y, grad);
}

static float poisson(const float *raw, float shift, float scale, float y, float *grad) {
    return fc_poisson_nll(raw[0], shift, scale, y, grad);
}

static float nbinomial(const float *raw, float shift, float scale, float y, float *grad) {
    return fc_nbinomial_nll(raw, shift, scale, y, grad);
}

typedef struct {
    const float *raw, *loc, *scale, *y, *nll, *grad;
} dist_case;

static const float *tensor(const fc_safetensors *f, const char *prefix, const char *part, int ndim,
                           const int64_t *shape) {
    char key[64];
    const float *data = NULL;
    snprintf(key, sizeof key, "%s.%s", prefix, part);
    CHECK_MSG(fc_st_get_f32(f, key, ndim, shape, &data) == FC_OK, "%s", fc_last_error());
    return data;
}

/* Against torch, point by point: NLL to 1e-5 relative, gradient to 1e-5
 * of the point's gradient size (lgamma and digamma in float vs torch's). */
static void test_against_torch(const distribution *d, const dist_case *c) {
    double worst_l = 0, worst_g = 0;
    for (int i = 0; i < B * H; i++) {
        float g[MAX_K], l = d->nll(c->raw + i * d->k, c->loc[i / H], c->scale[i / H], c->y[i], g);
        double el = fabs(l - c->nll[i]) / (1e-6 + fabs(c->nll[i])), size = 1e-6, eg = 0;
        for (int k = 0; k < d->k; k++) size += fabs(c->grad[i * d->k + k]);
        for (int k = 0; k < d->k; k++) eg = fmax(eg, fabs(g[k] - c->grad[i * d->k + k]) / size);
        worst_l = fmax(worst_l, el), worst_g = fmax(worst_g, eg);
        CHECK_MSG(el < 1e-5, "%s point %d: nll %.9g, torch %.9g", d->name, i, (double)l, (double)c->nll[i]);
        CHECK_MSG(eg < 1e-5, "%s point %d: gradient off by %.3g of its size", d->name, i, eg);
    }
    printf("%s nll vs torch: worst relative error %.1e, gradient %.1e\n", d->name, worst_l, worst_g);
}

/* Central differences of the float kernel, step 1e-2, relative to
 * |fd| + 0.25: the NLL is smooth, but its float lgamma terms (~20 at
 * StudentT's df near 28) round at ~2e-6, so the quotient is good to ~1e-4
 * absolute; a wrong sign or factor is off by far more. The exact values
 * are torch's, above. */
static void test_finite_differences(const distribution *d, const dist_case *c) {
    double worst = 0;
    for (int i = 0; i < B * H; i++) {
        float raw[MAX_K], g[MAX_K], unused[MAX_K];
        for (int k = 0; k < d->k; k++) raw[k] = c->raw[i * d->k + k];
        float sh = c->loc[i / H], sc = c->scale[i / H], y = c->y[i];
        d->nll(raw, sh, sc, y, g);
        for (int k = 0; k < d->k; k++) {
            float keep = raw[k], h = 1e-2f;
            raw[k] = keep + h;
            double up = d->nll(raw, sh, sc, y, unused);
            raw[k] = keep - h;
            double dn = d->nll(raw, sh, sc, y, unused);
            raw[k] = keep;
            double fd = (up - dn) / (double)((keep + h) - (keep - h));
            double err = fabs(fd - g[k]) / (0.25 + fabs(fd));
            worst = fmax(worst, err);
            CHECK_MSG(err < 2e-3, "%s point %d, output %d: gradient %.9g, central difference %.9g", d->name, i, k,
                      (double)g[k], fd);
        }
    }
    printf("%s nll finite differences: worst relative error %.1e\n", d->name, worst);
}

static void test_distribution(const fc_safetensors *f, const distribution *d) {
    int64_t bhk[3] = {B, H, d->k}, b1[1] = {B}, bh[2] = {B, H};
    dist_case c = {tensor(f, d->name, "raw", 3, bhk), tensor(f, d->name, "loc", 1, b1),
                   tensor(f, d->name, "scale", 1, b1), tensor(f, d->name, "y", 2, bh),
                   tensor(f, d->name, "nll", 2, bh), tensor(f, d->name, "grad", 3, bhk)};
    if (!c.raw || !c.loc || !c.scale || !c.y || !c.nll || !c.grad) return;
    test_against_torch(d, &c);
    test_finite_differences(d, &c);
}

/* digamma at known values: psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2,
 * psi(x + 1) = psi(x) + 1 / x. */
static void test_digamma(void) {
    const double euler = 0.57721566490153286061;
    CHECK_CLOSE(fc_digamma(1.0), -euler, 0, 1e-12);
    CHECK_CLOSE(fc_digamma(0.5), -euler - 2.0 * log(2.0), 0, 1e-12);
    CHECK_CLOSE(fc_digamma(7.25) - fc_digamma(6.25), 1.0 / 6.25, 0, 1e-12);
}

/* A NegativeBinomial mean of ~1e-8 (r0 = -30, identity scaler) gives
 * probs below float's eps: clamp_probs holds it there and its backward
 * passes nothing to r0; the NLL stays finite. */
static void test_nbinomial_clamp(void) {
    float raw[2] = {-30.0f, 0.3f}, g[2];
    float l = fc_nbinomial_nll(raw, 0.0f, 1.0f, 2.0f, g);
    CHECK(isfinite(l) && l > 0.0f && g[0] == 0.0f && isfinite(g[1]));
}

int main(void) {
    static const distribution dists[] = {{"studentt", 3, studentt}, {"poisson", 1, poisson},
                                            {"negativebinomial", 2, nbinomial}};
    test_digamma();
    test_nbinomial_clamp();
    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(FIXTURE, &f) == FC_OK, "%s", fc_last_error());
    for (size_t i = 0; f && i < sizeof dists / sizeof *dists; i++) test_distribution(f, &dists[i]);
    fc_st_free(&f);
    return CHECK_DONE();
}
