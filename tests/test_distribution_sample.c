/* DistributionLoss forecasts (kernels/distribution_sample.h and
 * train/distribution_forecast.c) against closed forms: the moments of the
 * gamma and Poisson generators over both of their branches, each
 * distribution's draws against its mean, variance and known quantiles
 * (Student's t from its tables, the Normal's Phi^-1), torch.quantile's
 * linear interpolation on small arrays, and the forecast's determinism
 * in (seed, series, start, point). Tolerances are 5 standard errors of
 * the statistic at the draw count, so a wrong shape, scale or branch
 * fails while sampling noise does not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/distribution_sample.h"
#include "train/distribution_forecast.h"
#include "train/forecaster.h"

#define N_DRAWS 200000

typedef struct {
    double mean, var;
} moments;

static moments moments_of(const double *x, size_t n) {
    double s = 0, ss = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    double m = s / (double)n;
    for (size_t i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
    return (moments){m, ss / (double)(n - 1)};
}

/* The mean within 5 standard errors, the variance within 5 of its own
 * (sqrt((mu4 - var^2) / n), mu4 given by the caller). */
static void check_moments(const char *what, const double *x, size_t n, double mean, double var, double mu4) {
    moments m = moments_of(x, n);
    double se_mean = sqrt(var / (double)n), se_var = sqrt((mu4 - var * var) / (double)n);
    CHECK_MSG(fabs(m.mean - mean) <= 5 * se_mean, "%s: mean %.6g, want %.6g (se %.2g)", what, m.mean, mean, se_mean);
    CHECK_MSG(fabs(m.var - var) <= 5 * se_var, "%s: variance %.6g, want %.6g (se %.2g)", what, m.var, var, se_var);
    printf("%-28s mean %12.6g (want %12.6g)  variance %12.6g (want %12.6g)\n", what, m.mean, mean, m.var, var);
}

static void test_gamma(double *x) {
    const double shapes[] = {0.3, 1.0, 2.5, 50.0};   /* below 1 (the boost), at and above */
    for (size_t k = 0; k < 4; k++) {
        double a = shapes[k];
        for (size_t i = 0; i < N_DRAWS; i++) {
            fc_draw_rng r = fc_draw_rng_at(7, 1, (uint32_t)k, 0, (uint32_t)i);
            x[i] = fc_draw_gamma(&r, a);
        }
        char what[64];
        snprintf(what, sizeof what, "gamma(%g)", a);
        check_moments(what, x, N_DRAWS, a, a, 3 * a * a + 6 * a);   /* Gamma's fourth central moment */
    }
}

static void test_poisson(double *x) {
    const double rates[] = {0.5, 4.0, 9.99, 10.0, 37.0, 1e4};   /* both sides of the PTRS switch at 10 */
    for (size_t k = 0; k < 6; k++) {
        double lam = rates[k];
        size_t zeros = 0;
        for (size_t i = 0; i < N_DRAWS; i++) {
            fc_draw_rng r = fc_draw_rng_at(11, 2, (uint32_t)k, 0, (uint32_t)i);
            x[i] = fc_draw_poisson(&r, lam);
            CHECK(x[i] >= 0 && x[i] == floor(x[i]));
            zeros += x[i] == 0;
        }
        char what[64];
        snprintf(what, sizeof what, "poisson(%g)", lam);
        check_moments(what, x, N_DRAWS, lam, lam, lam * (1 + 3 * lam));
        double p0 = exp(-lam), se = sqrt(p0 * (1 - p0) / N_DRAWS);
        CHECK_MSG(fabs((double)zeros / N_DRAWS - p0) <= 5 * se + 1e-12, "%s: P(0) %.5f, want %.5f", what,
                  (double)zeros / N_DRAWS, p0);
    }
}

/* Draws of distribution `dist` from raw outputs, as a forecast draws them. */
static void draws_of(int dist, const float *raw, float shift, float scale, double *x, size_t n) {
    for (size_t i = 0; i < n; i++) {
        fc_draw_rng r = fc_draw_rng_at(3, 9, 4, (uint32_t)dist, (uint32_t)i);
        x[i] = fc_distribution_draw(dist, raw, shift, scale, &r);
    }
}

static int by_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The empirical q-quantile within 5 standard errors of `want`:
 * sqrt(q (1 - q) / n) / density. */
static void check_quantile(const char *what, double *x, size_t n, double q, double want, double density) {
    qsort(x, n, sizeof *x, by_double);
    double got = x[(size_t)(q * (double)(n - 1))], se = sqrt(q * (1 - q) / (double)n) / density;
    CHECK_MSG(fabs(got - want) <= 5 * se, "%s: quantile %.2f is %.6g, want %.6g (se %.2g)", what, q, got, want, se);
}

static void test_distributions(double *x) {
    float d;
    /* Normal: mean a scale + shift, std (softplus(b) + 0.2) scale */
    float nraw[2] = {0.7f, -0.3f}, shift = 10.0f, scale = 3.0f;
    double mean = 0.7 * 3.0 + 10.0, sd = ((double)fc_softplus(-0.3f, &d) + 0.2) * 3.0;
    draws_of(FC_DIST_NORMAL, nraw, shift, scale, x, N_DRAWS);
    check_moments("normal", x, N_DRAWS, mean, sd * sd, 3 * sd * sd * sd * sd);
    double z90 = 1.2815515655446004;
    check_quantile("normal", x, N_DRAWS, 0.9, mean + sd * z90, exp(-0.5 * z90 * z90) / (sqrt(2 * M_PI) * sd));
    CHECK_CLOSE(fc_normal_quantile(nraw[0], nraw[1], shift, scale, 0.9f), mean + sd * z90, 0, 1e-6);

    /* StudentT: df = 3 + softplus(r0) = 5 at r0 = log(e^2 - 1); t_0.9(5) = 1.475884 (tables) */
    float traw[3] = {(float)log(exp(2.0) - 1.0), 0.5f, 0.0f};
    double df = 3.0 + (double)fc_softplus(traw[0], &d), loc = 0.5 * 3.0 + 10.0;
    double ts = ((double)fc_softplus(0.0f, &d) + 0.1) * 3.0;
    CHECK_CLOSE(df, 5.0, 0, 1e-6);
    draws_of(FC_DIST_STUDENTT, traw, shift, scale, x, N_DRAWS);
    moments m = moments_of(x, N_DRAWS);
    double var = ts * ts * df / (df - 2.0);   /* the fourth moment is infinite below df 4: the mean's se only */
    CHECK_MSG(fabs(m.mean - loc) <= 5 * sqrt(var / N_DRAWS), "studentt: mean %.6g, want %.6g", m.mean, loc);
    double t_density = 0.1283;   /* the t(5) density at 1.475884, 0.37961 (1 + t^2 / 5)^-3; times 1 / ts below */
    check_quantile("studentt", x, N_DRAWS, 0.9, loc + ts * 1.475884, t_density / ts);
    printf("%-28s mean %12.6g (want %12.6g)  q0.9 %12.6g (want %12.6g)\n", "studentt(5)", m.mean, loc,
           x[(size_t)(0.9 * (N_DRAWS - 1))], loc + ts * 1.475884);

    /* Poisson: rate softplus(r scale + shift) */
    float praw[1] = {-2.5f};
    double rate = (double)fc_softplus(-2.5f * 3.0f + 10.0f, &d);
    draws_of(FC_DIST_POISSON, praw, shift, scale, x, N_DRAWS);
    check_moments("poisson (decoupled)", x, N_DRAWS, rate, rate, rate * (1 + 3 * rate));

    /* NegativeBinomial: mean n p / (1 - p) = mu, variance mu (1 + mu alpha) */
    float braw[2] = {1.0f, -1.0f};
    double mu = ((double)fc_softplus(1.0f, &d) + 1e-8) * 3.0 + 10.0;
    double alpha = ((double)fc_softplus(-1.0f, &d) + 1e-8) / 4.0, nv = mu * (1 + mu * alpha);
    draws_of(FC_DIST_NBINOMIAL, braw, shift, scale, x, N_DRAWS);
    moments nbm = moments_of(x, N_DRAWS);
    CHECK_MSG(fabs(nbm.mean - mu) <= 5 * sqrt(nv / N_DRAWS), "negative-binomial: mean %.6g, want %.6g", nbm.mean, mu);
    /* the sample variance's relative se is sqrt((2 + excess kurtosis) / n), ~0.4 % here: 2 % is 5 of them */
    CHECK_MSG(fabs(nbm.var - nv) <= 0.02 * nv, "negative-binomial: variance %.6g, want %.6g", nbm.var, nv);
    printf("%-28s mean %12.6g (want %12.6g)  variance %12.6g (want %12.6g)\n", "negative-binomial", nbm.mean, mu,
           nbm.var, nv);
}

/* torch.quantile(torch.tensor([1., 2., 3., 4.]), q) for q = 0, 0.1, 0.5,
 * 0.95, 1: 1, 1.3, 2.5, 3.85, 4; one value: itself. */
static void test_quantile_interpolation(void) {
    const float x[4] = {1, 2, 3, 4}, q[5] = {0.0f, 0.1f, 0.5f, 0.95f, 1.0f}, want[5] = {1.0f, 1.3f, 2.5f, 3.85f, 4.0f};
    for (int i = 0; i < 5; i++)
        CHECK_MSG(fabsf(fc_sorted_quantile(x, 4, q[i]) - want[i]) <= 1e-6f, "q %g: %.9g, want %g", (double)q[i],
                  (double)fc_sorted_quantile(x, 4, q[i]), (double)want[i]);
    const float one = 7.0f;
    CHECK(fc_sorted_quantile(&one, 1, 0.9f) == 7.0f);
}

/* A window's columns: the mean then the quantiles in the loss's order,
 * ordered as the quantiles are; the same bits for the same (seed, window
 * key), other bits for another key; NaN raw outputs give NaN. The key is
 * the input's bits: another value or mask changes it. */
static void test_forecast_window(void) {
    fc_loss_spec s = fc_loss_default(FC_LOSS_NORMAL);
    size_t H = 3, C = fc_distribution_columns(&s);
    CHECK(C == 6);
    float raw[6] = {0.1f, 0.0f, -0.2f, 0.5f, 1.0f, -1.0f}, a[18], b[18], c[18];
    float *draws = malloc((size_t)s.n_samples * sizeof *draws);
    fc_distribution_forecast_window(&s, 1, 5, raw, H, 2.0f, 1.5f, draws, a);
    fc_distribution_forecast_window(&s, 1, 5, raw, H, 2.0f, 1.5f, draws, b);
    fc_distribution_forecast_window(&s, 1, 6, raw, H, 2.0f, 1.5f, draws, c);
    CHECK(!memcmp(a, b, sizeof a) && memcmp(a, c, sizeof a));
    for (size_t t = 0; t < H; t++) {
        const float *row = a + t * C;   /* "", median, lo-90, lo-80, hi-80, hi-90 */
        CHECK_MSG(row[2] <= row[3] && row[3] <= row[1] && row[1] <= row[4] && row[4] <= row[5],
                  "point %zu: quantiles out of order", t);
        float mean, std, dstd;
        fc_normal_params(raw[2 * t], raw[2 * t + 1], 2.0f, 1.5f, &mean, &std, &dstd);
        CHECK_MSG(fabsf(row[0] - mean) <= 5.0f * std / sqrtf((float)s.n_samples), "point %zu: mean %g, want %g", t,
                  (double)row[0], (double)mean);
    }
    raw[0] = NAN;
    fc_distribution_forecast_window(&s, 1, 5, raw, 1, 2.0f, 1.5f, draws, a);
    for (size_t j = 0; j < C; j++) CHECK(isnan(a[j]));
    free(draws);
    float x[4] = {1, 2, 3, 4}, m[4] = {1, 1, 1, 1};
    uint64_t k0 = fc_distribution_window_key(x, m, 4);
    CHECK(k0 == fc_distribution_window_key(x, m, 4));
    x[2] = 3.0000002f;
    CHECK(k0 != fc_distribution_window_key(x, m, 4));
    x[2] = 3.0f, m[0] = 0.0f;
    CHECK(k0 != fc_distribution_window_key(x, m, 4));
}

int main(void) {
    double *x = malloc(N_DRAWS * sizeof *x);
    test_gamma(x);
    test_poisson(x);
    test_distributions(x);
    test_quantile_interpolation();
    test_forecast_window();
    free(x);
    return CHECK_DONE();
}
