/* The portfolio backtester: a signal (a target position per bar, a
 * fraction of equity in [-1, 1]) traded in a cash account with fees,
 * slippage, sizing and stops, and measured as vectorbt measures it.
 *
 * Timing, with no look-ahead: signal[t] is decided on the close of bar t
 * and traded at that close (kernels/quant_backtest_account.h), so the
 * position earns the move from close t to close t+1. An order is sent at
 * bar t only when the target differs from the previous bar's (bar 0: from
 * flat) by more than vectorbt's tolerance (1e-9 relative, 1e-12 absolute);
 * between orders the shares are held (not rebalanced).
 *
 * The target of bar t is signal[t] x size fraction x the volatility scale
 * (when vol_target > 0: min(max_leverage, vol_target / (std(r) sqrt(ppy)))
 * over the last vol_window close-to-close returns up to t, ddof 1; 0 until
 * vol_window returns exist; max_leverage when they do not move), then the
 * stops: a position entered at close c_e is closed at the first later close
 * where its return c/c_e - 1 (negated when short) is <= -stop_loss or >=
 * take_profit, and stays flat until the signal changes.
 *
 * Metrics over the n returns r_0 = E_0 / capital - 1, r_t = E_t / E_{t-1}
 * - 1 of the equity E_t after the close of bar t (vectorbt's
 * Portfolio.returns()), with ppy periods a year: see fc_bt_stats. */
#ifndef FC_QUANT_BACKTEST_SIM_H
#define FC_QUANT_BACKTEST_SIM_H

#include <stddef.h>
#include "fcast/status.h"
#include "kernels/quant_backtest_account.h"

typedef struct {
    double cost_bps;          /* fees per traded value, basis points */
    double slippage_bps;      /* fill price moved against the trade, basis points */
    double fixed_cost;        /* currency per order */
    double capital;           /* starting cash */
    double size_fraction;     /* scale of every target */
    double vol_target;        /* annualised; 0: off */
    size_t vol_window;
    double max_leverage;
    double stop_loss, take_profit;   /* relative to the entry close; 0: off */
    double periods_per_year;
} fc_bt_config;

/* 1e6 capital, fraction 1, window 20, leverage 1, 252 periods a year. */
fc_bt_config fc_bt_config_default(void);
/* Each field in range; messages name the CLI's flags. */
fc_status fc_bt_config_check(const fc_bt_config *c);

typedef struct {
    double total_return, annual_return, annual_volatility, sharpe, sortino, calmar;
    double max_drawdown;          /* <= 0 */
    size_t max_drawdown_bars;     /* longest run of bars below the running peak */
    double turnover;              /* sum of traded value / equity before each order */
    double hit_rate;              /* closed trades with pnl > 0 / closed trades; NaN when none */
    size_t trades, closed_trades; /* positions opened (an open one included), closed */
    double end_equity;
} fc_bt_stats;

/* Why a trade ended. */
typedef enum { FC_BT_EXIT_SIGNAL = 0, FC_BT_EXIT_STOP_LOSS, FC_BT_EXIT_TAKE_PROFIT, FC_BT_EXIT_OPEN } fc_bt_exit;
const char *fc_bt_exit_name(fc_bt_exit e);

typedef struct {
    fc_bt_trade_rec t;
    fc_bt_exit reason;
} fc_bt_trade;

/* Where one run writes its details; any pointer may be NULL. Arrays have
 * n entries; trades grow (realloc) with *n_trades and *cap_trades. */
typedef struct {
    double *position;   /* exposure after the close: shares x close / equity */
    double *equity, *drawdown, *returns;
    fc_bt_trade **trades;
    size_t *n_trades, *cap_trades;
} fc_bt_detail;

/* Scratch doubles one run needs for a series of n bars. */
size_t fc_bt_scratch_size(size_t n);

/* One signal on one series of n >= 1 closes (> 0, finite); signal values
 * in [-1, 1] or NaN (no position: flat). scratch: fc_bt_scratch_size(n). */
fc_status fc_bt_simulate(const double *close, const double *signal, size_t n, const fc_bt_config *c,
                         double *scratch, fc_bt_stats *out, const fc_bt_detail *detail);

/* The metrics of n returns of an equity curve that started at 1 (also
 * used alone: the tests feed them vectorbt's returns). */
void fc_bt_stats_from_returns(const double *r, size_t n, double ppy, fc_bt_stats *out);

/* The targets of fc_bt_simulate from a signal (sizing and stops): out and
 * reason (fc_bt_exit per bar, a stop's) each n. */
void fc_bt_targets(const double *close, const double *signal, size_t n, const fc_bt_config *c, double *out,
                   unsigned char *reason);

#endif
