/* fcast_report_html: a run log (and forecasts against actuals) as one
 * HTML page (`fcast report`): the inputs read, checked against each other,
 * then the page written atomically (report/report_html.h draws it). */
#include <stdio.h>
#include <stdlib.h>

#include "api/api.h"
#include "core/error.h"
#include "io/atomic_file.h"
#include "api/output_path.h"
#include "report/report_html.h"

#define DEFAULT_SERIES 4

typedef struct {
    fc_run_log log;
    int log_read;
    fc_forecast_table forecasts;
    fc_dataset *actuals;
    size_t *series;
    fc_report page;
} report_inputs;

static fc_status write_body(FILE *f, void *ctx) { return fc_report_write_html(f, ctx); }

/* The combinations the page cannot draw, before any file is touched. */
static fc_status check_request(const fcast_report_request *r) {
    if (!r || !r->log) return fc_error(FC_ERR_INVALID, "fcast_report_html: the run log (--log) is needed");
    if (!r->out) return fc_error(FC_ERR_INVALID, "fcast_report_html: --out is needed");
    if (r->actuals && !r->forecasts)
        return fc_error(FC_ERR_INVALID, "--actuals needs --forecasts (the actuals are drawn under the forecasts)");
    if (r->series && !r->forecasts) return fc_error(FC_ERR_INVALID, "--series needs --forecasts");
    return FC_OK;
}

/* The forecasts, the series to draw and the actuals under them. */
static fc_status read_forecasts(const fcast_report_request *r, report_inputs *in) {
    FC_TRY(fc_forecast_table_read(r->forecasts, &in->forecasts));
    in->page.forecasts = &in->forecasts;
    FC_TRY(fc_report_pick_series(&in->forecasts, r->forecasts, r->series, DEFAULT_SERIES, &in->series, &in->page.n_series));
    in->page.series = in->series;
    if (!r->actuals) return FC_OK;
    FC_TRY(fc_dataset_load_csv(r->actuals, &(fc_load_options){.keep_gaps = 1, .drop_exog = 1}, &in->actuals));
    in->page.actuals = in->actuals;
    return fc_report_check_actuals(&in->forecasts, r->forecasts, in->actuals);
}

static fc_status report(const fcast_report_request *r, report_inputs *in) {
    FC_TRY(check_request(r));
    const fc_path_use files[] = {
        {"--log", r->log, FCAST_PATH_IN, 0, NULL},
        {"--forecasts", r->forecasts, FCAST_PATH_IN, 0, NULL},
        {"--actuals", r->actuals, FCAST_PATH_IN, 0, NULL},
        {"--out", r->out, FCAST_PATH_OUT_STDOUT, 0, NULL},
    };
    FC_TRY(fc_paths_check(files, sizeof files / sizeof *files));   /* before any work */
    FC_TRY(fc_run_log_read(r->log, &in->log));
    in->log_read = 1;
    in->page = (fc_report){.log_path = r->log, .log = &in->log, .forecasts_path = r->forecasts,
                           .actuals_path = r->actuals};
    if (r->forecasts) FC_TRY(read_forecasts(r, in));
    return fc_write_file_atomic(r->out, write_body, &in->page);   /* "-": standard output */
}

fc_status fcast_report_html(const fcast_report_request *r) {
    report_inputs in = {0};
    fc_status st = report(r, &in);
    free(in.series);
    fc_dataset_free(&in.actuals);
    fc_forecast_table_free(&in.forecasts);
    if (in.log_read) fc_run_log_free(&in.log);
    return fc_api_words(st);
}
