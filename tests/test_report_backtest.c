/* The backtest report's drawdowns (report_backtest.h) against values
 * computed by hand, and the page against its inputs: sections, counts,
 * escaping. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "report/report_backtest.h"

static void drawdown_by_hand(void) {
    /* peaks 1, 1.2 (bar 1), 1.3 (bar 5); a missing point breaks nothing */
    const double eq[] = {1.0, 1.2, 0.9, NAN, 1.08, 1.3, 1.3, 1.17};
    const double want[] = {0, 0, 0.9 / 1.2 - 1, NAN, 1.08 / 1.2 - 1, 0, 0, 1.17 / 1.3 - 1};
    double dd[8];
    size_t longest = fc_drawdown_series(eq, 8, dd);
    for (int i = 0; i < 8; i++) {
        if (isnan(want[i])) CHECK(isnan(dd[i]));
        else CHECK_CLOSE(dd[i], want[i], 1e-15, 0);
    }
    CHECK(longest == 2);   /* bars 2 and 4 below the 1.2 peak (the NaN not counted) */
    const double flat[] = {2, 2, 2};
    CHECK(fc_drawdown_series(flat, 3, dd) == 0 && dd[2] == 0);
    const double leading_nan[] = {NAN, 5, 4};
    fc_drawdown_series(leading_nan, 3, dd);
    CHECK(isnan(dd[0]) && dd[1] == 0 && fabs(dd[2] + 0.2) < 1e-15);
}

static char *page_of(const fc_backtest_page *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(fc_report_write_backtest(f, p) == FC_OK);
    fclose(f);
    return buf;
}

static void page_from_tables(void) {
    const char *eq = "unique_id,ds,position,equity\nA,2021-03-01,0,100\nA,2021-03-02,1,110\nA,2021-03-03,1,99\n"
                     "<b>,2021-03-01,0,1\n<b>,2021-03-02,-0.5,1\n";
    const char *tr = "unique_id,entry_ds,exit_ds,return,exit_reason\nA,2021-03-01,2021-03-02,0.1,signal\n"
                     "A,2021-03-02,2021-03-03,-0.1,stop-loss\nA,2021-03-03,,0.2,open\n<b>,2021-03-01,,,\n";
    fc_forecast_table t;
    fc_trade_table trades;
    CHECK(fc_forecast_table_parse("eq.csv", eq, strlen(eq), &t) == FC_OK);
    CHECK(fc_trade_table_parse("tr.csv", tr, strlen(tr), &trades) == FC_OK);
    /* open: marked to the last close (exit_reason open), or without a return */
    CHECK(trades.n_rows == 4 && trades.ret[2] == 0.2 && trades.open[2] && isnan(trades.ret[3]) && trades.open[3]);
    CHECK(!trades.open[0] && !trades.open[1] && trades.line[1] == 3);
    size_t series[] = {0, 1};
    fc_backtest_page p = {.equity_path = "eq.csv", .trades_path = "tr.csv", .equity = &t, .equity_col = 1,
                          .position_col = 0, .trades = &trades, .series = series, .n_series = 2};
    char *html = page_of(&p);
    CHECK_CONTAINS(html, "<h2>A</h2>");
    CHECK_CONTAINS(html, "<h2>&lt;b&gt;</h2>");        /* ids escaped */
    CHECK(strstr(html, "<b>") == NULL);
    CHECK_CONTAINS(html, "-10.00 %");                  /* 99 / 110 - 1 */
    CHECK_CONTAINS(html, "total return</td><td>-1.00 %");
    CHECK_CONTAINS(html, "3 (2 closed)");
    CHECK_CONTAINS(html, "50.0 %");                    /* one of two closed trades gained; the open one not counted */
    CHECK_CONTAINS(html, "stop-loss");
    CHECK_CONTAINS(html, "1 (0 closed)");              /* <b>'s trade, open */
    free(html);
    fc_trade_table_free(&trades);
    fc_forecast_table_free(&t);
}

static void bad_trade_logs(void) {
    fc_trade_table t;
    const char *no_return = "unique_id,pnl\nA,1\n";
    CHECK(fc_trade_table_parse("t.csv", no_return, strlen(no_return), &t) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "t.csv:1: the header should name unique_id and return");
    const char *text_return = "unique_id,return\nA,0.1\nA,big\n";
    CHECK(fc_trade_table_parse("t.csv", text_return, strlen(text_return), &t) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "t.csv:3: column 'return': 'big' is not a finite number");
    const char *short_row = "unique_id,return,x\nA,0.1\n";
    CHECK(fc_trade_table_parse("t.csv", short_row, strlen(short_row), &t) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "t.csv:2: 2 fields; the header has 3");
}

int main(void) {
    drawdown_by_hand();
    page_from_tables();
    bad_trade_logs();
    printf("%d checks, %d failures\n", check_count, check_failures);
    return check_failures != 0;
}
