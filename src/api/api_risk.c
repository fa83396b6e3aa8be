/* Risk measures through the library API (fcast.h): the summary of
 * quant/risk.h (empyrical's conventions) and historical and normal VaR,
 * with the returns and the level checked here so that messages name the
 * API's arguments ("returns[5] = nan", "level = 1.5") rather than the
 * CLI's flags. */
#include <math.h>

#include "fcast.h"
#include "core/error.h"
#include "quant/risk.h"

/* returns[0 .. n): there, at least min_n, finite, and (for the wealth
 * curve of the summary) no loss beyond 100%. */
static fc_status check_returns(const char *fn, const double *r, size_t n, size_t min_n, int floor_minus_one) {
    if (!r) return fc_error(FC_ERR_INVALID, "%s: returns is NULL", fn);
    if (n < min_n) return fc_error(FC_ERR_INVALID, "%s: n = %zu: needs at least %zu return%s", fn, n, min_n,
                                   min_n > 1 ? "s" : "");
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(r[i]))
            return fc_error(FC_ERR_INVALID, "%s: returns[%zu] = %g: must be finite (drop missing values first)", fn, i,
                            r[i]);
        if (floor_minus_one && r[i] < -1.0)
            return fc_error(FC_ERR_INVALID, "%s: returns[%zu] = %g: below -1, a loss beyond 100%%", fn, i, r[i]);
    }
    return FC_OK;
}

static fc_status check_level(const char *fn, double level) {
    if (!(level > 0.0 && level < 1.0))
        return fc_error(FC_ERR_INVALID, "%s: level = %g: must be a confidence level in (0, 1), such as 0.95", fn,
                        level);
    return FC_OK;
}

/* After the checks above the engine cannot refuse; should it, its message
 * still says which call failed. */
static fc_status engine(fc_status st, const char *fn) {
    return st == FC_OK ? FC_OK : fc_error_wrap(st, "%s: ", fn);
}

fc_status fcast_risk_summary(const double *returns, size_t n, fcast_risk *out) {
    static const char fn[] = "fcast_risk_summary";
    FC_TRY(check_returns(fn, returns, n, 2, 1));
    if (!out) return fc_error(FC_ERR_INVALID, "%s: out is NULL", fn);
    fc_risk_summary s;
    FC_TRY(engine(fc_risk_summarize(returns, n, &s), fn));
    *out = (fcast_risk){s.n, s.mean, s.annual_return, s.annual_volatility, s.sharpe, s.sortino, s.max_drawdown};
    return FC_OK;
}

/* The checks both VaR functions share; both outputs must be given. */
static fc_status check_var(const char *fn, const double *r, size_t n, size_t min_n, double level, const double *a,
                           const char *a_name, const double *b, const char *b_name) {
    FC_TRY(check_returns(fn, r, n, min_n, 0));
    FC_TRY(check_level(fn, level));
    if (!a || !b) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !a ? a_name : b_name);
    return FC_OK;
}

fc_status fcast_var_historical(const double *returns, size_t n, double level, double *var, double *cvar) {
    static const char fn[] = "fcast_var_historical";
    FC_TRY(check_var(fn, returns, n, 1, level, var, "var", cvar, "cvar"));
    return engine(fc_var_historical(returns, n, level, var, cvar), fn);
}

fc_status fcast_var_normal(const double *returns, size_t n, double level, double *var, double *es) {
    static const char fn[] = "fcast_var_normal";
    FC_TRY(check_var(fn, returns, n, 2, level, var, "var", es, "es"));
    return engine(fc_var_normal(returns, n, level, var, es), fn);
}
