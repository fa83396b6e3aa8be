/* Every model's forecasts at every origin of a panel (api_cv_run.h): the
 * engine's cross-validation, one model after the other, each training a
 * fresh forecaster as the refit says and saying so when verbose. */
#include <stdio.h>
#include <stdlib.h>

#include "api/api_cv_run.h"
#include "core/error.h"

typedef struct {
    fc_api_cv_model *m;
    fc_api_cv_run *r;
} fit_ctx;

static fc_status fit_one(void *vctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fit_ctx *c = vctx;
    fc_train_summary sum;
    FC_TRY(fc_cv_fit(&c->m->t, ds, test_size, f, &sum));
    c->r->fits++;
    if (c->r->verbose)
        fprintf(stderr, "cv: %s trained on all but the last %zu points of every series: %zu steps in %.1f s\n",
                c->m->name, test_size, sum.steps, sum.seconds);
    return FC_OK;
}

static fc_status run_models(fc_api_cv_run *r, const fc_dataset *ds, fc_backend *be, const volatile int *cancel) {
    for (size_t i = 0; i < r->n_models; i++) {
        fc_api_cv_model *m = &r->m[i];
        fc_cv_spec cv = r->spec;
        fit_ctx c = {m, r};
        size_t width;
        m->t.be = be;
        fc_api_watch(&m->t.o, &r->hook, cancel);
        FC_TRY(fc_cross_validate(ds, &cv, r->origins, r->n_origins, fit_one, &c, &m->values, &width));
        if (width != cv.h * m->t.cfg.n_outputs) return fc_error(FC_ERR_INVALID, "cv: unexpected forecast width");
    }
    return FC_OK;
}

fc_status fc_api_cv_forecast(fc_api_cv_run *r, const fc_dataset *ds, fc_backend *be, const volatile int *cancel) {
    r->spec.h = r->m[0].t.cfg.h;
    FC_TRY(fc_cv_check(&r->spec));
    for (size_t i = 1; i < r->n_models; i++)
        if (r->m[i].t.cfg.h != r->spec.h) return fc_error(FC_ERR_INVALID, "every model of a cross-validation has one h");
    for (size_t i = 1; i < r->n_models; i++) FC_TRY(fc_exog_check_columns(&r->m[i].t.cfg, ds, fc_api_exog_words()));
    size_t room = ds->n_series * r->spec.n_windows;
    if (!(r->origins = fc_malloc((room ? room : 1) * sizeof *r->origins, "cross-validation origins")))
        return FC_ERR_MEMORY;
    if (!(r->n_origins = fc_cv_origins(ds, &r->spec, r->origins)))
        return fc_error(FC_ERR_INVALID, "%s: no series has more than the %zu points cross-validation forecasts "
                        "(h + step-size x (n-windows - 1))", ds->source, fc_cv_test_size(&r->spec));
    return run_models(r, ds, be, cancel);
}
