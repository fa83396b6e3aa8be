/* fcast eval: accuracy of a model on a test file next to seasonal naive. */
#include <stdio.h>

#include "args.h"
#include "cli.h"
#include "eval/evaluate.h"
#include "io/model_file.h"

static void print_result(const fc_eval_result *r, const char *name) {
    char naive[48];
    snprintf(naive, sizeof naive, "SeasonalNaive(%zu)", r->season);
    printf("%-8s %14s %18s %8s\n", "metric", name, naive, "ratio");
    const char *names[4] = {"MAE", "RMSE", "sMAPE", "MASE"};
    double a[4] = {r->model.mae, r->model.rmse, r->model.smape, r->model.mase};
    double b[4] = {r->naive.mae, r->naive.rmse, r->naive.smape, r->naive.mase};
    for (int i = 0; i < 4; i++) printf("%-8s %14.4f %18.4f %8.3f\n", names[i], a[i], b[i], a[i] / b[i]);
    printf("%zu points over %zu series", r->model.points, r->model.series);
    if (r->model.mase_skipped) printf(" (%zu series without seasonal variation left out of MASE)", r->model.mase_skipped);
    if (r->test_rows_outside) printf("; %zu test rows beyond the horizon ignored", r->test_rows_outside);
    printf("\n");
}

static int evaluate(const char *model_path, const char *train, const char *test, size_t season, size_t threads) {
    fc_backend *be = NULL;
    fc_forecaster f = {0};
    fc_dataset *tr = NULL, *te = NULL;
    fc_eval_result r;
    fc_status st = fc_backend_cpu_create((int)(threads > 100000 ? 100000 : threads), &be);
    if (st == FC_OK) st = fc_forecaster_load(model_path, be, &f);
    if (st == FC_OK) st = fc_load_history(&f, train, NULL, &tr);
    if (st == FC_OK) st = fc_load_history(&f, test, &(fc_load_options){.keep_gaps = 1}, &te);
    if (st == FC_OK) st = fc_evaluate(&f, tr, te, season, &r);
    if (st == FC_OK) print_result(&r, fc_model_kind_name(f.model->cfg.kind));
    int rc = st == FC_OK ? 0 : cli_fail("eval");
    fc_dataset_free(&tr);
    fc_dataset_free(&te);
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    return rc;
}

int cmd_eval(int argc, char **argv, int first) {
    const char *model = NULL, *train = NULL, *test = NULL;
    size_t season = 1, threads = 0;
    arg_spec specs[] = {
        {"model", ARG_STR, &model, "FILE", "model file written by fcast train", 1, 0},
        {"train", ARG_STR, &train, "FILE", "history the forecasts start from (long CSV)", 1, 0},
        {"test", ARG_STR, &test, "FILE", "actual values of the following points (long CSV)", 1, 0},
        {"season", ARG_SIZE, &season, "M", "seasonal period for seasonal naive and MASE (1)", 0, 0},
        {"threads", ARG_SIZE, &threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {0},
    };
    int rc = args_parse("eval", "Score a model's forecasts against a test file: MAE, RMSE, sMAPE (M4) and MASE,\n"
                        "next to the seasonal-naive forecast.", specs, argc, argv, first);
    if (rc) return rc == 1 ? 0 : 2;
    return evaluate(model, train, test, season, threads);
}
