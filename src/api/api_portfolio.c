/* Portfolio weights through the library API (fcast.h): the moments of a
 * row-major return matrix and the closed-form weights of
 * quant/portfolio.h, with the matrix, its sizes and the target checked
 * here so that messages name the API's arguments; and (fcast/quant_portfolio.h)
 * the same closed forms from a covariance. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/api_portfolio_args.h"
#include "core/error.h"
#include "quant/portfolio.h"


static fc_status engine(fc_status st, const char *fn) {
    return st == FC_OK ? FC_OK : fc_error_wrap(st, "%s: ", fn);
}

fc_status fcast_portfolio_moments(const double *returns, size_t n_periods, size_t n_assets, double *mean,
                                  double *cov) {
    static const char fn[] = "fcast_portfolio_moments";
    FC_TRY(fc_api_portfolio_returns_check(fn, returns, n_periods, n_assets));
    if (!mean || !cov) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !mean ? "mean" : "cov");
    return engine(fc_portfolio_moments(returns, n_periods, n_assets, mean, cov), fn);
}

/* Moments into fresh buffers, then the weights: of least variance
 * (target NULL) or earning *target. */
static fc_status solve(const char *fn, const double *R, size_t T, size_t N, const double *target, double *w) {
    FC_TRY(fc_api_portfolio_returns_check(fn, R, T, N));
    if (!w) return fc_error(FC_ERR_INVALID, "%s: weights is NULL", fn);
    if (target && !isfinite(*target)) return fc_error(FC_ERR_INVALID, "%s: target = %g: must be finite", fn, *target);
    if (target && N < 2)
        return fc_error(FC_ERR_INVALID, "%s: n_assets = 1: a target return needs at least 2 assets", fn);
    double *mu = fc_malloc(N * sizeof *mu, "asset means"), *cov = fc_malloc(N * N * sizeof *cov, "covariance");
    fc_status st = mu && cov ? fc_portfolio_moments(R, T, N, mu, cov) : FC_ERR_MEMORY;
    if (st == FC_OK)
        st = target ? fc_portfolio_target_return(cov, mu, N, *target, w) : fc_portfolio_min_variance(cov, N, w);
    free(mu), free(cov);
    return engine(st, fn);
}

fc_status fcast_portfolio_min_variance(const double *returns, size_t n_periods, size_t n_assets, double *weights) {
    return solve("fcast_portfolio_min_variance", returns, n_periods, n_assets, NULL, weights);
}

fc_status fcast_portfolio_target_return(const double *returns, size_t n_periods, size_t n_assets, double target,
                                        double *weights) {
    return solve("fcast_portfolio_target_return", returns, n_periods, n_assets, &target, weights);
}

/* The same closed forms from a covariance (fcast/quant_portfolio.h). */

fc_status fcast_portfolio_unbounded_min_variance(const double *cov, size_t n_assets, double *weights) {
    static const char fn[] = "fcast_portfolio_unbounded_min_variance";
    FC_TRY(fc_api_portfolio_moments_check(fn, NULL, 0, cov, n_assets));
    if (!weights) return fc_error(FC_ERR_INVALID, "%s: weights is NULL", fn);
    return engine(fc_portfolio_min_variance(cov, n_assets, weights), fn);
}

fc_status fcast_portfolio_unbounded_target_return(const double *mean, const double *cov, size_t n_assets,
                                                  double target, double *weights) {
    static const char fn[] = "fcast_portfolio_unbounded_target_return";
    FC_TRY(fc_api_portfolio_moments_check(fn, mean, 1, cov, n_assets));
    if (!weights) return fc_error(FC_ERR_INVALID, "%s: weights is NULL", fn);
    if (!isfinite(target)) return fc_error(FC_ERR_INVALID, "%s: target = %g: must be finite", fn, target);
    return engine(fc_portfolio_target_return(cov, mean, n_assets, target, weights), fn);
}
