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
 * Needs n >= 1; volatility, Sharpe and Sortino need n >= 2 (else NaN).
 * The mean and the two-pass standard deviation are risk.h's (fc_mean,
 * fc_std_ddof1) fused with the other sums; its Sharpe and Sortino hold
 * 252 periods a year, these take ppy. */
#include <math.h>
#include "quant/backtest_sim.h"

/* One pass for what needs one: the growth, the sum, the downside squares
 * and the drawdown. A bar's drawdown w / peak - 1 is divided out only when
 * it may be a new worst (w below peak (1 + worst), loosened by 1e-12 so
 * that rounding cannot skip the bar that is): one division per new low,
 * not per bar. */
typedef struct {
    double growth, sum, down_sq, worst;
    size_t longest;
} one_pass;

static one_pass scan(const double *r, size_t n) {
    one_pass o = {1.0, 0.0, 0.0, 0.0, 0};
    double peak = -INFINITY;
    size_t run = 0;
    for (size_t t = 0; t < n; t++) {
        o.growth *= 1.0 + r[t];
        o.sum += r[t];
        if (r[t] < 0.0) o.down_sq += r[t] * r[t];
        if (o.growth >= peak) {
            peak = o.growth;
            run = 0;
            continue;
        }
        if (++run > o.longest) o.longest = run;
        if (o.growth < peak * (1.0 + o.worst) * (1.0 + 1e-12)) {
            double dd = o.growth / peak - 1.0;
            if (dd < o.worst) o.worst = dd;
        }
    }
    return o;
}

/* The ddof-1 standard deviation about a known mean (the second pass). */
static double std_about(const double *r, size_t n, double mean) {
    double s = 0.0;
    for (size_t t = 0; t < n; t++) s += (r[t] - mean) * (r[t] - mean);
    return sqrt(s / (double)(n - 1));
}

void fc_bt_stats_from_returns(const double *r, size_t n, double ppy, fc_bt_stats *out) {
    const one_pass o = scan(r, n);
    out->total_return = o.growth - 1.0;
    out->annual_return = n ? pow(o.growth, ppy / (double)n) - 1.0 : NAN;
    out->max_drawdown = o.worst;
    out->max_drawdown_bars = o.longest;
    out->calmar = o.worst == 0.0 ? NAN : out->annual_return / fabs(o.worst);
    if (n < 2) {
        out->annual_volatility = out->sharpe = out->sortino = NAN;
        return;
    }
    const double mean = o.sum / (double)n, sd = std_about(r, n, mean), risk = sqrt(o.down_sq / (double)n) * sqrt(ppy);
    out->annual_volatility = sd * sqrt(ppy);
    out->sharpe = sd == 0.0 ? NAN : mean / sd * sqrt(ppy);
    out->sortino = risk == 0.0 ? INFINITY : mean * ppy / risk;
}
