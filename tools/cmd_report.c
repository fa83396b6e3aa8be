/* fcast report: a training run log (and optionally forecasts against
 * actuals) as one self-contained HTML page, through the library
 * (fcast_report_html); the flags are the request's fields. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"

/* fcast report --equity EQ.csv [--trades T.csv]: the backtest page. */
static int backtest_report(const fcast_report_request *a, const char *equity, const char *trades) {
    if (a->log || a->forecasts || a->actuals)
        return cli_refuse("report", CLI_EXIT_USAGE, "--equity draws a backtest; a run log, --forecasts and --actuals "
                          "belong to a training report: one page each");
    fcast_backtest_report_request b = {.equity = equity, .trades = trades, .series = a->series, .out = a->out};
    return fcast_report_backtest_html(&b) == FC_OK ? CLI_EXIT_OK : cli_fail("report");
}

int cmd_report(int argc, char **argv, int first) {
    fcast_report_request a = {0};
    const char *equity = NULL, *trades = NULL;
    /* The run log comes first, without a flag: fcast report run.jsonl ... */
    int leading = first < argc && strncmp(argv[first], "-", 1) != 0;
    if (leading) a.log = argv[first++];
    arg_spec specs[] = {
        {"log", ARG_IN, &a.log, "FILE", "run log of fcast train --log-file (or give it first, without the flag)", 0, 0},
        {"forecasts", ARG_IN, &a.forecasts, "FILE", "forecast CSV of fcast predict (unique_id,ds,<MODEL>[,intervals])", 0, 0},
        {"actuals", ARG_IN, &a.actuals, "FILE", "actual values (long CSV unique_id,ds,y) drawn under the forecasts", 0, 0},
        {"series", ARG_STR, &a.series, "IDS", "comma-separated unique_ids to draw (the first 4 of the forecasts or the equity curve)", 0, 0},
        {"equity", ARG_IN, &equity, "FILE", "equity curve of fcast quant backtest --equity: a backtest page instead of a run's", 0, 0},
        {"trades", ARG_IN, &trades, "FILE", "trade log of fcast quant backtest --trades, listed under the equity curve", 0, 0},
        {"out", ARG_OUT, &a.out, "FILE", "HTML file to write, - for stdout", 1, 0},
        {0},
    };
    const char *summary = "One self-contained HTML page about a training run: loss and validation curves,\n"
                          "learning rate, loss scale, throughput, memory against the plan and the limit, the\n"
                          "phase breakdown, and forecasts against actuals. Charts are inline SVG; the page\n"
                          "loads nothing from the network.\n"
                          "A backtest's page instead: its equity curve, drawdowns, position and trades.\n"
                          "usage: fcast report RUN.jsonl [--forecasts F.csv [--actuals A.csv] [--series a,b]] --out R.html\n"
                          "       fcast report --equity EQUITY.csv [--trades TRADES.csv] [--series a,b] --out R.html";
    specs[0].seen = leading ? ARG_FROM_POSITION : 0;   /* the messages name it as it was given */
    int rc = args_parse("report", summary, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    /* usage errors (exit 2), said before the library would refuse them */
    if (leading && (specs[0].seen & (ARG_FROM_ARGV | ARG_FROM_FILE)))
        return cli_refuse("report", CLI_EXIT_USAGE, "the run log is given twice: first, and with --log");
    if (equity || trades) {
        if (!equity) { fprintf(stderr, "fcast report: --trades needs --equity (the trades are listed under the curve)\n"); return 2; }
        return backtest_report(&a, equity, trades);
    }
    if (!a.log) { fprintf(stderr, "fcast report: the run log is missing: fcast report RUN.jsonl --out R.html\n"); return 2; }
    if (a.actuals && !a.forecasts) {
        fprintf(stderr, "fcast report: --actuals needs --forecasts (the actuals are drawn under the forecasts)\n");
        return 2;
    }
    if (a.series && !a.forecasts) { fprintf(stderr, "fcast report: --series needs --forecasts\n"); return 2; }
    return fcast_report_html(&a) == FC_OK ? CLI_EXIT_OK : cli_fail("report");
}
