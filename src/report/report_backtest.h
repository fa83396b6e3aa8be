/* The backtest page of fcast report: for each chosen series of an equity
 * curve (`fcast quant backtest --equity`), a summary table, the equity
 * curve, its drawdowns below the running peak, the position held and, from
 * the trade log (--trades), the series' trades. Self-contained HTML with
 * inline SVG, like the training report (report_html.h). */
#ifndef FC_REPORT_REPORT_BACKTEST_H
#define FC_REPORT_REPORT_BACKTEST_H

#include <stdio.h>
#include "report/forecast_table.h"
#include "report/trade_table.h"

typedef struct {
    const char *equity_path, *trades_path;
    const fc_forecast_table *equity;   /* unique_id, ds and value columns, `equity` among them */
    size_t equity_col, position_col;   /* position_col == (size_t)-1: no position column */
    const fc_trade_table *trades;      /* NULL: no trade log */
    const size_t *series;              /* (n_series) indexes into equity->series */
    size_t n_series;
} fc_backtest_page;

/* The drawdown of each point below the running peak of the equity before
 * it, dd_t = e_t / max_{s<=t} e_s - 1 (<= 0; NaN where e_t is missing);
 * returns the longest run of consecutive points below a peak. */
size_t fc_drawdown_series(const double *equity, size_t n, double *dd);

fc_status fc_report_write_backtest(FILE *f, const fc_backtest_page *p);

#endif
