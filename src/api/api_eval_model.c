/* fcast_eval_file's model form: the model (or an ensemble file's
 * combination of its members) forecasts the h points after each series of
 * --train, scored against --test next to seasonal naive, as a table of
 * four metrics. */
#include <stdio.h>

#include "api/api.h"
#include "api/api_eval.h"
#include "core/error.h"
#include "eval/evaluate.h"
#include "io/atomic_file.h"
#include "train/ensemble_file.h"
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

/* The file's forecasters: a model file's one, or an ensemble file's
 * members (fcast ensemble), scored on their combination. */
static fc_status load_models(const char *path, fc_backend *be, fc_ensemble *e, int *ensemble) {
    *ensemble = fc_ensemble_file_is(path);
    if (*ensemble) FC_TRY(fc_ensemble_load(path, be, e));
    else {
        if (!(e->members = fc_calloc(1, sizeof *e->members, "a model"))) return FC_ERR_MEMORY;
        FC_TRY(fc_forecaster_load(path, be, &e->members[0]));
        e->n = 1;
    }
    for (size_t k = 0; k < e->n; k++) FC_TRY(refuse_exog(&e->members[k], path));
    return FC_OK;
}

/* The scores of the model (or the ensemble's combination, its column
 * Ensemble in fcast predict's file) on the test rows. */
static fc_status evaluate(fc_ensemble *e, int ensemble, const fc_dataset *tr, const fc_dataset *te, size_t season,
                          fc_eval_result *r) {
    return ensemble ? fc_evaluate_ensemble(e, tr, te, season, r) : fc_evaluate(&e->members[0], tr, te, season, r);
}

fc_status fc_api_eval_model(const fcast_eval_request *a) {
    fc_backend *be = NULL;
    fc_ensemble e = {0};
    int ensemble = 0;
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
    if (st == FC_OK) st = load_models(a->model, be, &e, &ensemble);
    const fc_forecaster *f = e.n ? &e.members[0] : NULL;   /* the horizon and time axis, shared by members */
    if (st == FC_OK) st = fc_load_history(f, a->train, NULL, &tr);
    if (st == FC_OK) st = fc_load_history(f, a->test, &(fc_load_options){.keep_gaps = 1, .drop_exog = 1}, &te);
    if (st == FC_OK) st = evaluate(&e, ensemble, tr, te, a->season, &r);
    const char *name = ensemble ? "Ensemble" : f ? fc_model_kind_name(f->model->cfg.kind) : "";
    if (st == FC_OK) st = fc_write_file_atomic(out, write_result, &(result_ctx){&r, name});
    fc_dataset_free(&tr);
    fc_dataset_free(&te);
    fc_ensemble_free(&e);
    fc_backend_destroy(&be);
    return st;
}
