/* Per-bar bodies of the backtester, shared by the CPU loop
 * (src/quant/backtest.c, one OpenMP task per (combination, symbol)) and a
 * future CUDA kernel (one thread per (combination, symbol)).
 *
 * Timing, with no look-ahead: the position p_t is decided on the close of
 * bar t from data up to t, held over bar t+1, and earns r_{t+1} =
 * c_{t+1}/c_t - 1. Trading from p_{t-1} to p_t at the close of t costs
 * cost * |p_t - p_{t-1}| of equity (cost = bps / 10^4 per unit of turnover):
 *   equity_t = equity_{t-1} (1 + p_{t-1} r_t) (1 - cost |p_t - p_{t-1}|).
 * A trade opens when the position becomes non-zero or flips sign, and
 * closes when it goes back to zero or flips; its return compounds its entry
 * cost, the bars it is held and its exit cost (a flip's cost 2*cost is
 * split between the trade closed and the trade opened). Indicators are NaN
 * before their lookback: no position is taken there. */
#ifndef FC_KERNELS_QUANT_BACKTEST_H
#define FC_KERNELS_QUANT_BACKTEST_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

/* Dual moving-average crossover: long while the fast average is above the
 * slow one; below it, short (allow_short) or flat. */
FC_HD int fc_bt_sma_cross(double fast, double slow, int allow_short) {
    if (isnan(fast) || isnan(slow)) return 0;
    if (fast > slow) return 1;
    return allow_short ? -1 : 0;
}

/* RSI thresholds (mean reversion): enter long below `lower`; above `upper`
 * exit the long (or go short, allow_short); in between keep the position. */
FC_HD int fc_bt_rsi(double rsi, double lower, double upper, int prev, int allow_short) {
    if (isnan(rsi)) return 0;
    if (rsi < lower) return 1;
    if (rsi > upper) return allow_short ? -1 : 0;
    return prev;
}

/* Bollinger mean reversion: enter long on a close below the lower band,
 * short (allow_short) above the upper band; leave when the close crosses
 * back to the middle band. */
FC_HD int fc_bt_bbands(double close, double upper, double middle, double lower, int prev, int allow_short) {
    if (isnan(upper) || isnan(middle) || isnan(lower)) return 0;
    int p = prev;
    if (p > 0 && close >= middle) p = 0;
    if (p < 0 && close <= middle) p = 0;
    if (close < lower) p = 1;
    else if (allow_short && close > upper) p = -1;
    return p;
}

typedef struct {
    double equity;        /* starts at 1 */
    double trade_growth;  /* growth factor of the open trade */
    double pending;       /* cost factor of the trade at bar 0, folded into bar 1 */
    int pos;              /* position held after the last close */
    size_t trades, closed, wins;
} fc_bt_state;

FC_HD void fc_bt_state_init(fc_bt_state *s) {
    s->equity = 1.0;
    s->trade_growth = 1.0;
    s->pending = 1.0;
    s->pos = 0;
    s->trades = s->closed = s->wins = 0;
}

/* Books the trade from s->pos to p at a close; returns the equity cost factor. */
FC_HD double fc_bt_trade(fc_bt_state *s, int p, double cost) {
    if (p == s->pos) return 1.0;
    if (s->pos != 0) {
        s->trade_growth *= 1.0 - cost * fabs((double)s->pos);
        s->closed++;
        s->wins += s->trade_growth > 1.0;
    }
    if (p != 0) {
        s->trades++;
        s->trade_growth = 1.0 - cost * fabs((double)p);
    }
    double factor = 1.0 - cost * fabs((double)(p - s->pos));
    s->pos = p;
    return factor;
}

/* Bar 0: only a trade (there is no return before the first close). */
FC_HD void fc_bt_first(fc_bt_state *s, int p, double cost) { s->pending = fc_bt_trade(s, p, cost); }

/* Bar t >= 1 with return r = c_t / c_{t-1} - 1 and new position p; returns
 * the strategy's net return over the bar. */
FC_HD double fc_bt_step(fc_bt_state *s, double r, int p, double cost) {
    double gross = 1.0 + (double)s->pos * r;
    if (s->pos != 0) s->trade_growth *= gross;
    double factor = gross * fc_bt_trade(s, p, cost) * s->pending;
    s->pending = 1.0;
    s->equity *= factor;
    return factor - 1.0;
}

#endif
