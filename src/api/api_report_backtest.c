/* fcast_report_backtest_html: an equity curve and a trade log of `fcast
 * quant backtest` as one HTML page (`fcast report --equity`): the files
 * read and checked against each other, then the page written atomically
 * (report/report_backtest.h draws it). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/output_path.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "report/report_backtest.h"
#include "report/report_html.h"

#define DEFAULT_SERIES 4

typedef struct {
    fc_forecast_table equity;
    fc_trade_table trades;
    size_t *series;
    fc_backtest_page page;
} backtest_inputs;

static fc_status write_body(FILE *f, void *ctx) { return fc_report_write_backtest(f, ctx); }

static fc_status find_columns(const char *path, const fc_forecast_table *t, fc_backtest_page *p) {
    long e = fc_forecast_table_column(t, "equity"), pos = fc_forecast_table_column(t, "position");
    if (e < 0)
        return fc_error(FC_ERR_INVALID, "%s: no 'equity' column: expected the equity curve of fcast quant backtest "
                        "--equity (unique_id, ds, position, equity, ...)", path);
    p->equity_col = (size_t)e;
    p->position_col = pos < 0 ? (size_t)-1 : (size_t)pos;
    return FC_OK;
}

/* Every trade belongs to a series of the curve: a log of another run is a mistake. */
static fc_status check_trades(const fcast_backtest_report_request *r, const backtest_inputs *in) {
    for (size_t i = 0; i < in->trades.n_rows; i++) {
        const char *id = fc_trade_id(&in->trades, i);
        if (fc_forecast_table_series(&in->equity, id) < 0)
            return fc_error(FC_ERR_INVALID, "%s:%zu: a trade of series '%s', which %s lacks: the trade log and the "
                            "equity curve should come from the same backtest", r->trades, in->trades.line[i], id,
                            r->equity);
    }
    return FC_OK;
}

static fc_status report(const fcast_backtest_report_request *r, backtest_inputs *in) {
    if (!r || !r->equity) return fc_error(FC_ERR_INVALID, "fcast_report_backtest_html: the equity curve (--equity) is needed");
    if (!r->out) return fc_error(FC_ERR_INVALID, "fcast_report_backtest_html: --out is needed");
    const fc_path_use files[] = {
        {"--equity", r->equity, FCAST_PATH_IN, 0, NULL},
        {"--trades", r->trades, FCAST_PATH_IN, 0, NULL},
        {"--out", r->out, FCAST_PATH_OUT_STDOUT, 0, NULL},
    };
    FC_TRY(fc_paths_check(files, sizeof files / sizeof *files));   /* before any work */
    FC_TRY(fc_forecast_table_read(r->equity, &in->equity));
    in->page = (fc_backtest_page){.equity_path = r->equity, .trades_path = r->trades, .equity = &in->equity};
    FC_TRY(find_columns(r->equity, &in->equity, &in->page));
    FC_TRY(fc_report_pick_series(&in->equity, r->equity, r->series, DEFAULT_SERIES, &in->series, &in->page.n_series));
    in->page.series = in->series;
    if (r->trades) {
        FC_TRY(fc_trade_table_read(r->trades, &in->trades));
        in->page.trades = &in->trades;
        FC_TRY(check_trades(r, in));
    }
    return fc_write_file_atomic(r->out, write_body, &in->page);   /* "-": standard output */
}

fc_status fcast_report_backtest_html(const fcast_backtest_report_request *r) {
    backtest_inputs in;
    memset(&in, 0, sizeof in);
    fc_status st = report(r, &in);
    free(in.series);
    fc_trade_table_free(&in.trades);
    fc_forecast_table_free(&in.equity);
    return fc_api_words(st);
}
