/* Ledoit-Wolf shrinkage of fcast/quant_portfolio.h over quant/ledoit_wolf.h,
 * the return matrix checked here (period and asset of a bad value named). */
#include <math.h>
#include <stdint.h>

#include "api/api_portfolio_args.h"
#include "core/error.h"
#include "quant/ledoit_wolf.h"
#include "quant/portfolio.h"

fc_status fcast_portfolio_ledoit_wolf(const double *returns, size_t n_periods, size_t n_assets, double *cov,
                                      double *shrinkage) {
    static const char fn[] = "fcast_portfolio_ledoit_wolf";
    if (!returns || !cov) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !returns ? "returns" : "cov");
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
            if (!isfinite(returns[t * n_assets + j]))
                return fc_error(FC_ERR_INVALID, "%s: returns[%zu] (period %zu, asset %zu) = %g: must be finite "
                                "(drop or fill missing values first)", fn, t * n_assets + j, t, j,
                                returns[t * n_assets + j]);
    return fc_api_portfolio_engine(fc_ledoit_wolf(returns, n_periods, n_assets, cov, shrinkage), fn);
}
