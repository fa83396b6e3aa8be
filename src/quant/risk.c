/* Risk and performance measures (conventions in risk.h). */
#include "quant/risk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "kernels/quant_normal.h"

double fc_mean(const double *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s / (double)n;
}

/* Two passes (mean first): no cancellation for returns near a large mean. */
double fc_std_ddof1(const double *x, size_t n) {
    if (n < 2) return NAN;
    double m = fc_mean(x, n), s = 0.0;
    for (size_t i = 0; i < n; i++) s += (x[i] - m) * (x[i] - m);
    return sqrt(s / (double)(n - 1));
}

double fc_sharpe_ratio(const double *r, size_t n) {
    double sd = fc_std_ddof1(r, n);
    if (!(sd > 0.0)) return NAN;
    return fc_mean(r, n) / sd * sqrt(FC_PERIODS_PER_YEAR);
}

double fc_sortino_ratio(const double *r, size_t n) {
    double down = 0.0;
    for (size_t i = 0; i < n; i++)
        if (r[i] < 0.0) down += r[i] * r[i];
    double risk = sqrt(down / (double)n) * sqrt(FC_PERIODS_PER_YEAR);
    return fc_mean(r, n) * FC_PERIODS_PER_YEAR / risk;
}

double fc_max_drawdown(const double *r, size_t n) {
    double wealth = 1.0, peak = 1.0, worst = 0.0;
    for (size_t i = 0; i < n; i++) {
        wealth *= 1.0 + r[i];
        if (wealth > peak) peak = wealth;
        double dd = (wealth - peak) / peak;
        if (dd < worst) worst = dd;
    }
    return worst;
}

double fc_cagr(double growth, size_t n) {
    if (n == 0) return NAN;
    return pow(growth, FC_PERIODS_PER_YEAR / (double)n) - 1.0;
}

fc_status fc_risk_summarize(const double *r, size_t n, fc_risk_summary *out) {
    if (n < 2) return fc_error(FC_ERR_INVALID, "risk measures need at least 2 returns, got %zu", n);
    double growth = 1.0;
    for (size_t i = 0; i < n; i++) growth *= 1.0 + r[i];
    out->n = n;
    out->mean = fc_mean(r, n);
    out->annual_return = fc_cagr(growth, n);
    out->annual_volatility = fc_std_ddof1(r, n) * sqrt(FC_PERIODS_PER_YEAR);
    out->sharpe = fc_sharpe_ratio(r, n);
    out->sortino = fc_sortino_ratio(r, n);
    out->max_drawdown = fc_max_drawdown(r, n);
    return FC_OK;
}

fc_status fc_risk_check_level(double level) {
    if (!(level > 0.0 && level < 1.0))
        return fc_error(FC_ERR_INVALID, "--level: expected confidence levels in (0, 1) such as 0.95, got %g",
                        level);
    return FC_OK;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* QuantLib's GeneralStatistics::percentile(1 - level) with unit weights:
 * the first sorted sample whose cumulative count reaches (1 - level) n. */
fc_status fc_var_historical(const double *r, size_t n, double level, double *var, double *cvar) {
    FC_TRY(fc_risk_check_level(level));
    if (n < 1) return fc_error(FC_ERR_INVALID, "historical VaR needs at least one return");
    double *sorted = fc_malloc(n * sizeof *sorted, "sorted returns");
    if (!sorted) return FC_ERR_MEMORY;
    memcpy(sorted, r, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_double);
    double target = (1.0 - level) * (double)n;
    size_t k = 1; /* k worst returns, as QuantLib's loop: while (k < target && k < n) k++ */
    while ((double)k < target && k < n) k++;
    double tail = 0.0;
    for (size_t i = 0; i < k; i++) tail += sorted[i];
    *var = -sorted[k - 1];
    *cvar = -tail / (double)k;
    free(sorted);
    return FC_OK;
}

fc_status fc_var_normal(const double *r, size_t n, double level, double *var, double *es) {
    FC_TRY(fc_risk_check_level(level));
    if (n < 2) return fc_error(FC_ERR_INVALID, "parametric VaR needs at least 2 returns, got %zu", n);
    double mu = fc_mean(r, n), sd = fc_std_ddof1(r, n), z = fc_norm_inv(level);
    *var = sd * z - mu; /* -(mu + sd Phi^-1(1 - a)), Phi^-1(1 - a) = -Phi^-1(a) */
    *es = sd * fc_norm_pdf(z) / (1.0 - level) - mu;
    return FC_OK;
}
