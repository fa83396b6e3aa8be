/* Risk and performance measures of a return series (simple returns per
 * period; 252 periods a year).
 *
 * Conventions (stated once, here):
 * - Volatility, Sharpe, Sortino, annual return and maximum drawdown follow
 *   empyrical: volatility = std(r, ddof=1) sqrt(252); Sharpe = mean(r) /
 *   std(r, ddof=1) sqrt(252), risk-free rate 0; Sortino = 252 mean(r) /
 *   (sqrt(mean(min(r, 0)^2)) sqrt(252)), required return 0, the downside
 *   mean taken over all periods; annual return (CAGR) = prod(1 + r)^(252/n)
 *   - 1; maximum drawdown = min_t (W_t / max_{s<=t} W_s - 1) over the wealth
 *   curve W_0 = 1, W_t = prod_{s<=t}(1 + r_s): negative, or 0.
 * - Losses are positive in VaR and CVaR. Historical VaR at level a is
 *   QuantLib's percentile without interpolation: the k-th smallest return,
 *   k = ceil((1 - a) n), negated (not floored at 0). Historical CVaR
 *   (expected shortfall) is minus the mean of those k worst returns, so
 *   CVaR >= VaR. Parametric (normal) VaR = -(mu + sigma Phi^-1(1 - a)) and
 *   ES = sigma phi(Phi^-1(a)) / (1 - a) - mu, with mu the mean and sigma the
 *   ddof-1 standard deviation of the returns (one period, not annualised). */
#ifndef FC_QUANT_RISK_H
#define FC_QUANT_RISK_H

#include <stddef.h>
#include "fcast/status.h"

#define FC_PERIODS_PER_YEAR 252.0

typedef struct {
    size_t n;
    double mean;              /* per period */
    double annual_return;     /* CAGR */
    double annual_volatility;
    double sharpe;            /* NaN when the returns are constant */
    double sortino;           /* +inf when no period lost */
    double max_drawdown;      /* <= 0 */
} fc_risk_summary;

double fc_mean(const double *x, size_t n);
double fc_std_ddof1(const double *x, size_t n);
double fc_sharpe_ratio(const double *r, size_t n);
double fc_sortino_ratio(const double *r, size_t n);
double fc_max_drawdown(const double *r, size_t n);
/* CAGR of a total growth factor earned over n periods. */
double fc_cagr(double growth, size_t n);

/* Needs n >= 2. */
fc_status fc_risk_summarize(const double *r, size_t n, fc_risk_summary *out);

/* Checks 0 < level < 1; the message names --level. */
fc_status fc_risk_check_level(double level);

fc_status fc_var_historical(const double *r, size_t n, double level, double *var, double *cvar);
fc_status fc_var_normal(const double *r, size_t n, double level, double *var, double *es);

#endif
