/* fcast cv: cross-validation as neuralforecast's NeuralForecast.
 * cross_validation, for one or several architectures side by side
 * (--model nhits,nbeats), written as its output CSV (io/cv_csv.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "core/error.h"
#include "device_choice.h"
#include "io/cv_csv.h"
#include "io/output_path.h"
#include "train/cross_validation.h"
#include "train/memory_plan.h"
#include "train_flags.h"

#define CV_MAX_MODELS 8

static const char *SUMMARY =
    "Cross-validate one or several models (--model nhits,nbeats) over n-windows forecast origins per series,\n"
    "as neuralforecast's cross_validation: writes unique_id, ds, cutoff, <models>, y.";

typedef struct {
    train_flags t;
    size_t n_windows, step_size, refit;
} cv_flags;

/* One architecture of the run: what its flags resolve to and its column. */
typedef struct {
    train_setup su;
    char name[32];
    const char *suffixes[FC_MAX_QUANTILES];
    float *values;
} cv_model;

typedef struct {
    cv_model *m;
    fc_backend *be;
    int quiet;
    size_t fits;
} fit_ctx;

/* Refuses, before the model is built, a training whose plan passes the limit. */
static fc_status check_memory(const train_setup *su, const fc_dataset *ds, fc_backend *be) {
    if (!su->memory_limit) return FC_OK;
    fc_model *planned = NULL;
    fc_memory_plan p;
    FC_TRY(fc_model_plan(&su->cfg, &planned));
    fc_status st = fc_memory_plan_train(planned, ds, &su->o, be, &p);
    fc_model_free(&planned);
    if (st == FC_OK && p.total > su->memory_limit) st = fc_memory_plan_refusal(&p, su->memory_limit, FC_PLAN_NO_BATCH_ADVICE);
    return st;
}

static fc_status fit_one(void *vctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fit_ctx *c = vctx;
    train_setup *su = &c->m->su;
    fc_train_summary sum;
    su->o.test_size = test_size;
    FC_TRY(fc_train_check(ds, &su->cfg, &su->o));
    FC_TRY(check_memory(su, ds, c->be));
    *f = (fc_forecaster){.scaler = su->scaler, .loss = su->loss, .ds_kind = ds->ds_kind, .freq = ds->freq};
    FC_TRY(fc_model_create(&su->cfg, c->be, &f->model));
    FC_TRY(fc_model_init_params(f->model, su->o.seed));
    FC_TRY(fc_train(f, ds, &su->o, &sum));
    c->fits++;
    if (!c->quiet)
        fprintf(stderr, "cv: %s trained on all but the last %zu points of every series: %zu steps in %.1f s\n",
                c->m->name, test_size, sum.steps, sum.seconds);
    return FC_OK;
}

/* Column names as neuralforecast's _get_model_names: the class name, with
 * 1, 2, ... appended to its second, third, ... occurrence. */
static void name_models(cv_model *m, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const char *base = fc_model_kind_name(m[i].su.kind);
        size_t before = 0;
        for (size_t j = 0; j < i; j++) before += m[j].su.kind == m[i].su.kind;
        if (before) snprintf(m[i].name, sizeof m[i].name, "%s%zu", base, before);
        else snprintf(m[i].name, sizeof m[i].name, "%s", base);
        for (size_t q = 0; q < FC_MAX_QUANTILES; q++) m[i].suffixes[q] = "";
    }
}

/* --model a,b,c: each resolved with the same flags. */
static int resolve_models(const cv_flags *a, cv_model *m, size_t *n) {
    char list[256];
    if (strlen(a->t.model) >= sizeof list) {
        fprintf(stderr, "fcast cv: --model '%s' is too long\n", a->t.model);
        return CLI_EXIT_USAGE;
    }
    strcpy(list, a->t.model);
    *n = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (*n == CV_MAX_MODELS) {
            fprintf(stderr, "fcast cv: at most %d models in one run\n", CV_MAX_MODELS);
            return CLI_EXIT_USAGE;
        }
        train_flags one = a->t;
        one.model = name;
        int rc = train_flags_resolve("cv", &one, &m[*n].su);
        if (rc) return rc == 2 ? CLI_EXIT_USAGE : cli_fail("cv");
        if (m[*n].su.auto_batch) {
            fprintf(stderr, "fcast cv: --windows-batch-size auto is for fcast train; give a number\n");
            return CLI_EXIT_USAGE;
        }
        m[*n].su.o.verbose = 0;
        (*n)++;
    }
    if (!*n) {
        fprintf(stderr, "fcast cv: --model needs at least one of nhits, nbeats, mlp\n");
        return CLI_EXIT_USAGE;
    }
    name_models(m, *n);
    return 0;
}

static fc_status run_models(const cv_flags *a, cv_model *m, size_t n_models, const fc_dataset *ds, fc_backend *be,
                            const fc_cv_origin *o, size_t n) {
    for (size_t i = 0; i < n_models; i++) {
        fc_cv_spec cv = {m[i].su.cfg.h, a->n_windows, a->step_size, a->refit};
        fit_ctx c = {&m[i], be, a->t.quiet, 0};
        size_t width;
        FC_TRY(fc_cross_validate(ds, &cv, o, n, fit_one, &c, &m[i].values, &width));
        if (width != cv.h * m[i].su.cfg.n_outputs) return fc_error(FC_ERR_INVALID, "cv: unexpected forecast width");
    }
    return FC_OK;
}

static fc_status write_output(const cv_flags *a, const cv_model *m, size_t n_models, const fc_dataset *ds,
                              const fc_cv_origin *o, size_t n) {
    fc_cv_columns cols[CV_MAX_MODELS];
    for (size_t i = 0; i < n_models; i++)
        cols[i] = (fc_cv_columns){m[i].name, m[i].su.cfg.n_outputs, m[i].suffixes, m[i].values};
    return fc_cv_write_csv(a->t.out, ds, o, n, m[0].su.cfg.h, cols, n_models);
}

static int cross_validate(const cv_flags *a) {
    cv_model m[CV_MAX_MODELS];
    size_t n_models = 0, n = 0;
    memset(m, 0, sizeof m);
    int rc = resolve_models(a, m, &n_models);
    if (rc) return rc;
    fc_backend *be = NULL;
    fc_dataset *ds = NULL;
    fc_cv_origin *o = NULL;
    fc_cv_spec cv = {m[0].su.cfg.h, a->n_windows, a->step_size, a->refit};
    const fc_input_path inputs[] = {{"--data", a->t.data}};
    fc_status st = fc_cv_check(&cv);
    if (st == FC_OK) st = fc_output_check("--out", a->t.out, 1, inputs, 1);   /* before any work */
    if (st == FC_OK) st = device_backend_open(a->t.device, a->t.threads, a->t.quiet, &be);
    if (st == FC_OK) st = train_flags_load_data(&a->t, &m[0].su, &(fc_data_choice){0}, &ds);
    size_t room = st == FC_OK ? ds->n_series * a->n_windows : 0;
    if (st == FC_OK && !(o = fc_malloc((room ? room : 1) * sizeof *o, "cross-validation origins"))) st = FC_ERR_MEMORY;
    if (st == FC_OK && !(n = fc_cv_origins(ds, &cv, o)))
        st = fc_error(FC_ERR_INVALID, "%s: no series has more than the %zu points cross-validation forecasts "
                      "(h + step-size x (n-windows - 1))", ds->source, fc_cv_test_size(&cv));
    if (st == FC_OK) st = run_models(a, m, n_models, ds, be, o, n);
    if (st == FC_OK) st = write_output(a, m, n_models, ds, o, n);
    if (st == FC_OK && !a->t.quiet)
        fprintf(stderr, "%zu forecast origins x %zu steps of %zu model%s written to %s\n", n, cv.h, n_models,
                n_models > 1 ? "s" : "", strcmp(a->t.out, "-") ? a->t.out : "standard output");
    rc = st == FC_OK ? CLI_EXIT_OK : cli_fail("cv");
    for (size_t i = 0; i < n_models; i++) free(m[i].values);
    free(o);
    fc_dataset_free(&ds);
    fc_backend_destroy(&be);
    return rc;
}

static arg_spec *find_spec(arg_spec *specs, const char *name) {
    for (arg_spec *s = specs; s->name; s++)
        if (!strcmp(s->name, name)) return s;
    return NULL;
}

/* train's table, with --out required (the CSV), --model taking a list,
 * the training windows' step renamed (--step-size is the cutoffs' step,
 * as neuralforecast's cross_validation(step_size=...)), and cv's flags. */
static void cv_specs(cv_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS]) {
    train_flags_init(&a->t, specs, 0);
    arg_spec *out = find_spec(specs, "out"), *model = find_spec(specs, "model"), *step = find_spec(specs, "step-size");
    out->required = 1;
    out->help = "cross-validation CSV to write (unique_id, ds, cutoff, <models>, y); - for standard output";
    model->help = "nhits | nbeats | mlp, or several separated by commas (nhits,nbeats): columns side by side";
    step->name = "train-step-size";
    step->help = "distance between training windows (1)";
    arg_spec extra[] = {
        {"n-windows", ARG_SIZE, &a->n_windows, "N", "forecast origins per series (1)", 0, 0},
        {"step-size", ARG_SIZE, &a->step_size, "N", "points between consecutive origins (1)", 0, 0},
        {"refit", ARG_SIZE, &a->refit, "K", "0: train once on all but the last h + step-size x (n-windows - 1) points; "
                                            "K: train a fresh model every K windows on the data up to its cutoff (0)", 0, 0},
    };
    size_t used = 0;
    while (specs[used].name) used++;
    if (used + 3 < FC_TRAIN_MAX_SPECS) memcpy(specs + used, extra, sizeof extra);
}

int cmd_cv(int argc, char **argv, int first) {
    cv_flags a = {.n_windows = 1, .step_size = 1};
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    cv_specs(&a, specs);
    int rc = args_parse("cv", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    return cross_validate(&a);
}
