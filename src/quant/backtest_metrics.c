/* The metrics of an equity curve's returns, with vectorbt's definitions
 * (vectorbt/returns/nb.py) and ppy periods a year (its ann_factor =
 * year_freq / freq):
 *   total = prod(1 + r) - 1;  annual = (1 + total)^(ppy / n) - 1;
 *   volatility = std(r, ddof 1) sqrt(ppy);
 *   Sharpe = mean(r) / std(r, ddof 1) sqrt(ppy) (NaN for a constant curve,
 *     where vectorbt gives inf);
 *   Sortino = mean(r) ppy / (sqrt(mean(min(r, 0)^2)) sqrt(ppy)) (inf when
 *     no period lost);
 *   max drawdown = min over t of W_t / max_{s<=t} W_s - 1 on the wealth
 *     W_t = prod_{s<=t} (1 + r_s), its first peak W_0 (vectorbt's: the
 *     capital before the first bar is not a peak);
 *   Calmar = annual / |max drawdown| (NaN without a drawdown);
 *   drawdown duration = the longest run of bars with W below its running
 *     peak (vectorbt's Drawdowns duration on the same wealth).
 * Needs n >= 1; volatility, Sharpe and Sortino need n >= 2 (else NaN). */
#include <math.h>
#include "quant/backtest_sim.h"
#include "quant/risk.h"

static void drawdown_stats(const double *r, size_t n, fc_bt_stats *out) {
    double w = 1.0, peak = -INFINITY, worst = 0.0;
    size_t run = 0, longest = 0;
    for (size_t t = 0; t < n; t++) {
        w *= 1.0 + r[t];
        if (w >= peak) {
            peak = w;
            run = 0;
        } else {
            run++;
            if (run > longest) longest = run;
        }
        double dd = w / peak - 1.0;
        if (dd < worst) worst = dd;
    }
    out->max_drawdown = worst;
    out->max_drawdown_bars = longest;
}

static double sortino(const double *r, size_t n, double ppy) {
    double down = 0.0;
    for (size_t t = 0; t < n; t++)
        if (r[t] < 0.0) down += r[t] * r[t];
    double risk = sqrt(down / (double)n) * sqrt(ppy);
    if (risk == 0.0) return INFINITY;
    return fc_mean(r, n) * ppy / risk;
}

void fc_bt_stats_from_returns(const double *r, size_t n, double ppy, fc_bt_stats *out) {
    double growth = 1.0;
    for (size_t t = 0; t < n; t++) growth *= 1.0 + r[t];
    out->total_return = growth - 1.0;
    out->annual_return = n ? pow(growth, ppy / (double)n) - 1.0 : NAN;
    drawdown_stats(r, n, out);
    out->calmar = out->max_drawdown == 0.0 ? NAN : out->annual_return / fabs(out->max_drawdown);
    if (n < 2) {
        out->annual_volatility = out->sharpe = out->sortino = NAN;
        return;
    }
    double sd = fc_std_ddof1(r, n);
    out->annual_volatility = sd * sqrt(ppy);
    out->sharpe = sd == 0.0 ? NAN : fc_mean(r, n) / sd * sqrt(ppy);
    out->sortino = sortino(r, n, ppy);
}
