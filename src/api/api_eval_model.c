/* fcast_eval_file's model form: the model forecasts the h points after
 * each series of --train, scored against --test next to seasonal naive,
 * as a table of four metrics. */
#include <stdio.h>

#include "api/api.h"
#include "api/api_eval.h"
#include "core/error.h"
#include "eval/evaluate.h"
#include "io/atomic_file.h"
#include "train/model_file.h"
#include "api/output_path.h"

typedef struct {
    const fc_eval_result *r;
    const char *name;
} result_ctx;

/* The table, as a body for fc_write_file_atomic. */
static fc_status write_result(FILE *f, void *ctx) {
    const fc_eval_result *r = ((const result_ctx *)ctx)->r;
    char naive[48];
    snprintf(naive, sizeof naive, "SeasonalNaive(%zu)", r->season);
    fprintf(f, "%-8s %14s %18s %8s\n", "metric", ((const result_ctx *)ctx)->name, naive, "ratio");
    const char *names[4] = {"MAE", "RMSE", "sMAPE", "MASE"};
    double a[4] = {r->model.mae, r->model.rmse, r->model.smape, r->model.mase};
    double b[4] = {r->naive.mae, r->naive.rmse, r->naive.smape, r->naive.mase};
    for (int i = 0; i < 4; i++) fprintf(f, "%-8s %14.4f %18.4f %8.3f\n", names[i], a[i], b[i], a[i] / b[i]);
    fprintf(f, "%zu points over %zu series", r->model.points, r->model.series);
    if (r->model.mase_skipped) fprintf(f, " (%zu series without seasonal variation left out of MASE)", r->model.mase_skipped);
    if (r->test_rows_outside) fprintf(f, "; %zu test rows beyond the horizon ignored", r->test_rows_outside);
    fprintf(f, "\n");
    return FC_OK;
}

/* Its inputs over the test part are not at hand here. */
static fc_status refuse_exog(const fc_forecaster *f, const char *path) {
    if (!fc_model_has_exog(&f->model->cfg)) return FC_OK;
    return fc_error(FC_ERR_INVALID, "%s reads exogenous inputs: forecast with fcast predict (--futr-data, "
                    "--stat-exog-file) and score the file with fcast eval --forecasts", path);
}

fc_status fc_api_eval_model(const fcast_eval_request *a) {
    fc_backend *be = NULL;
    fc_forecaster f = {0};
    fc_dataset *tr = NULL, *te = NULL;
    fc_eval_result r;
    const char *out = a->out ? a->out : "-";
    const fc_path_use files[] = {
        {"--model", a->model, FCAST_PATH_IN, 0, NULL},
        {"--train", a->train, FCAST_PATH_IN, 0, NULL},
        {"--test", a->test, FCAST_PATH_IN, 0, NULL},
        {"--out", out, FCAST_PATH_OUT_STDOUT, 0, NULL},
    };
    fc_status st = fc_paths_check(files, sizeof files / sizeof *files);   /* before any work */
    if (st == FC_OK) st = fc_api_backend_open(a->device, a->threads, a->verbose, &be);
    if (st == FC_OK) st = fc_forecaster_load(a->model, be, &f);
    if (st == FC_OK) st = refuse_exog(&f, a->model);
    if (st == FC_OK) st = fc_load_history(&f, a->train, NULL, &tr);
    if (st == FC_OK) st = fc_load_history(&f, a->test, &(fc_load_options){.keep_gaps = 1, .drop_exog = 1}, &te);
    if (st == FC_OK) st = fc_evaluate(&f, tr, te, a->season, &r);
    if (st == FC_OK) st = fc_write_file_atomic(out, write_result, &(result_ctx){&r, fc_model_kind_name(f.model->cfg.kind)});
    fc_dataset_free(&tr);
    fc_dataset_free(&te);
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    return st;
}
