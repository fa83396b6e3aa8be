/* Signals for the portfolio backtester (backtest_sim.h), from any source,
 * over a grid of combinations x every series, in one pass (OpenMP over
 * (combination, series) pairs, each on its own scratch, so a cell equals
 * the combination run alone, bit for bit). */
#ifndef FC_QUANT_BACKTEST_SIGNAL_H
#define FC_QUANT_BACKTEST_SIGNAL_H

#include <stddef.h>
#include "fcast/status.h"
#include "quant/backtest.h"
#include "quant/backtest_rule_expr.h"
#include "quant/backtest_sim.h"

/* Writes the signal of combination `combo` on series `series` (n closes)
 * into signal[0 .. n); scratch holds 3 n doubles. Must not fail on input
 * the caller checked: it runs on worker threads. */
typedef fc_status (*fc_bt_signal_fn)(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                                     double *scratch, double *signal);

typedef struct {
    fc_bt_signal_fn fn;
    const void *ctx;
    size_t n_combos;
} fc_bt_source;

/* Built-in rules (backtest.h): ctx is an fc_bt_rule_source. */
typedef struct {
    const fc_rule_params *combos;
    int allow_short;
} fc_bt_rule_source;
fc_status fc_bt_rule_signal(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                            double *scratch, double *signal);

/* Given positions, one combination: ctx is an fc_bt_given_source. */
typedef struct {
    const double *const *positions;   /* (n_series) each series' signal */
} fc_bt_given_source;
fc_status fc_bt_given_signal(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                             double *scratch, double *signal);

/* Forecast thresholds: at bar t the forecast return f_t (NaN: none, flat)
 * gives long when f_t > long_above, short when f_t < short_below and
 * allow_short, else flat. Combinations: every (long_above, short_below)
 * pair, short_below varying fastest. */
typedef struct {
    const double *const *forecast_return;   /* (n_series) per bar */
    const double *long_above, *short_below;
    size_t n_long, n_short;
    int allow_short;
} fc_bt_forecast_source;
fc_status fc_bt_forecast_signal(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                                double *scratch, double *signal);

/* A rule as text (backtest_rule_expr.h) over its grid: each operand's
 * values precomputed per instance, values[series][base[k] + instance]
 * (the series' bars); number operands need none. */
typedef struct {
    const fc_rule_expr *expr;
    const fc_rx_grid *grid;
    const double *const *const *values;  /* (n_series) -> (instances of all operands) -> bars */
    const size_t *base;                  /* (n_operands) first instance of each operand */
    int allow_short;
} fc_bt_expr_source;
fc_status fc_bt_expr_signal(const void *ctx, size_t combo, size_t series, const double *close, size_t n,
                            double *scratch, double *signal);

/* The metrics of every combination on every series: out is (n_combos,
 * n_series) row-major; closes checked (> 0, finite, n >= 1), ids (may be
 * NULL) name the series in messages. */
fc_status fc_bt_run_grid(const fc_bt_source *src, const fc_bt_config *c, const double *const *close,
                         const size_t *len, const char *const *ids, size_t n_series, fc_bt_stats *out);

/* One combination on one series with its details (backtest_sim.h). */
fc_status fc_bt_run_one(const fc_bt_source *src, size_t combo, size_t series, const fc_bt_config *c,
                        const double *close, size_t n, fc_bt_stats *out, const fc_bt_detail *detail);

#endif
