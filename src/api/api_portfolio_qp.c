/* The bounded portfolios of fcast/quant_portfolio.h (minimum variance,
 * target return, frontier, maximum Sharpe, the reachable range) over
 * quant/portfolio_qp.h, the arguments checked here so that messages name
 * the API's arguments. */
#include <math.h>
#include <stdlib.h>

#include "api/api_portfolio_args.h"
#include "core/error.h"
#include "quant/portfolio_qp.h"

static void report_from(const fc_qp_info *info, fcast_portfolio_report *report) {
    if (report) *report = (fcast_portfolio_report){info->iterations, info->n_active, info->kkt_residual};
}

/* What every bounded problem checks first; *owned as fc_api_portfolio_bounds'. */
static fc_status prepare(const char *fn, const double *mean, int need_mean, const double *cov, size_t N,
                         const double *lower, const double *upper, const double *weights, fc_box *box,
                         double **owned) {
    *owned = NULL;
    FC_TRY(fc_api_portfolio_moments_check(fn, mean, need_mean, cov, N));
    if (!weights) return fc_error(FC_ERR_INVALID, "%s: weights is NULL", fn);
    FC_TRY(fc_api_portfolio_bounds(fn, lower, upper, N, &box->lower, &box->upper, owned));
    return fc_api_portfolio_engine(fc_box_check(box, N), fn);
}

fc_status fcast_portfolio_return_range(const double *mean, size_t n_assets, const double *lower, const double *upper,
                                       double *lowest, double *highest) {
    static const char fn[] = "fcast_portfolio_return_range";
    if (!mean) return fc_error(FC_ERR_INVALID, "%s: mean is NULL", fn);
    if (!lowest || !highest) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !lowest ? "lowest" : "highest");
    fc_box box;
    double *owned = NULL;
    fc_status st = n_assets < 1 ? fc_error(FC_ERR_INVALID, "%s: n_assets = 0", fn)
                                : fc_api_portfolio_bounds(fn, lower, upper, n_assets, &box.lower, &box.upper, &owned);
    for (size_t i = 0; st == FC_OK && i < n_assets; i++)
        if (!isfinite(mean[i])) st = fc_error(FC_ERR_INVALID, "%s: mean[%zu] = %g: must be finite", fn, i, mean[i]);
    if (st == FC_OK) st = fc_api_portfolio_engine(fc_box_check(&box, n_assets), fn);
    if (st == FC_OK) fc_box_return_range(&box, mean, n_assets, lowest, highest);
    free(owned);
    return st;
}

fc_status fcast_portfolio_bounded_min_variance(const double *mean, const double *cov, size_t n_assets,
                                               const double *lower, const double *upper, double *weights,
                                               fcast_portfolio_report *report) {
    static const char fn[] = "fcast_portfolio_bounded_min_variance";
    fc_box box;
    double *owned;
    fc_qp_info info = {0};
    fc_status st = prepare(fn, mean, 0, cov, n_assets, lower, upper, weights, &box, &owned);
    if (st == FC_OK)
        st = fc_api_portfolio_engine(fc_portfolio_box_min_variance(cov, mean, n_assets, &box, NULL, weights, &info),
                                     fn);
    if (st == FC_OK) report_from(&info, report);
    free(owned);
    return st;
}

fc_status fcast_portfolio_bounded_target_return(const double *mean, const double *cov, size_t n_assets,
                                                const double *lower, const double *upper, double target,
                                                double *weights, fcast_portfolio_report *report) {
    static const char fn[] = "fcast_portfolio_bounded_target_return";
    fc_box box;
    double *owned;
    fc_qp_info info = {0};
    fc_status st = prepare(fn, mean, 1, cov, n_assets, lower, upper, weights, &box, &owned);
    if (st == FC_OK)
        st = fc_api_portfolio_engine(fc_portfolio_box_min_variance(cov, mean, n_assets, &box, &target, weights, &info),
                                     fn);
    if (st == FC_OK) report_from(&info, report);
    free(owned);
    return st;
}

fc_status fcast_portfolio_frontier(const double *mean, const double *cov, size_t n_assets, const double *lower,
                                   const double *upper, size_t n_points, double *targets, double *weights,
                                   fcast_portfolio_report *report) {
    static const char fn[] = "fcast_portfolio_frontier";
    fc_box box;
    double *owned;
    fc_qp_info info = {0};
    fc_status st = prepare(fn, mean, 1, cov, n_assets, lower, upper, weights, &box, &owned);
    if (st == FC_OK && !targets) st = fc_error(FC_ERR_INVALID, "%s: targets is NULL", fn);
    if (st == FC_OK && (n_points < 2 || n_points > 100000))
        st = fc_error(FC_ERR_INVALID, "%s: n_points = %zu: expected 2 to 100000", fn, n_points);
    if (st == FC_OK)
        st = fc_api_portfolio_engine(
            fc_portfolio_box_frontier(cov, mean, n_assets, &box, n_points, targets, weights, &info), fn);
    if (st == FC_OK) report_from(&info, report);
    free(owned);
    return st;
}

fc_status fcast_portfolio_max_sharpe(const double *mean, const double *cov, size_t n_assets, const double *lower,
                                     const double *upper, double risk_free, double *weights,
                                     fcast_portfolio_report *report) {
    static const char fn[] = "fcast_portfolio_max_sharpe";
    fc_box box;
    double *owned;
    fc_qp_info info = {0};
    fc_status st = prepare(fn, mean, 1, cov, n_assets, lower, upper, weights, &box, &owned);
    if (st == FC_OK && !isfinite(risk_free))
        st = fc_error(FC_ERR_INVALID, "%s: risk_free = %g: must be finite", fn, risk_free);
    if (st == FC_OK)
        st = fc_api_portfolio_engine(fc_portfolio_box_max_sharpe(cov, mean, n_assets, &box, risk_free, weights, &info),
                                     fn);
    if (st == FC_OK) report_from(&info, report);
    free(owned);
    return st;
}
