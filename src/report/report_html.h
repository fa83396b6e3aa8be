/* fcast report: one self-contained HTML page about a training run (loss and
 * validation curves, learning rate, loss scale, throughput, memory against
 * the plan and the limit, where the time went) and, optionally, forecasts
 * against actuals. Charts are inline SVG and the page loads nothing, so it
 * opens offline, from a mail attachment or a CI artefact. */
#ifndef FC_REPORT_REPORT_HTML_H
#define FC_REPORT_REPORT_HTML_H

#include <stdio.h>
#include "data/dataset.h"
#include "report/forecast_table.h"
#include "report/run_log.h"

typedef struct {
    const char *log_path;
    const fc_run_log *log;
    const char *forecasts_path, *actuals_path;
    const fc_forecast_table *forecasts;  /* NULL: no forecast section */
    const fc_dataset *actuals;           /* NULL: forecasts drawn alone */
    const size_t *series;                /* (n_series) indexes into forecasts->series */
    size_t n_series;
} fc_report;

/* Writes the page. Returns FC_ERR_MEMORY if a temporary could not be
 * allocated; write errors are left to the stream (ferror). */
fc_status fc_report_write_html(FILE *f, const fc_report *r);

/* The series to draw: the comma-separated unique_ids in `list`, or the
 * first `default_count` of table t (read from `path`) when list is NULL or
 * empty. An id t lacks is FC_ERR_INVALID naming it. *out is malloc'ed. */
fc_status fc_report_pick_series(const fc_forecast_table *t, const char *path, const char *list, size_t default_count,
                                size_t **out, size_t *n);

/* Actuals must use the forecasts' kind of ds (dates with dates). */
fc_status fc_report_check_actuals(const fc_forecast_table *t, const char *t_path, const fc_dataset *a);

/* The forecast section alone (report_forecasts.c). */
fc_status fc_report_write_forecasts(FILE *f, const fc_report *r);

#endif
