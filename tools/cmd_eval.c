/* fcast eval: scores of forecasts. Three inputs:
 *   --model M --train T --test X   forecasts made here by a trained model,
 *                                  next to seasonal naive (the first form);
 *   --cv FILE [--train T]          a cross-validation file (neuralforecast's
 *                                  cross_validation, fcast cv);
 *   --forecasts F --test X --train T   a forecast file (fcast predict) and
 *                                  the actual values.
 * The file forms score every model column, its intervals and quantiles,
 * beside Naive and SeasonalNaive baselines (docs/evaluation.md). */
#include <stdio.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "core/error.h"
#include "eval/evaluate.h"
#include "eval/score_summary.h"
#include "eval/score_write.h"
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
    const char *cv, *forecasts, *format, *freq;
    int per_series;
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
    if (st == FC_OK && fc_model_has_exog(&f.model->cfg))   /* its inputs over the test part are not at hand here */
        st = fc_error(FC_ERR_INVALID, "%s reads exogenous inputs: forecast with fcast predict (--futr-data, "
                      "--stat-exog-file) and score the file with fcast eval --forecasts", a->model);
    if (st == FC_OK) st = fc_load_history(&f, a->train, NULL, &tr);
    if (st == FC_OK) st = fc_load_history(&f, a->test, &(fc_load_options){.keep_gaps = 1, .drop_exog = 1}, &te);
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

/* Scores a cross-validation file (a->cv) or a forecast file with its
 * actuals (a->forecasts, a->test). */
static int score_file(const eval_flags *a, fc_score_format format) {
    fc_dataset *tr = NULL, *te = NULL;
    fc_score_table t = {0};
    fc_score_summary s = {0};
    const char *scored = a->cv ? a->cv : a->forecasts;
    const fc_input_path inputs[] = {{a->cv ? "--cv" : "--forecasts", scored}, {"--train", a->train},
                                    {"--test", a->test}};
    fc_status st = fc_output_check("--out", a->out, 1, inputs, 3);
    if (st == FC_OK && a->train) st = fc_dataset_open(a->train, &(fc_load_options){.freq = a->freq, .drop_exog = 1}, &tr);
    if (st == FC_OK && a->test)
        st = fc_dataset_open(a->test, &(fc_load_options){.drop_exog = 1, .keep_gaps = 1}, &te);
    if (st == FC_OK) st = fc_score_table_read(&(fc_score_input){scored, tr, te, a->season}, &t);
    if (st == FC_OK) st = fc_score_summarize(&t, tr, a->per_series, &s);
    if (st == FC_OK)
        st = fc_write_file_atomic(a->out, fc_score_write, &(fc_score_report){&t, &s, a->train, format});
    int rc = st == FC_OK ? 0 : cli_fail("eval");
    fc_score_summary_free(&s);
    fc_score_table_free(&t);
    fc_dataset_free(&tr);
    fc_dataset_free(&te);
    return rc;
}

static int usage(const char *what) {
    fprintf(stderr, "fcast eval: %s (see fcast eval --help)\n", what);
    return CLI_EXIT_USAGE;
}

/* Which input, and only the flags that go with it. */
static int dispatch(const eval_flags *a) {
    int inputs = (a->model != NULL) + (a->cv != NULL) + (a->forecasts != NULL);
    if (inputs != 1)
        return usage("give one of --model (with --train and --test), --cv, or --forecasts (with --test and --train)");
    if (a->season < 1) return usage("--season must be >= 1");
    int format = fc_score_format_parse(a->format);
    if (format < 0) return usage("--format must be table, csv or json");
    if (a->model) {
        if (!a->train || !a->test) return usage("--model needs --train and --test");
        if (a->per_series || a->freq || format != FC_SCORE_TABLE)
            return usage("--per-series, --freq and --format go with --cv or --forecasts, not --model");
        return evaluate(a);
    }
    if (a->cv && a->test) return usage("--test goes with --model or --forecasts; a --cv file holds its y");
    if (a->forecasts && (!a->test || !a->train))
        return usage("--forecasts needs --test (the actual values) and --train (the history: each series' cutoff)");
    if (a->freq && !a->train) return usage("--freq is the frequency of --train");
    return score_file(a, (fc_score_format)format);
}

int cmd_eval(int argc, char **argv, int first) {
    eval_flags a = {.season = 1, .out = "-", .device = "auto", .format = "table"};
    arg_spec specs[] = {
        {"model", ARG_STR, &a.model, "FILE", "model file written by fcast train: forecast here and score", 0, 0},
        {"cv", ARG_STR, &a.cv, "FILE", "cross-validation CSV to score (unique_id, ds, cutoff, y, models...)", 0, 0},
        {"forecasts", ARG_STR, &a.forecasts, "FILE", "forecast CSV to score (unique_id, ds, models...), with --test",
         0, 0},
        {"train", ARG_STR, &a.train, "FILE", "history (long CSV): the forecasts' start, MASE scale and baselines", 0, 0},
        {"test", ARG_STR, &a.test, "FILE", "actual values of the forecast points (long CSV)", 0, 0},
        {"season", ARG_SIZE, &a.season, "M", "seasonal period for seasonal naive and MASE (1)", 0, 0},
        {"freq", ARG_STR, &a.freq, "F", "frequency of --train with --cv / --forecasts (inferred)", 0, 0},
        {"format", ARG_STR, &a.format, "FMT", "with --cv / --forecasts: table, csv (long) or json (table)", 0, 0},
        {"per-series", ARG_FLAG, &a.per_series, NULL, "with --cv / --forecasts: scores of each series too", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads with --model (0 = all cores)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"out", ARG_STR, &a.out, "FILE", "where the scores go (-, standard output)", 0, 0},
        {0},
    };
    int rc = args_parse("eval", "Score forecasts: MAE, MSE, RMSE, sMAPE (0-200), MAPE (%), MASE; with intervals or\n"
                        "quantiles scaled CRPS, quantile loss and coverage; next to naive and seasonal naive.\n"
                        "  fcast eval --model M --train T --test X     forecast with a model, then score\n"
                        "  fcast eval --cv FILE [--train T]            score a cross-validation file\n"
                        "  fcast eval --forecasts F --test X --train T score a forecast file", specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return dispatch(&a);
}
