/* fcast eval: accuracy of a model on a test file next to seasonal naive. */
#include <stdio.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "eval/evaluate.h"
#include "io/atomic_file.h"
#include "io/model_file.h"
#include "io/output_path.h"

typedef struct {
    const fc_eval_result *r;
    const char *name;
} result_ctx;

/* The table, as a body for fc_write_file_atomic (--out, standard output by
 * default). */
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

typedef struct {
    const char *model, *train, *test, *out, *device;
    size_t season, threads;
} eval_flags;

static int evaluate(const eval_flags *a) {
    fc_backend *be = NULL;
    fc_forecaster f = {0};
    fc_dataset *tr = NULL, *te = NULL;
    fc_eval_result r;
    const fc_input_path inputs[] = {{"--model", a->model}, {"--train", a->train}, {"--test", a->test}};
    fc_status st = fc_output_check("--out", a->out, 1, inputs, 3);   /* before any work */
    if (st == FC_OK) st = device_backend_open(a->device, a->threads, 0, &be);
    if (st == FC_OK) st = fc_forecaster_load(a->model, be, &f);
    if (st == FC_OK) st = fc_load_history(&f, a->train, NULL, &tr);
    if (st == FC_OK) st = fc_load_history(&f, a->test, &(fc_load_options){.keep_gaps = 1}, &te);
    if (st == FC_OK) st = fc_evaluate(&f, tr, te, a->season, &r);
    if (st == FC_OK)
        st = fc_write_file_atomic(a->out, write_result, &(result_ctx){&r, fc_model_kind_name(f.model->cfg.kind)});
    int rc = st == FC_OK ? 0 : cli_fail("eval");
    fc_dataset_free(&tr);
    fc_dataset_free(&te);
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    return rc;
}

int cmd_eval(int argc, char **argv, int first) {
    eval_flags a = {.season = 1, .out = "-", .device = "auto"};
    arg_spec specs[] = {
        {"model", ARG_STR, &a.model, "FILE", "model file written by fcast train", 1, 0},
        {"train", ARG_STR, &a.train, "FILE", "history the forecasts start from (long CSV)", 1, 0},
        {"test", ARG_STR, &a.test, "FILE", "actual values of the following points (long CSV)", 1, 0},
        {"season", ARG_SIZE, &a.season, "M", "seasonal period for seasonal naive and MASE (1)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"out", ARG_STR, &a.out, "FILE", "where the table goes (-, standard output)", 0, 0},
        {0},
    };
    int rc = args_parse("eval", "Score a model's forecasts against a test file: MAE, RMSE, sMAPE (M4) and MASE,\n"
                        "next to the seasonal-naive forecast.", specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return evaluate(&a);
}
