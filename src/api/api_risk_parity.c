/* Risk budgeting and risk contributions of fcast/quant_portfolio.h over
 * quant/risk_parity.h, the arguments checked here. */
#include <math.h>

#include "api/api_portfolio_args.h"
#include "core/error.h"
#include "quant/risk_parity.h"

fc_status fcast_portfolio_risk_parity(const double *cov, size_t n_assets, const double *budgets, double *weights,
                                      fcast_portfolio_report *report) {
    static const char fn[] = "fcast_portfolio_risk_parity";
    FC_TRY(fc_api_portfolio_moments_check(fn, NULL, 0, cov, n_assets));
    if (!weights) return fc_error(FC_ERR_INVALID, "%s: weights is NULL", fn);
    size_t steps = 0;
    double err = NAN;
    FC_TRY(fc_api_portfolio_engine(fc_risk_parity(cov, n_assets, budgets, weights, &steps, &err), fn));
    if (report) *report = (fcast_portfolio_report){steps, 0, err};
    return FC_OK;
}

fc_status fcast_portfolio_risk_contributions(const double *cov, size_t n_assets, const double *weights,
                                             double *contributions) {
    static const char fn[] = "fcast_portfolio_risk_contributions";
    FC_TRY(fc_api_portfolio_moments_check(fn, NULL, 0, cov, n_assets));
    if (!weights || !contributions)
        return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !weights ? "weights" : "contributions");
    double var = 0.0;
    for (size_t i = 0; i < n_assets; i++) {
        if (!isfinite(weights[i])) return fc_error(FC_ERR_INVALID, "%s: weights[%zu] = %g: must be finite", fn, i,
                                                   weights[i]);
        for (size_t j = 0; j < n_assets; j++) var += weights[i] * cov[i * n_assets + j] * weights[j];
    }
    if (!(var > 0.0))
        return fc_error(FC_ERR_INVALID, "%s: the portfolio's variance is %g: contributions need a positive variance",
                        fn, var);
    fc_risk_contributions(cov, n_assets, weights, contributions);
    return FC_OK;
}
