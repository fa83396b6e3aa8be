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
    if (!cov) return fc_error(FC_ERR_INVALID, "%s: cov is NULL", fn);
    FC_TRY(fc_api_portfolio_returns_check(fn, returns, n_periods, n_assets));
    return fc_api_portfolio_engine(fc_ledoit_wolf(returns, n_periods, n_assets, cov, shrinkage), fn);
}
