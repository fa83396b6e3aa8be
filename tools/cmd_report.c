/* fcast report: a training run log (and optionally forecasts against
 * actuals) as one self-contained HTML page, through the library
 * (fcast_report_html); the flags are the request's fields. */
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "cli.h"

int cmd_report(int argc, char **argv, int first) {
    fcast_report_request a = {0};
    /* The run log comes first, without a flag: fcast report run.jsonl ... */
    int leading = first < argc && strncmp(argv[first], "-", 1) != 0;
    if (leading) a.log = argv[first++];
    arg_spec specs[] = {
        {"log", ARG_IN, &a.log, "FILE", "run log of fcast train --log-file (or give it first, without the flag)", 0, 0},
        {"forecasts", ARG_IN, &a.forecasts, "FILE", "forecast CSV of fcast predict (unique_id,ds,<MODEL>[,intervals])", 0, 0},
        {"actuals", ARG_IN, &a.actuals, "FILE", "actual values (long CSV unique_id,ds,y) drawn under the forecasts", 0, 0},
        {"series", ARG_STR, &a.series, "IDS", "comma-separated unique_ids to draw (the first 4 of the forecasts)", 0, 0},
        {"out", ARG_OUT, &a.out, "FILE", "HTML file to write, - for stdout", 1, 0},
        {0},
    };
    const char *summary = "One self-contained HTML page about a training run: loss and validation curves,\n"
                          "learning rate, loss scale, throughput, memory against the plan and the limit, the\n"
                          "phase breakdown, and forecasts against actuals. Charts are inline SVG; the page\n"
                          "loads nothing from the network.\n"
                          "usage: fcast report RUN.jsonl [--forecasts F.csv [--actuals A.csv] [--series a,b]] --out R.html";
    specs[0].seen = leading ? ARG_FROM_POSITION : 0;   /* the messages name it as it was given */
    int rc = args_parse("report", summary, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    /* usage errors (exit 2), said before the library would refuse them */
    if (leading && (specs[0].seen & (ARG_FROM_ARGV | ARG_FROM_FILE)))
        return cli_refuse("report", CLI_EXIT_USAGE, "the run log is given twice: first, and with --log");
    if (!a.log) { fprintf(stderr, "fcast report: the run log is missing: fcast report RUN.jsonl --out R.html\n"); return 2; }
    if (a.actuals && !a.forecasts) {
        fprintf(stderr, "fcast report: --actuals needs --forecasts (the actuals are drawn under the forecasts)\n");
        return 2;
    }
    if (a.series && !a.forecasts) { fprintf(stderr, "fcast report: --series needs --forecasts\n"); return 2; }
    return fcast_report_html(&a) == FC_OK ? CLI_EXIT_OK : cli_fail("report");
}
