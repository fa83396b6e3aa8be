/* fcast predict: forecast the next h points of every series in a history
 * file with trained models (or ensembles: io/ensemble_file.h), written as
 * neuralforecast's output CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "predict_exog.h"
#include "train_flags.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "data/freq.h"
#include "eval/evaluate.h"
#include "io/ensemble_file.h"
#include "io/forecast_csv.h"
#include "io/model_file.h"
#include "io/output_path.h"
#include "train/data_budget.h"
#include "train/conformal.h"
#include "train/forecast_columns.h"
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
    const char *futr_data, *stat_file;   /* exogenous inputs (predict_exog.h) */
    size_t threads, limit;
    int members;              /* --members: an ensemble's members' columns after its own */
    fc_data_store mode;
} predict_flags;

#define PREDICT_MAX_MODELS 16

/* One forecaster of the call and its columns: a model file's, or a member
 * of an ensemble file (whose columns are written only with --members). */
typedef struct {
    fc_forecaster f;
    int shown;                /* its columns are written */
    fc_column_set cols;       /* train/forecast_columns.h: as fcast serve names them */
    float *values;            /* (n_series, h, cols.n_cols) */
} predict_model;

/* One file of --model: a model (one forecaster) or an ensemble (its
 * members, combined into the column Ensemble). */
typedef struct {
    size_t first, n;          /* its forecasters: m[first .. first + n) */
    int ensemble;
    fc_combine combine;
    char name[32];            /* Ensemble, Ensemble1, ... */
    float *values;            /* (n_series, h): the combination */
} predict_file;

typedef struct {
    predict_model *m;
    size_t n_models, cap;
    predict_file files[PREDICT_MAX_MODELS];
    size_t n_files;
    double levels[FC_MAX_LEVELS];
    size_t n_levels;
    int members;
} predict_run;

/* Column names as neuralforecast's: the class name, then 1, 2, ... for
 * its second, third, ... model of the call (among the columns written),
 * then the columns of its outputs or intervals (train/forecast_columns.h).
 * An ensemble's member has its point column alone. */
static fc_status name_columns(predict_run *r, size_t i, int member) {
    predict_model *pm = &r->m[i];
    const fc_model_config *c = &pm->f.model->cfg;
    size_t before = 0;
    char name[32];
    for (size_t j = 0; j < i; j++) before += r->m[j].shown && r->m[j].f.model->cfg.kind == c->kind;
    snprintf(name, sizeof name, before ? "%s%zu" : "%s", fc_model_kind_name(c->kind), before);
    FC_TRY(fc_columns_of(&pm->f, name, r->levels, member ? 0 : r->n_levels, &pm->cols));
    if (pm->cols.levels_ignored)
        fprintf(stderr, "fcast predict: note: %s was trained with --loss %s: its own quantile columns are written, "
                "whatever --level asks (as neuralforecast)\n", name, fc_loss_name(pm->f.loss));
    return FC_OK;
}

/* An ensemble's column: its members' point forecasts combined per point. */
static fc_status combine_file(const predict_run *r, predict_file *pf, size_t points) {
    const float *values[FC_ENSEMBLE_MAX_MEMBERS];
    for (size_t k = 0; k < pf->n; k++) values[k] = r->m[pf->first + k].values;
    if (!(pf->values = fc_malloc((points ? points : 1) * sizeof(float), "ensemble forecasts"))) return FC_ERR_MEMORY;
    fc_ensemble_combine(pf->combine, values, pf->n, points, pf->values);
    return FC_OK;
}

/* Every model's columns for every series of ds, then the ensembles'.
 * ext, when not NULL, is ds with each series' future exogenous values
 * appended (h points): the models read their inputs from it. */
static fc_status forecast_all(predict_run *r, const fc_dataset *ds, const fc_dataset *ext) {
    for (size_t i = 0; i < r->n_models; i++) {
        predict_model *pm = &r->m[i];
        const fc_model_config *c = &pm->f.model->cfg;
        size_t N = ds->n_series, width = c->h * c->n_outputs;
        pm->values = fc_malloc((N ? N : 1) * c->h * pm->cols.n_cols * sizeof(float), "forecasts");
        if (!pm->values) return FC_ERR_MEMORY;
        int intervals = pm->cols.intervals;
        float *fc = intervals ? fc_malloc((N ? N : 1) * width * sizeof(float), "forecasts") : pm->values;
        if (!fc) return FC_ERR_MEMORY;
        fc_status st = ext ? fc_predict_before(&pm->f, ext, c->h, fc) : fc_predict(&pm->f, ds, fc);
        if (st == FC_OK && intervals) st = fc_columns_fill(&pm->f, &pm->cols, ds, fc, r->levels, r->n_levels, pm->values);
        if (intervals) free(fc);
        FC_TRY(st);
    }
    for (size_t i = 0; i < r->n_files; i++)
        if (r->files[i].ensemble) FC_TRY(combine_file(r, &r->files[i], ds->n_series * r->m[0].f.model->cfg.h));
    return FC_OK;
}

/* Room for n more forecasters. */
static fc_status reserve_models(predict_run *r, size_t n) {
    if (r->n_models + n <= r->cap) return FC_OK;
    size_t cap = r->cap ? 2 * r->cap : 16;
    while (cap < r->n_models + n) cap *= 2;
    predict_model *m = fc_realloc(r->m, cap * sizeof *m, "models");
    if (!m) return FC_ERR_MEMORY;
    memset(m + r->cap, 0, (cap - r->cap) * sizeof *m);
    r->m = m;
    r->cap = cap;
    return FC_OK;
}

/* An ensemble file's members become forecasters of the call, named after
 * the column Ensemble (Ensemble1, ... for the next ensembles). */
static fc_status add_ensemble(predict_run *r, const char *path, fc_backend *be, predict_file *pf) {
    fc_ensemble e;
    FC_TRY(fc_ensemble_load(path, be, &e));
    fc_status st = reserve_models(r, e.n);
    for (size_t k = 0; st == FC_OK && k < e.n; k++) {
        r->m[r->n_models] = (predict_model){.f = e.members[k], .shown = r->members};
        e.members[k] = (fc_forecaster){0};   /* owned by the run now */
        r->n_models++;
        pf->n++;
    }
    pf->combine = e.combine;
    fc_ensemble_free(&e);
    size_t before = 0;
    for (const predict_file *q = r->files; q < pf; q++) before += q->ensemble;
    pf->ensemble = 1;
    snprintf(pf->name, sizeof pf->name, before ? "Ensemble%zu" : "Ensemble", before);
    if (st == FC_OK && r->n_levels)
        st = fc_error(FC_ERR_INVALID, "--level: %s is an ensemble: its combined forecast has no intervals", path);
    return st;
}

static fc_status add_file(predict_run *r, const char *path, fc_backend *be) {
    if (r->n_files == PREDICT_MAX_MODELS)
        return fc_error(FC_ERR_INVALID, "--model: at most %d model files in one call", PREDICT_MAX_MODELS);
    predict_file *pf = &r->files[r->n_files++];
    pf->first = r->n_models;
    if (fc_ensemble_file_is(path)) return add_ensemble(r, path, be, pf);
    FC_TRY(reserve_models(r, 1));
    predict_model *pm = &r->m[r->n_models];
    FC_TRY(fc_forecaster_load(path, be, &pm->f));
    pm->shown = 1;
    r->n_models++;
    pf->n = 1;
    return FC_OK;
}

/* One horizon and one time axis for every forecaster: the first one's. */
static fc_status check_shared(const predict_run *r, const predict_file *pf, const char *path) {
    const fc_forecaster *first = &r->m[0].f;
    for (size_t i = pf->first; i < pf->first + pf->n; i++) {
        const fc_forecaster *f = &r->m[i].f;
        if (f->model->cfg.h != first->model->cfg.h || f->ds_kind != first->ds_kind ||
            strcmp(f->freq.name, first->freq.name))
            return fc_error(FC_ERR_INVALID, "--model %s: h = %zu, frequency %s; the first model has h = %zu, "
                            "frequency %s: models written side by side share both", path, f->model->cfg.h,
                            f->freq.name, first->model->cfg.h, first->freq.name);
    }
    return FC_OK;
}

/* --model a.safetensors,b.safetensors: loaded side by side; an ensemble
 * file among them brings its members. */
static fc_status load_models(const predict_flags *a, fc_backend *be, predict_run *r) {
    char *list = strdup(a->model);
    if (!list) return fc_error(FC_ERR_MEMORY, "out of memory");
    fc_status st = FC_OK;
    for (char *save = NULL, *p = strtok_r(list, ",", &save); st == FC_OK && p; p = strtok_r(NULL, ",", &save)) {
        st = add_file(r, p, be);
        const predict_file *pf = &r->files[r->n_files - 1];
        if (st == FC_OK) st = check_shared(r, pf, p);
        for (size_t i = pf->first; st == FC_OK && i < pf->first + pf->n; i++) st = name_columns(r, i, pf->ensemble);
    }
    free(list);
    if (st == FC_OK && !r->n_models) st = fc_error(FC_ERR_INVALID, "--model: no model file given");
    return st;
}

static fc_status write_forecasts(const predict_flags *a, const predict_run *r, const fc_dataset *ds) {
    static const char *const point[1] = {""};
    size_t n = 0;
    fc_forecast_columns *cols = fc_malloc((r->n_models + r->n_files) * sizeof *cols, "forecast columns");
    if (!cols) return FC_ERR_MEMORY;
    for (size_t f = 0; f < r->n_files; f++) {
        const predict_file *pf = &r->files[f];
        if (pf->ensemble) cols[n++] = (fc_forecast_columns){pf->name, 1, point, pf->values};
        for (size_t i = pf->first; i < pf->first + pf->n; i++)
            if (r->m[i].shown)
                cols[n++] = (fc_forecast_columns){r->m[i].cols.name, r->m[i].cols.n_cols, r->m[i].cols.suffixes,
                                                   r->m[i].values};
    }
    fc_status st = fc_forecast_write_columns(a->out, ds, &r->m[0].f.freq, r->m[0].f.model->cfg.h, cols, n);
    free(cols);
    return st;
}

static fc_status check_plans(const predict_run *r, const fc_dataset *ds, fc_backend *be, size_t limit) {
    for (size_t i = 0; i < r->n_models; i++) FC_TRY(check_plan(&r->m[i].f, ds, be, limit));
    return FC_OK;
}

/* The warnings about short or unobserved inputs, once per input size. */
static void warn_inputs(const predict_run *r, const fc_dataset *ds) {
    for (size_t i = 0; i < r->n_models; i++) {
        size_t L = r->m[i].f.model->cfg.input_size, seen = 0;
        for (size_t j = 0; j < i; j++) seen |= r->m[j].f.model->cfg.input_size == L;
        if (seen) continue;
        warn_short(ds, L);
        warn_unobserved(ds, L);
    }
}

/* The exogenous inputs all the models read, prepared on ds (and *ext). */
static fc_status prepare_exog(const predict_flags *a, const predict_run *r, fc_dataset *ds, fc_dataset **ext) {
    const fc_model_config *cfgs[PREDICT_MAX_MODELS * 8];
    size_t n = 0;
    for (size_t i = 0; i < r->n_models && n < sizeof cfgs / sizeof *cfgs; i++) cfgs[n++] = &r->m[i].f.model->cfg;
    fc_model_config u;
    predict_exog_union(cfgs, n, &u);
    predict_exog_files files = {a->data, a->stat_file, a->futr_data};
    return predict_exog_prepare(&files, &u, r->m[0].f.model->cfg.h, ds, ext);
}

/* Whether any model reads future or past columns of the history. */
static int keeps_columns(const predict_run *r) {
    for (size_t i = 0; i < r->n_models; i++)
        if (predict_exog_keep_columns(&r->m[i].f.model->cfg)) return 1;
    return 0;
}

static void run_free(predict_run *r) {
    for (size_t i = 0; i < r->n_models; i++) {
        free(r->m[i].values);
        fc_forecaster_free(&r->m[i].f);
    }
    for (size_t i = 0; i < r->n_files; i++) free(r->files[i].values);
    free(r->m);
    free(r);
}

static int predict(const predict_flags *a) {
    fc_backend *be = NULL;
    fc_dataset *ds = NULL, *ext = NULL;
    predict_run *r = calloc(1, sizeof *r);
    const char *data = a->data, *out = a->out;
    size_t limit = a->limit;
    fc_load_options lo = {.drop_exog = 1, .store_dir = a->store_dir};
    fc_data_choice choice;
    const fc_input_path inputs[] = {{"--model", a->model}, {"--data", data}, {"--futr-data", a->futr_data},
                                    {"--stat-exog-file", a->stat_file}};
    fc_status st = r ? fc_output_check("--out", out, 1, inputs, 4) : FC_ERR_MEMORY;   /* before any work */
    if (st == FC_OK) r->members = a->members;
    if (st == FC_OK && a->level) st = fc_levels_parse(a->level, "--level", r->levels, &r->n_levels);
    if (st == FC_OK) st = device_backend_open(a->device, a->threads, 0, &be);
    if (st == FC_OK) st = fc_data_choose(data, &lo, a->mode, limit, &choice);
    if (st == FC_OK) fc_data_choice_print(&choice, &lo, limit, stderr);
    if (st == FC_OK) st = load_models(a, be, r);
    const fc_forecaster *f = st == FC_OK ? &r->m[0].f : NULL;
    if (st == FC_OK) lo.drop_exog = !keeps_columns(r);
    if (st == FC_OK) st = fc_load_history(f, data, &lo, &ds);
    if (st == FC_OK) st = prepare_exog(a, r, ds, &ext);
    if (st == FC_OK) st = check_plans(r, ds, be, limit);
    if (st == FC_OK) st = fc_freq_check_future(ds, &f->freq, f->model->cfg.h);   /* every future ds writable */
    if (st == FC_OK) {
        warn_inputs(r, ds);
        st = forecast_all(r, ds, ext);
    }
    if (st == FC_OK) st = write_forecasts(a, r, ds);
    if (st == FC_OK)
        fprintf(stderr, "%zu series x %zu steps of %zu model%s written to %s\n", ds->n_series, f->model->cfg.h,
                r->n_files, r->n_files > 1 ? "s" : "", strcmp(out, "-") ? out : "standard output");
    int rc = st == FC_OK ? 0 : cli_fail("predict");
    if (r) run_free(r);
    fc_dataset_free(&ds);
    fc_dataset_free(&ext);
    fc_backend_destroy(&be);
    return rc;
}

int cmd_predict(int argc, char **argv, int first) {
    predict_flags a = {.device = "auto"};
    arg_spec specs[] = {
        {"model", ARG_STR, &a.model, "FILE", "model file written by fcast train or fcast ensemble; several separated "
                                             "by commas are written side by side (NHITS, NBEATS, NHITS1, ...; an "
                                             "ensemble as Ensemble)", 1, 0},
        {"data", ARG_STR, &a.data, "FILE", "history: long CSV with unique_id, ds, y", 1, 0},
        {"out", ARG_STR, &a.out, "FILE", "forecast CSV to write (unique_id, ds, <MODEL>); - for standard output", 1, 0},
        {"futr-data", ARG_STR, &a.futr_data, "FILE", "future values of the models' --futr-exog columns: CSV of "
                                                     "unique_id, ds and those columns over the h points after each "
                                                     "series' end (no y)", 0, 0},
        {"stat-exog-file", ARG_STR, &a.stat_file, "FILE", "static values of models trained with --stat-exog-file "
                                                          "(unique_id and one column per variable)", 0, 0},
        {"level", ARG_STR, &a.level, "L,...", "prediction intervals of conformal models: levels in (0, 100), e.g. "
                                              "80,95 (columns NHITS-lo-95 ... NHITS-hi-95)", 0, 0},
        {"members", ARG_FLAG, &a.members, NULL, "an ensemble's members' columns too, after its column Ensemble "
                                                "(NHITS, NHITS1, NBEATS, ...)", 0, 0},
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
