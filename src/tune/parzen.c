/* Parzen estimators of optuna's TPE (see parzen.h). optuna 4.x/5.0 with its
 * defaults: prior_weight 1, consider_magic_clip, not consider_endpoints,
 * default_weights (flat up to 25 observations, then a ramp from 1/n for
 * the oldest). */
#include "tune/parzen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

#define PRIOR_WEIGHT 1.0

/* Phi(b) - Phi(a), computed on the side of 0 where it does not cancel. */
static double gauss_mass(double a, double b) {
    if (a >= 0) return 0.5 * (erfc(a / M_SQRT2) - erfc(b / M_SQRT2));
    if (b <= 0) return 0.5 * (erfc(-b / M_SQRT2) - erfc(-a / M_SQRT2));
    return 1.0 - 0.5 * erfc(-a / M_SQRT2) - 0.5 * erfc(b / M_SQRT2);
}

/* Acklam's rational approximation (relative error 1.2e-9), then one
 * Halley step against erfc, which brings it to double precision. */
double fc_norm_ppf(double p) {
    static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                               1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                               6.680131188771972e+01, -1.328068155288572e+01};
    static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                               -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                               3.754408661907416e+00};
    if (!(p > 0)) return -INFINITY;
    if (!(p < 1)) return INFINITY;
    double x, q = p < 0.5 ? p : 1 - p;
    if (q < 0.02425) {
        double t = sqrt(-2 * log(q));
        x = (((((c[0] * t + c[1]) * t + c[2]) * t + c[3]) * t + c[4]) * t + c[5]) /
            ((((d[0] * t + d[1]) * t + d[2]) * t + d[3]) * t + 1);
        if (p > 0.5) x = -x;
    } else {
        double r = (p - 0.5) * (p - 0.5);
        x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * (p - 0.5) /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    double e = 0.5 * erfc(-x / M_SQRT2) - p, u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    return x - u / (1 + x * u / 2);
}

static double transform(const fc_param *p, double x) { return p->log ? log(x) : x; }

/* optuna's default_weights(n) followed by the prior's, normalised. */
static void mixture_weights(double *w, size_t n_obs) {
    double sum = 0;
    for (size_t i = 0; i < n_obs; i++) {
        size_t ramp = n_obs > 25 ? n_obs - 25 : 0;   /* linspace(1/n, 1, n - 25) for the oldest */
        w[i] = i >= ramp ? 1.0 : ramp == 1 ? 1.0 / (double)n_obs
             : 1.0 / (double)n_obs + (1.0 - 1.0 / (double)n_obs) * (double)i / (double)(ramp - 1);
    }
    w[n_obs] = n_obs ? PRIOR_WEIGHT : 1.0;
    for (size_t i = 0; i <= n_obs; i++) sum += w[i];
    for (size_t i = 0; i <= n_obs; i++) w[i] /= sum;
}

static int by_value(const void *a, const void *b) {
    const double *x = a, *y = b;   /* (value, index) pairs: ties in index order */
    return x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Each kernel's width: the larger gap to its sorted neighbours (the bounds
 * count as neighbours, except that the extreme kernels use their inner gap
 * alone), clipped to [range / min(100, kernels + 1), range]. */
static fc_status widths(fc_parzen *e, size_t n_obs) {
    double *pairs = fc_malloc((n_obs + 1) * 2 * sizeof *pairs, "parzen estimator");
    if (!pairs) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n_obs; i++) { pairs[2 * i] = e->mu[i]; pairs[2 * i + 1] = (double)i; }
    qsort(pairs, n_obs, 2 * sizeof *pairs, by_value);
    double range = e->hi - e->lo, lo_s = range / fmin(100.0, 1.0 + (double)(n_obs + 1));
    for (size_t k = 0; k < n_obs; k++) {
        double prev = k ? pairs[2 * (k - 1)] : e->lo, next = k + 1 < n_obs ? pairs[2 * (k + 1)] : e->hi;
        double m = pairs[2 * k], s = fmax(m - prev, next - m);
        if (n_obs >= 2 && k == 0) s = pairs[2] - pairs[0];
        if (n_obs >= 2 && k == n_obs - 1) s = pairs[2 * k] - pairs[2 * (k - 1)];
        e->sigma[(size_t)pairs[2 * k + 1]] = fmin(fmax(s, lo_s), range);
    }
    free(pairs);
    e->mu[n_obs] = 0.5 * (e->lo + e->hi);
    e->sigma[n_obs] = range;
    return FC_OK;
}

static fc_status build_choice(fc_parzen *e, const double *obs, size_t n_obs) {
    size_t C = e->p->n_choices;
    if (!(e->rows = fc_malloc(e->n * C * sizeof *e->rows, "parzen estimator"))) return FC_ERR_MEMORY;
    for (size_t k = 0; k < e->n; k++) {
        double *row = e->rows + k * C, sum = 0;
        for (size_t c = 0; c < C; c++) row[c] = n_obs ? PRIOR_WEIGHT / (double)e->n : 1.0;
        if (k < n_obs) row[(size_t)obs[k]] += 1.0;
        for (size_t c = 0; c < C; c++) sum += row[c];
        for (size_t c = 0; c < C; c++) row[c] /= sum;
    }
    return FC_OK;
}

fc_status fc_parzen_build(fc_parzen *e, const fc_param *p, const double *obs, size_t n_obs) {
    memset(e, 0, sizeof *e);
    e->p = p;
    e->n = n_obs + 1;
    if (!(e->w = fc_malloc(e->n * sizeof *e->w, "parzen estimator"))) return FC_ERR_MEMORY;
    mixture_weights(e->w, n_obs);
    if (p->kind == FC_PARAM_CHOICE) return build_choice(e, obs, n_obs);
    double half = p->kind == FC_PARAM_INT ? 0.5 : 0.0;
    e->lo = transform(p, p->low - half);
    e->hi = transform(p, p->high + half);
    e->mu = fc_malloc(e->n * sizeof *e->mu, "parzen estimator");
    e->sigma = fc_malloc(e->n * sizeof *e->sigma, "parzen estimator");
    if (!e->mu || !e->sigma) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n_obs; i++) e->mu[i] = transform(p, obs[i]);
    return widths(e, n_obs);
}

static size_t pick(const double *w, size_t n, double u) {
    double cum = 0;
    for (size_t k = 0; k + 1 < n; k++)
        if (u < (cum += w[k])) return k;
    return n - 1;
}

double fc_parzen_sample(const fc_parzen *e, double u_kernel, double u_value) {
    size_t k = pick(e->w, e->n, u_kernel);
    const fc_param *p = e->p;
    if (p->kind == FC_PARAM_CHOICE) return (double)pick(e->rows + k * p->n_choices, p->n_choices, u_value);
    double mu = e->mu[k], s = e->sigma[k];
    double pa = 0.5 * erfc(-(e->lo - mu) / s / M_SQRT2), pb = 0.5 * erfc(-(e->hi - mu) / s / M_SQRT2);
    double t = mu + s * fc_norm_ppf(pa + u_value * (pb - pa));   /* truncated normal by inversion */
    double x = p->log ? exp(t) : t;
    if (p->kind == FC_PARAM_INT) x = round(x);
    return x < p->low ? p->low : x > p->high ? p->high : x;
}

/* log of one kernel's density (mass for an integer) at x. */
static double kernel_log_pdf(const fc_parzen *e, size_t k, double x) {
    const fc_param *p = e->p;
    double mu = e->mu[k], s = e->sigma[k];
    double norm = gauss_mass((e->lo - mu) / s, (e->hi - mu) / s);
    if (p->kind == FC_PARAM_INT) {
        double l = transform(p, x - 0.5), r = transform(p, x + 0.5);
        return log(gauss_mass((l - mu) / s, (r - mu) / s)) - log(norm);
    }
    double z = (transform(p, x) - mu) / s;
    return -0.5 * z * z - log(s) - 0.5 * log(2 * M_PI) - log(norm);
}

double fc_parzen_log_pdf(const fc_parzen *e, double x) {
    if (e->p->kind == FC_PARAM_CHOICE) {
        double sum = 0;
        for (size_t k = 0; k < e->n; k++) sum += e->w[k] * e->rows[k * e->p->n_choices + (size_t)x];
        return log(sum);
    }
    double top = -INFINITY, sum = 0;   /* log-sum-exp over the kernels */
    for (size_t k = 0; k < e->n; k++) top = fmax(top, log(e->w[k]) + kernel_log_pdf(e, k, x));
    if (isinf(top)) return top;
    for (size_t k = 0; k < e->n; k++) sum += exp(log(e->w[k]) + kernel_log_pdf(e, k, x) - top);
    return top + log(sum);
}

void fc_parzen_free(fc_parzen *e) {
    free(e->w);
    free(e->mu);
    free(e->sigma);
    free(e->rows);
    memset(e, 0, sizeof *e);
}
