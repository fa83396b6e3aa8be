/* struct fcast_signal (fcast.h), shared by the files that build it
 * (api_backtest_signal.c, api_backtest_files.c) and the one that runs it
 * (api_backtest_portfolio.c). */
#ifndef FC_API_API_BACKTEST_SIGNAL_H
#define FC_API_API_BACKTEST_SIGNAL_H

#include "fcast.h"
#include "quant/backtest.h"
#include "quant/backtest_rule_expr.h"

typedef enum { FC_SIG_GRID, FC_SIG_POSITIONS, FC_SIG_FORECAST, FC_SIG_RULE } fc_signal_kind;

struct fcast_signal {
    fc_signal_kind kind;
    size_t n_combos, n_params;
    const char *param_names[FC_RX_MAX_PARAMS];
    double *params;              /* (n_combos, n_params) */
    fc_rule_params *combos;      /* GRID */
    int allow_short;
    size_t n_rows;               /* POSITIONS, FORECAST: the layout's rows */
    double *rows;                /* POSITIONS: the position; FORECAST: the forecast return */
    double *long_above, *short_below;   /* FORECAST: the thresholds */
    size_t n_long, n_short;
    char *model;
    fc_rule_expr *expr;          /* RULE: the parsed text, its grid, and each operand's values */
    fc_rx_grid *grid;
    size_t n_arrays;             /* RULE: operand instances, each n_rows values */
    double **arrays;
    size_t base[FC_RX_MAX_OPERANDS];
};

/* The row arrays the layout carries for s: RULE's operand values, or the
 * one array of POSITIONS and FORECAST; none for GRID. */
size_t fc_api_signal_arrays(const fcast_signal *s, double *const **arrays);

/* An empty signal of `kind` (calloc'd), or NULL with the error set. */
fcast_signal *fc_api_signal_new(const char *fn, fc_signal_kind kind);

#endif
