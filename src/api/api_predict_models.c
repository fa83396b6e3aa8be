/* The model files of one forecast, side by side (api_predict.h): models
 * and ensembles' members, their columns named as neuralforecast's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_predict.h"
#include "core/error.h"
#include "train/model_file.h"

/* Column names as neuralforecast's: the class name, then 1, 2, ... for
 * its second, third, ... model of the call (among the columns written),
 * then the columns of its outputs or intervals (train/forecast_columns.h).
 * An ensemble's member has its point column alone. */
static fc_status name_columns(fc_predict_run *r, size_t i, int member) {
    fc_predict_model *pm = &r->m[i];
    const fc_model_config *c = &pm->f.model->cfg;
    size_t before = 0;
    char name[32];
    for (size_t j = 0; j < i; j++) before += r->m[j].shown && r->m[j].f.model->cfg.kind == c->kind;
    snprintf(name, sizeof name, before ? "%s%zu" : "%s", fc_model_kind_name(c->kind), before);
    FC_TRY(fc_columns_of(&pm->f, name, r->levels, member ? 0 : r->n_levels, &pm->cols));
    if (pm->cols.levels_ignored)
        fprintf(stderr, "fcast predict: note: %s was trained with %s %s: its own quantile columns are written, "
                "whatever %s asks (as neuralforecast)\n", name, fc_predict_word("--loss"), fc_loss_name(pm->f.loss),
                fc_predict_word("--level"));
    return FC_OK;
}

/* Room for n more forecasters. */
static fc_status reserve_models(fc_predict_run *r, size_t n) {
    if (r->n_models + n <= r->cap) return FC_OK;
    size_t cap = r->cap ? 2 * r->cap : 16;
    while (cap < r->n_models + n) cap *= 2;
    fc_predict_model *m = fc_realloc(r->m, cap * sizeof *m, "models");
    if (!m) return FC_ERR_MEMORY;
    memset(m + r->cap, 0, (cap - r->cap) * sizeof *m);
    r->m = m;
    r->cap = cap;
    return FC_OK;
}

/* An ensemble file's members become forecasters of the call, named after
 * the column Ensemble (Ensemble1, ... for the next ensembles). */
static fc_status add_ensemble(fc_predict_run *r, const char *path, fc_backend *be, fc_predict_file *pf) {
    fc_ensemble e;
    FC_TRY(fc_ensemble_load(path, be, &e));
    fc_status st = reserve_models(r, e.n);
    for (size_t k = 0; st == FC_OK && k < e.n; k++) {
        r->m[r->n_models] = (fc_predict_model){.f = e.members[k], .shown = r->members};
        e.members[k] = (fc_forecaster){0};   /* owned by the run now */
        r->n_models++;
        pf->n++;
    }
    pf->combine = e.combine;
    fc_ensemble_free(&e);
    size_t before = 0;
    for (const fc_predict_file *q = r->files; q < pf; q++) before += q->ensemble;
    pf->ensemble = 1;
    snprintf(pf->name, sizeof pf->name, before ? "Ensemble%zu" : "Ensemble", before);
    if (st == FC_OK && r->n_levels)
        st = fc_error(FC_ERR_INVALID, "--level: %s is an ensemble: its combined forecast has no intervals", path);
    return st;
}

static fc_status add_file(fc_predict_run *r, const char *path, fc_backend *be) {
    if (r->n_files == FC_PREDICT_MAX_FILES)
        return fc_error(FC_ERR_INVALID, "--model: at most %d model files in one call", FC_PREDICT_MAX_FILES);
    fc_predict_file *pf = &r->files[r->n_files++];
    pf->first = r->n_models;
    if (fc_ensemble_file_is(path)) return add_ensemble(r, path, be, pf);
    FC_TRY(reserve_models(r, 1));
    fc_predict_model *pm = &r->m[r->n_models];
    FC_TRY(fc_forecaster_load(path, be, &pm->f));
    pm->shown = 1;
    r->n_models++;
    pf->n = 1;
    return FC_OK;
}

/* One horizon and one time axis for every forecaster: the first one's. */
static fc_status check_shared(const fc_predict_run *r, const fc_predict_file *pf, const char *path) {
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

fc_status fc_predict_load_models(fc_predict_run *r, const char *list, fc_backend *be) {
    char *copy = strdup(list);
    if (!copy) return fc_error(FC_ERR_MEMORY, "out of memory");
    fc_status st = FC_OK;
    for (char *save = NULL, *p = strtok_r(copy, ",", &save); st == FC_OK && p; p = strtok_r(NULL, ",", &save)) {
        st = add_file(r, p, be);
        const fc_predict_file *pf = &r->files[r->n_files - 1];
        if (st == FC_OK) st = check_shared(r, pf, p);
        for (size_t i = pf->first; st == FC_OK && i < pf->first + pf->n; i++) st = name_columns(r, i, pf->ensemble);
    }
    free(copy);
    if (st == FC_OK && !r->n_models) st = fc_error(FC_ERR_INVALID, "--model: no model file given");
    return st;
}

void fc_predict_run_free(fc_predict_run *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n_models; i++) {
        free(r->m[i].values);
        fc_forecaster_free(&r->m[i].f);
    }
    for (size_t i = 0; i < r->n_files; i++) free(r->files[i].values);
    free(r->m);
    free(r);
}
