/* fcast predict: forecast the next h points of every series in a history
 * file with a trained model, written as neuralforecast's output CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "data/freq.h"
#include "eval/evaluate.h"
#include "io/forecast_csv.h"
#include "io/model_file.h"
#include "io/output_path.h"
#include "train/data_budget.h"
#include "train/conformal.h"
#include "train/memory_plan.h"

/* A series with nothing observed in its input window gets the model's answer
 * to zeros: plausible-looking numbers with no basis. Say so. */
static void warn_unobserved(const fc_dataset *ds, size_t L) {
    size_t count = 0, first = 0, since = 0;
    for (size_t i = 0; i < ds->n_series; i++) {
        size_t end = ds->offsets[i + 1], start = end - ds->offsets[i] > L ? end - L : ds->offsets[i], seen = 0;
        for (size_t r = start; r < end; r++) seen += ds->mask[r];
        if (!seen && !count++) first = i;
        fc_dataset_release_every(ds, &since, 1, FC_RELEASE_SERIES);   /* as the memory plan counts */
    }
    fc_dataset_release_pages(ds);
    if (count)
        fprintf(stderr, "fcast predict: warning: %zu series (the first is '%s') have no observed value in their "
                "last %zu points; their forecasts carry no information\n", count, ds->ids[first], L);
}

/* A series shorter than the input window is forecast from a window whose
 * front is padded with missing values: fewer points than the model was
 * trained on, which the user should know. One line, the first few ids. */
static void warn_short(const fc_dataset *ds, size_t L) {
    enum { SHOWN = 3 };
    size_t count = 0, used = 0;
    char ids[256] = "";
    for (size_t i = 0; i < ds->n_series; i++) {
        if (fc_dataset_len(ds, i) >= L) continue;
        if (count++ < SHOWN && used < sizeof ids)
            used += (size_t)snprintf(ids + used, sizeof ids - used, "%s'%s' (%zu)", count > 1 ? ", " : "",
                                     ds->ids[i], fc_dataset_len(ds, i));
    }
    if (count)
        fprintf(stderr, "fcast predict: warning: %zu series %s shorter than the input window of %zu points (%s%s); "
                "the missing points are padded and masked, so these forecasts rest on less history\n", count,
                count == 1 ? "is" : "are", L, ids, count > SHOWN ? ", ..." : "");
}

/* After loading: refuses a forecast whose memory plan passes the limit
 * (data whose loading alone would is refused before loading). */
static fc_status check_plan(const fc_forecaster *f, const fc_dataset *ds, fc_backend *be, size_t limit) {
    fc_memory_plan p;
    FC_TRY(fc_memory_plan_predict(f->model, ds, be, &p));
    return !limit || p.total <= limit ? FC_OK : fc_memory_plan_refusal(&p, limit, FC_PLAN_NO_BATCH_ADVICE);
}

typedef struct {
    const char *model, *data, *out, *limit_text, *data_store, *store_dir, *device, *level;
    size_t threads, limit;
    fc_data_store mode;
} predict_flags;

#define PREDICT_MAX_MODELS 16

/* One model of the call and its columns. */
typedef struct {
    fc_forecaster f;
    char name[32];
    size_t n_cols;
    char suffix_text[1 + 2 * FC_MAX_LEVELS][FC_LOSS_NAME_MAX];
    const char *suffixes[1 + 2 * FC_MAX_LEVELS];
    float *values;            /* (n_series, h, n_cols) */
} predict_model;

typedef struct {
    predict_model m[PREDICT_MAX_MODELS];
    size_t n_models;
    double levels[FC_MAX_LEVELS];
    size_t n_levels;
} predict_run;

/* Column names as neuralforecast's: the class name, then 1, 2, ... for
 * its second, third, ... model of the call; the suffixes of the model's
 * outputs (quantile losses), or with --level of a conformal model the
 * point column then its intervals. */
static fc_status name_columns(predict_run *r, size_t i) {
    predict_model *pm = &r->m[i];
    const fc_model_config *c = &pm->f.model->cfg;
    size_t before = 0;
    for (size_t j = 0; j < i; j++) before += r->m[j].f.model->cfg.kind == c->kind;
    snprintf(pm->name, sizeof pm->name, before ? "%s%zu" : "%s", fc_model_kind_name(c->kind), before);
    int quantiles = c->n_outputs > 1 || pm->f.loss.kind == FC_LOSS_QUANTILE;
    pm->n_cols = quantiles ? c->n_outputs : 1;
    for (size_t q = 0; q < pm->n_cols; q++) {
        pm->suffix_text[q][0] = 0;
        if (quantiles) fc_loss_output_name(&pm->f.loss, q, pm->suffix_text[q]);
    }
    if (r->n_levels && !quantiles) {
        if (!pm->f.conformal)
            return fc_error(FC_ERR_INVALID, "--level: %s was trained without --prediction-intervals conformal "
                            "(or a quantile loss), so it has no intervals", pm->name);
        char names[2 * FC_MAX_LEVELS][24];
        fc_conformal_suffixes(r->levels, r->n_levels, names);
        for (size_t j = 0; j < 2 * r->n_levels; j++) memcpy(pm->suffix_text[1 + j], names[j], sizeof names[j]);
        pm->n_cols = 1 + 2 * r->n_levels;
    } else if (r->n_levels) {
        fprintf(stderr, "fcast predict: note: %s was trained with --loss %s: its own quantile columns are written, "
                "whatever --level asks (as neuralforecast)\n", pm->name, fc_loss_name(pm->f.loss));
    }
    for (size_t q = 0; q < pm->n_cols; q++) pm->suffixes[q] = pm->suffix_text[q];
    return FC_OK;
}

/* A conformal model's point forecasts (N, h) become rows of the point
 * column and its intervals, looked up by each series' id. */
static fc_status add_intervals(const predict_run *r, predict_model *pm, const fc_dataset *ds, const float *point) {
    size_t h = pm->f.model->cfg.h, cols = pm->n_cols, w = 2 * r->n_levels;
    float *iv = fc_malloc(h * w * sizeof *iv, "intervals");
    if (!iv) return FC_ERR_MEMORY;
    for (size_t s = 0; s < ds->n_series; s++) {
        ssize_t k = fc_conformal_find(pm->f.conformal, ds->ids[s]);
        if (k < 0) {
            free(iv);
            return fc_error(FC_ERR_INVALID, "%s: series '%s' was not in %s's training data: it has no conformal "
                            "scores (they are fitted per series, as neuralforecast's)", ds->source, ds->ids[s],
                            pm->name);
        }
        fc_conformal_intervals(pm->f.conformal, (size_t)k, point + s * h, r->levels, r->n_levels, iv);
        for (size_t t = 0; t < h; t++) {
            float *row = pm->values + (s * h + t) * cols;
            row[0] = point[s * h + t];
            memcpy(row + 1, iv + t * w, w * sizeof *iv);
        }
    }
    free(iv);
    return FC_OK;
}

/* Every model's columns for every series of ds. */
static fc_status forecast_all(predict_run *r, const fc_dataset *ds) {
    for (size_t i = 0; i < r->n_models; i++) {
        predict_model *pm = &r->m[i];
        const fc_model_config *c = &pm->f.model->cfg;
        size_t N = ds->n_series, width = c->h * c->n_outputs;
        pm->values = fc_malloc((N ? N : 1) * c->h * pm->n_cols * sizeof(float), "forecasts");
        if (!pm->values) return FC_ERR_MEMORY;
        int intervals = pm->n_cols > c->n_outputs;
        float *fc = intervals ? fc_malloc((N ? N : 1) * width * sizeof(float), "forecasts") : pm->values;
        if (!fc) return FC_ERR_MEMORY;
        fc_status st = fc_predict(&pm->f, ds, fc);
        if (st == FC_OK && intervals) st = add_intervals(r, pm, ds, fc);
        if (intervals) free(fc);
        FC_TRY(st);
    }
    return FC_OK;
}

/* --model a.safetensors,b.safetensors: loaded side by side; one horizon
 * and one time axis, the first model's. */
static fc_status load_models(const predict_flags *a, fc_backend *be, predict_run *r) {
    char *list = strdup(a->model);
    if (!list) return fc_error(FC_ERR_MEMORY, "out of memory");
    fc_status st = FC_OK;
    for (char *save = NULL, *p = strtok_r(list, ",", &save); st == FC_OK && p; p = strtok_r(NULL, ",", &save)) {
        if (r->n_models == PREDICT_MAX_MODELS) {
            st = fc_error(FC_ERR_INVALID, "--model: at most %d models in one call", PREDICT_MAX_MODELS);
            break;
        }
        predict_model *pm = &r->m[r->n_models];
        st = fc_forecaster_load(p, be, &pm->f);
        if (st != FC_OK) break;
        r->n_models++;
        const fc_forecaster *first = &r->m[0].f;
        if (pm->f.model->cfg.h != first->model->cfg.h || pm->f.ds_kind != first->ds_kind ||
            strcmp(pm->f.freq.name, first->freq.name))
            st = fc_error(FC_ERR_INVALID, "--model %s: h = %zu, frequency %s; the first model has h = %zu, "
                          "frequency %s: models written side by side share both", p, pm->f.model->cfg.h,
                          pm->f.freq.name, first->model->cfg.h, first->freq.name);
        if (st == FC_OK) st = name_columns(r, r->n_models - 1);
    }
    free(list);
    if (st == FC_OK && !r->n_models) st = fc_error(FC_ERR_INVALID, "--model: no model file given");
    return st;
}

static fc_status write_forecasts(const predict_flags *a, const predict_run *r, const fc_dataset *ds) {
    fc_forecast_columns cols[PREDICT_MAX_MODELS];
    for (size_t i = 0; i < r->n_models; i++)
        cols[i] = (fc_forecast_columns){r->m[i].name, r->m[i].n_cols, r->m[i].suffixes, r->m[i].values};
    return fc_forecast_write_columns(a->out, ds, &r->m[0].f.freq, r->m[0].f.model->cfg.h, cols, r->n_models);
}

static fc_status check_plans(const predict_run *r, const fc_dataset *ds, fc_backend *be, size_t limit) {
    for (size_t i = 0; i < r->n_models; i++) FC_TRY(check_plan(&r->m[i].f, ds, be, limit));
    return FC_OK;
}

static int predict(const predict_flags *a) {
    fc_backend *be = NULL;
    fc_dataset *ds = NULL;
    predict_run *r = calloc(1, sizeof *r);
    const char *data = a->data, *out = a->out;
    size_t limit = a->limit;
    fc_load_options lo = {.drop_exog = 1, .store_dir = a->store_dir};
    fc_data_choice choice;
    const fc_input_path inputs[] = {{"--model", a->model}, {"--data", data}};
    fc_status st = r ? fc_output_check("--out", out, 1, inputs, 2) : FC_ERR_MEMORY;   /* before any work */
    if (st == FC_OK && a->level) st = fc_levels_parse(a->level, "--level", r->levels, &r->n_levels);
    if (st == FC_OK) st = device_backend_open(a->device, a->threads, 0, &be);
    if (st == FC_OK) st = fc_data_choose(data, &lo, a->mode, limit, &choice);
    if (st == FC_OK) fc_data_choice_print(&choice, &lo, limit, stderr);
    if (st == FC_OK) st = load_models(a, be, r);
    const fc_forecaster *f = st == FC_OK ? &r->m[0].f : NULL;
    if (st == FC_OK) st = fc_load_history(f, data, &lo, &ds);
    if (st == FC_OK) st = check_plans(r, ds, be, limit);
    if (st == FC_OK) st = fc_freq_check_future(ds, &f->freq, f->model->cfg.h);   /* every future ds writable */
    if (st == FC_OK) {
        for (size_t i = 0; i < r->n_models; i++) {
            warn_short(ds, r->m[i].f.model->cfg.input_size);
            warn_unobserved(ds, r->m[i].f.model->cfg.input_size);
        }
        st = forecast_all(r, ds);
    }
    if (st == FC_OK) st = write_forecasts(a, r, ds);
    if (st == FC_OK)
        fprintf(stderr, "%zu series x %zu steps of %zu model%s written to %s\n", ds->n_series, f->model->cfg.h,
                r->n_models, r->n_models > 1 ? "s" : "", strcmp(out, "-") ? out : "standard output");
    int rc = st == FC_OK ? 0 : cli_fail("predict");
    for (size_t i = 0; r && i < r->n_models; i++) {
        free(r->m[i].values);
        fc_forecaster_free(&r->m[i].f);
    }
    free(r);
    fc_dataset_free(&ds);
    fc_backend_destroy(&be);
    return rc;
}

int cmd_predict(int argc, char **argv, int first) {
    predict_flags a = {.device = "auto"};
    arg_spec specs[] = {
        {"model", ARG_STR, &a.model, "FILE", "model file written by fcast train; several separated by commas are "
                                             "written side by side (NHITS, NBEATS, NHITS1, ...)", 1, 0},
        {"data", ARG_STR, &a.data, "FILE", "history: long CSV with unique_id, ds, y", 1, 0},
        {"out", ARG_STR, &a.out, "FILE", "forecast CSV to write (unique_id, ds, <MODEL>); - for standard output", 1, 0},
        {"level", ARG_STR, &a.level, "L,...", "prediction intervals of conformal models: levels in (0, 100), e.g. "
                                              "80,95 (columns NHITS-lo-95 ... NHITS-hi-95)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"memory-limit", ARG_STR, &a.limit_text, "SIZE", "refuse a forecast whose memory plan exceeds SIZE (512MiB, 12GB)", 0, 0},
        {"data-store", ARG_STR, &a.data_store, "MODE", "auto | memory | stream (as in fcast train)", 0, 0},
        {"store-dir", ARG_STR, &a.store_dir, "DIR", "where a streamed data store goes ($TMPDIR, else /var/tmp)", 0, 0},
        {0},
    };
    int rc = args_parse("predict", "Forecast the next h points of every series from its last input_size points.",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if (fc_memory_limit_parse(a.limit_text, &a.limit) != FC_OK || fc_data_store_parse(a.data_store, &a.mode) != FC_OK)
        return cli_fail("predict");
    return predict(&a);
}
