/* fcast report: a training run log (and optionally forecasts against
 * actuals) as one self-contained HTML page. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "io/atomic_file.h"
#include "io/output_path.h"
#include "report/report_html.h"

#define DEFAULT_SERIES 4

static fc_status write_body(FILE *f, void *ctx) { return fc_report_write_html(f, ctx); }

typedef struct {
    const char *log, *forecasts, *actuals, *series, *out;
} report_args;

static int report(const report_args *a) {
    fc_run_log log;
    fc_forecast_table fc = {0};
    fc_dataset *act = NULL;
    fc_report r = {.log_path = a->log, .log = &log, .forecasts_path = a->forecasts, .actuals_path = a->actuals};
    size_t *series = NULL;
    const fc_input_path inputs[] = {{"--log", a->log}, {"--forecasts", a->forecasts}, {"--actuals", a->actuals}};
    fc_status st = fc_output_check("--out", a->out, 1, inputs, 3);   /* before any work */
    if (st == FC_OK) st = fc_run_log_read(a->log, &log);
    if (st != FC_OK) return cli_fail("report");
    if (a->forecasts) {
        st = fc_forecast_table_read(a->forecasts, &fc);
        if (st == FC_OK) st = fc_report_pick_series(&fc, a->series, DEFAULT_SERIES, &series, &r.n_series);
        if (st == FC_OK && a->actuals)
            st = fc_dataset_load_csv(a->actuals, &(fc_load_options){.keep_gaps = 1, .drop_exog = 1}, &act);
        if (st == FC_OK && act) st = fc_report_check_actuals(&fc, a->forecasts, act);
        r.forecasts = &fc;
        r.actuals = act;
        r.series = series;
    }
    if (st == FC_OK) st = fc_write_file_atomic(a->out, write_body, &r);   /* "-": standard output */
    int rc = st == FC_OK ? 0 : cli_fail("report");
    free(series);
    fc_dataset_free(&act);
    fc_forecast_table_free(&fc);
    fc_run_log_free(&log);
    return rc;
}

int cmd_report(int argc, char **argv, int first) {
    report_args a = {0};
    /* The run log comes first, without a flag: fcast report run.jsonl ... */
    if (first < argc && strncmp(argv[first], "-", 1) != 0) a.log = argv[first++];
    arg_spec specs[] = {
        {"log", ARG_STR, &a.log, "FILE", "run log of fcast train --log-file (or give it first, without the flag)", 0, 0},
        {"forecasts", ARG_STR, &a.forecasts, "FILE", "forecast CSV of fcast predict (unique_id,ds,<MODEL>[,intervals])", 0, 0},
        {"actuals", ARG_STR, &a.actuals, "FILE", "actual values (long CSV unique_id,ds,y) drawn under the forecasts", 0, 0},
        {"series", ARG_STR, &a.series, "IDS", "comma-separated unique_ids to draw (the first 4 of the forecasts)", 0, 0},
        {"out", ARG_STR, &a.out, "FILE", "HTML file to write, - for stdout", 1, 0},
        {0},
    };
    const char *summary = "One self-contained HTML page about a training run: loss and validation curves,\n"
                          "learning rate, loss scale, throughput, memory against the plan and the limit, the\n"
                          "phase breakdown, and forecasts against actuals. Charts are inline SVG; the page\n"
                          "loads nothing from the network.\n"
                          "usage: fcast report RUN.jsonl [--forecasts F.csv [--actuals A.csv] [--series a,b]] --out R.html";
    int rc = args_parse("report", summary, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if (!a.log) { fprintf(stderr, "fcast report: the run log is missing: fcast report RUN.jsonl --out R.html\n"); return 2; }
    if (a.actuals && !a.forecasts) {
        fprintf(stderr, "fcast report: --actuals needs --forecasts (the actuals are drawn under the forecasts)\n");
        return 2;
    }
    if (a.series && !a.forecasts) { fprintf(stderr, "fcast report: --series needs --forecasts\n"); return 2; }
    return report(&a);
}
