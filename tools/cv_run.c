/* Cross-validation runs from train's flags (see cv_run.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/error.h"
#include "cv_run.h"

typedef struct {
    cv_model *m;
    fc_backend *be;
    int quiet;
    size_t *fits;
} fit_ctx;

static fc_status fit_one(void *vctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fit_ctx *c = vctx;
    const train_setup *su = &c->m->su;
    fc_cv_training t = {su->cfg, su->o, su->scaler, su->loss, su->memory_limit, c->be};
    fc_train_summary sum;
    FC_TRY(fc_cv_fit(&t, ds, test_size, f, &sum));
    (*c->fits)++;
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
        size_t Q = m[i].su.cfg.n_outputs;
        for (size_t q = 0; q < FC_MAX_QUANTILES; q++) {
            m[i].suffix_text[q][0] = 0;
            if (Q > 1 && q < Q) fc_loss_output_name(&m[i].su.loss, q, m[i].suffix_text[q]);
            m[i].suffixes[q] = m[i].suffix_text[q];
        }
        if (Q == 1 && m[i].su.loss.kind == FC_LOSS_QUANTILE) fc_loss_output_name(&m[i].su.loss, 0, m[i].suffix_text[0]);
    }
}

/* --model a,b,c: each resolved with the same flags. */
int cv_resolve_models(const char *command, const cv_flags *a, cv_result *r) {
    cv_model *m = r->m;
    size_t *n = &r->n_models;
    char list[256];
    if (strlen(a->t.model) >= sizeof list) {
        fprintf(stderr, "fcast %s: --model '%s' is too long\n", command, a->t.model);
        return CLI_EXIT_USAGE;
    }
    strcpy(list, a->t.model);
    *n = 0;
    for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        if (*n == CV_MAX_MODELS) {
            fprintf(stderr, "fcast %s: at most %d models in one run\n", command, CV_MAX_MODELS);
            return CLI_EXIT_USAGE;
        }
        train_flags one = a->t;
        one.model = name;
        int rc = train_flags_resolve(command, &one, &m[*n].su);
        if (rc) return rc == 2 ? CLI_EXIT_USAGE : cli_fail(command);
        if (m[*n].su.auto_batch) {
            fprintf(stderr, "fcast %s: --windows-batch-size auto is for fcast train; give a number\n", command);
            return CLI_EXIT_USAGE;
        }
        m[*n].su.o.verbose = 0;
        (*n)++;
    }
    if (!*n) {
        fprintf(stderr, "fcast %s: --model needs at least one of nhits, nbeats, mlp, nbeatsx, lstm, tide\n", command);
        return CLI_EXIT_USAGE;
    }
    name_models(m, *n);
    return 0;
}

static fc_status run_models(const cv_flags *a, cv_result *r, const fc_dataset *ds, fc_backend *be) {
    for (size_t i = 0; i < r->n_models; i++) {
        cv_model *m = &r->m[i];
        fc_cv_spec cv = {m->su.cfg.h, a->n_windows, a->step_size, a->refit};
        fit_ctx c = {m, be, a->t.quiet, &r->fits};
        size_t width;
        FC_TRY(fc_cross_validate(ds, &cv, r->origins, r->n_origins, fit_one, &c, &m->values, &width));
        if (width != cv.h * m->su.cfg.n_outputs) return fc_error(FC_ERR_INVALID, "cv: unexpected forecast width");
    }
    return FC_OK;
}

fc_status cv_run(const cv_flags *a, const fc_dataset *ds, fc_backend *be, cv_result *r) {
    fc_cv_spec cv = {r->m[0].su.cfg.h, a->n_windows, a->step_size, a->refit};
    FC_TRY(fc_cv_check(&cv));
    for (size_t i = 1; i < r->n_models; i++)
        if (r->m[i].su.cfg.h != cv.h) return fc_error(FC_ERR_INVALID, "every model of a cross-validation has one h");
    size_t room = ds->n_series * a->n_windows;
    if (!(r->origins = fc_malloc((room ? room : 1) * sizeof *r->origins, "cross-validation origins")))
        return FC_ERR_MEMORY;
    if (!(r->n_origins = fc_cv_origins(ds, &cv, r->origins)))
        return fc_error(FC_ERR_INVALID, "%s: no series has more than the %zu points cross-validation forecasts "
                        "(h + step-size x (n-windows - 1))", ds->source, fc_cv_test_size(&cv));
    return run_models(a, r, ds, be);
}

void cv_result_free(cv_result *r) {
    for (size_t i = 0; i < r->n_models; i++) free(r->m[i].values);
    free(r->origins);
    memset(r, 0, sizeof *r);
}

/* train's table, with --out required (the CSV), --model taking a list,
 * the training windows' step renamed (--step-size is the cutoffs' step,
 * as neuralforecast's cross_validation(step_size=...)), and cv's flags. */
void cv_flags_init(cv_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int required_out) {
    a->n_windows = 1;
    a->step_size = 1;
    a->refit = 0;
    train_flags_init(&a->t, specs, 0);
    arg_spec *out = args_find(specs, "out", 3), *model = args_find(specs, "model", 5);
    arg_spec *step = args_find(specs, "step-size", 9);
    out->required = required_out;
    out->help = "cross-validation CSV to write (unique_id, ds, cutoff, <models>, y); - for standard output";
    model->help = "nhits | nbeats | mlp | nbeatsx | lstm | tide, or several separated by commas (nhits,nbeats): columns side by side";
    step->name = "train-step-size";
    step->help = "distance between training windows (1)";
    arg_spec extra[] = {
        {"n-windows", ARG_SIZE, &a->n_windows, "N", "forecast origins per series (1)", 0, 0},
        {"step-size", ARG_SIZE, &a->step_size, "N", "points between consecutive origins (1)", 0, 0},
        {"refit", ARG_SIZE, &a->refit, "K", "0: train once on all but the last h + step-size x (n-windows - 1) points; "
                                            "K: train a fresh model every K windows on the data up to its cutoff (0)", 0, 0},
    };
    args_append(specs, FC_TRAIN_MAX_SPECS, extra, sizeof extra / sizeof *extra);
}

