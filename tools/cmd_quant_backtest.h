/* fcast quant backtest's flags, shared by its two engines: the portfolio
 * backtester (cmd_quant_backtest_portfolio.c), which runs by default, and
 * the compact rule grid of earlier releases (cmd_quant_backtest.c), which
 * runs only when asked for by --compact: one engine per run, chosen by the
 * user, never by which other flags happen to be given. */
#ifndef FC_TOOLS_CMD_QUANT_BACKTEST_H
#define FC_TOOLS_CMD_QUANT_BACKTEST_H

#include <stddef.h>
#include "args.h"
#include "fcast.h"

enum { F_FAST, F_SLOW, F_PERIOD, F_LOWER, F_UPPER, F_K, F_COUNT };

typedef struct {
    const char *data, *rule, *out;
    const char *ranges[F_COUNT];
    double cost_bps;
    int allow_short;
    size_t top;
    /* the portfolio engine's */
    int compact, json;
    const char *signal, *signal_column, *forecast, *model, *long_above, *short_below, *size, *combination;
    const char *trades, *equity;
    size_t horizon, vol_window;
    double slippage_bps, fixed_cost, capital, vol_target, max_leverage, stop_loss, take_profit, periods_per_year;
} backtest_args;

/* Shared with the compact engine (cmd_quant_backtest.c): a library failure
 * with its parameter names written as flags; a built-in rule's grid from
 * its range flags; the bounds on one run. 0, or the exit code. */
int backtest_fail(const fcast_table *t);
int backtest_build_grid(const char *rule_name, const char *const *text, const arg_spec *specs, fcast_grid **grid);
int backtest_check_size(size_t n, const fcast_table *t);

/* The first flag given that only the portfolio engine reads ("--json"),
 * "--rule" for a rule written as text, or NULL: what --compact refuses. */
const char *backtest_portfolio_flag(const backtest_args *a, const arg_spec *specs);

/* The portfolio engine's run: 0, or the exit code after the message. */
int backtest_portfolio_run(const backtest_args *a, const arg_spec *specs);

#endif
