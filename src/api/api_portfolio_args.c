/* Argument checks of the constrained-portfolio API (api_portfolio_args.h). */
#include "api/api_portfolio_args.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "core/error.h"
#include "quant/portfolio.h"

fc_status fc_api_portfolio_moments_check(const char *fn, const double *mean, int need_mean, const double *cov,
                                         size_t n_assets) {
    if (n_assets < 1 || n_assets > PORTFOLIO_MAX_ASSETS)
        return fc_error(FC_ERR_INVALID, "%s: n_assets = %zu: expected 1 to %d assets", fn, n_assets,
                        PORTFOLIO_MAX_ASSETS);
    if (!cov) return fc_error(FC_ERR_INVALID, "%s: cov is NULL", fn);
    if (need_mean && !mean) return fc_error(FC_ERR_INVALID, "%s: mean is NULL", fn);
    const size_t N = n_assets;
    double m = 0.0;
    for (size_t k = 0; k < N * N; k++) {
        if (!isfinite(cov[k]))
            return fc_error(FC_ERR_INVALID, "%s: cov[%zu] (row %zu, column %zu) = %g: must be finite", fn, k, k / N,
                            k % N, cov[k]);
        m = fmax(m, fabs(cov[k]));
    }
    for (size_t i = 0; i < N; i++)
        for (size_t j = i + 1; j < N; j++)
            if (fabs(cov[i * N + j] - cov[j * N + i]) > 1e-12 * m)
                return fc_error(FC_ERR_INVALID, "%s: cov[%zu] = %.17g but cov[%zu] = %.17g: the covariance must be "
                                "symmetric", fn, i * N + j, cov[i * N + j], j * N + i, cov[j * N + i]);
    for (size_t i = 0; need_mean && i < N; i++)
        if (!isfinite(mean[i])) return fc_error(FC_ERR_INVALID, "%s: mean[%zu] = %g: must be finite", fn, i, mean[i]);
    return FC_OK;
}

fc_status fc_api_portfolio_bounds(const char *fn, const double *lower, const double *upper, size_t n_assets,
                                  const double **lo, const double **hi, double **owned) {
    *owned = NULL;
    if (!lower != !upper)
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL but %s is not: give both bounds, or neither for long-only", fn,
                        !lower ? "lower" : "upper", !lower ? "upper" : "lower");
    if (lower) {
        *lo = lower, *hi = upper;
        return FC_OK;
    }
    double *b = fc_malloc(2 * n_assets * sizeof *b, "long-only bounds");
    if (!b) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n_assets; i++) b[i] = 0.0, b[n_assets + i] = INFINITY;
    *lo = b, *hi = b + n_assets, *owned = b;
    return FC_OK;
}

fc_status fc_api_portfolio_engine(fc_status st, const char *fn) {
    return st == FC_OK ? FC_OK : fc_error_wrap(st, "%s: ", fn);
}

fc_status fc_api_portfolio_returns_check(const char *fn, const double *R, size_t n_periods, size_t n_assets) {
    if (!R) return fc_error(FC_ERR_INVALID, "%s: returns is NULL", fn);
    if (n_periods < 2)
        return fc_error(FC_ERR_INVALID, "%s: n_periods = %zu: a covariance needs at least 2 periods", fn, n_periods);
    if (n_assets < 1 || n_assets > PORTFOLIO_MAX_ASSETS)
        return fc_error(FC_ERR_INVALID, "%s: n_assets = %zu: expected 1 to %d assets", fn, n_assets,
                        PORTFOLIO_MAX_ASSETS);
    if (n_periods > SIZE_MAX / sizeof(double) / n_assets)
        return fc_error(FC_ERR_INVALID, "%s: n_periods = %zu x n_assets = %zu values: more than memory holds", fn,
                        n_periods, n_assets);
    for (size_t t = 0; t < n_periods; t++)
        for (size_t j = 0; j < n_assets; j++)
            if (!isfinite(R[t * n_assets + j]))
                return fc_error(FC_ERR_INVALID, "%s: returns[%zu] (period %zu, asset %zu) = %g: must be finite "
                                "(drop or fill missing values first)", fn, t * n_assets + j, t, j, R[t * n_assets + j]);
    return FC_OK;
}
