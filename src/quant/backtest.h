/* A trading rule evaluated over a full parameter grid and many symbols in
 * one pass (OpenMP over (combination, symbol) pairs). Rules, timing and
 * costs are described in kernels/quant_backtest.h: positions decided on the
 * close of bar t earn the return of bar t+1 (no look-ahead); costs are
 * `cost_bps` basis points of equity per unit of turnover.
 *
 * Metrics per (combination, symbol), over the n-1 bar returns of a series
 * of n closes: total return; CAGR with 252 bars a year; Sharpe (risk.h:
 * ddof 1, sqrt(252), NaN if the strategy never moves); maximum drawdown
 * (negative); trades opened; hit rate = the fraction of closed trades whose
 * return (costs included) is positive (NaN when none closed; a trade still
 * open at the last bar is not counted). */
#ifndef FC_QUANT_BACKTEST_H
#define FC_QUANT_BACKTEST_H

#include <stddef.h>
#include "fcast/status.h"

typedef enum { FC_RULE_SMA_CROSS = 0, FC_RULE_RSI, FC_RULE_BBANDS } fc_rule_kind;

#define FC_RULE_MAX_PARAMS 3

typedef struct {
    fc_rule_kind rule;
    /* sma-cross: fast, slow; rsi: period, lower, upper; bbands: period, k */
    double p[FC_RULE_MAX_PARAMS];
} fc_rule_params;

typedef struct {
    double cost_bps;
    int allow_short;
} fc_bt_options;

typedef struct {
    double total_return, cagr, sharpe, max_drawdown, hit_rate;
    size_t trades, closed_trades;
} fc_bt_metrics;

/* "sma-cross", "rsi", "bbands". */
const char *fc_rule_name(fc_rule_kind k);
fc_status fc_rule_parse(const char *name, fc_rule_kind *out);
/* Number of parameters and their names (the CLI flags without "--"). */
size_t fc_rule_param_count(fc_rule_kind k);
const char *fc_rule_param_name(fc_rule_kind k, size_t i);
/* Parameters that must be whole numbers (periods). */
int fc_rule_param_is_integer(fc_rule_kind k, size_t i);

/* 0 for combinations a grid skips silently: fast >= slow, lower >= upper. */
int fc_rule_is_valid_combination(const fc_rule_params *p);

/* Checks each parameter on its own (periods >= 1, RSI thresholds within
 * [0, 100], k > 0) and against a series of n points (periods <= n).
 * Messages name the flag and, when given, the series. */
fc_status fc_rule_check(const fc_rule_params *p, size_t n, const char *series);

/* The Cartesian product of one range per parameter of `rule` (ranges[i]
 * for fc_rule_param_name(rule, i)), without the invalid combinations, whose
 * number goes to *skipped. *out is allocated (free() it). */
struct fc_range;
fc_status fc_rule_grid_build(fc_rule_kind rule, const struct fc_range *ranges, fc_rule_params **out,
                             size_t *n_combos, size_t *skipped);

/* One combination on one series of n >= 2 closes (all > 0). */
fc_status fc_backtest_run(const fc_rule_params *p, const fc_bt_options *o, const double *close, size_t n,
                          fc_bt_metrics *out);

/* The rule's positions (-1, 0, 1) bar by bar on n closes, those the
 * engine above trades, for the portfolio backtester (backtest_signal.h);
 * scratch holds 3 n doubles. The combination must have been checked. */
fc_status fc_rule_positions(const fc_rule_params *p, int allow_short, const double *close, size_t n,
                            double *scratch, double *positions);

/* Every combination on every series: out is (n_combos, n_series) row-major.
 * `ids` (optional) name the series in messages. Invalid combinations must
 * have been removed by the caller (fc_rule_is_valid_combination). */
fc_status fc_backtest_grid(const fc_rule_params *combos, size_t n_combos, const fc_bt_options *o,
                           const double *const *close, const size_t *len, const char *const *ids,
                           size_t n_series, fc_bt_metrics *out);

#endif
