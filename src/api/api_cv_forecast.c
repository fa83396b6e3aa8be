/* Every model's forecasts at every origin of a panel (api_cv_run.h): the
 * engine's cross-validation, one model after the other, each training a
 * fresh forecaster as the refit says and saying so when verbose. Under
 * mpirun the trainings are dealt to the ranks (docs/distributed.md). */
#include <stdio.h>
#include <stdlib.h>

#include "api/api_cv_run.h"
#include "core/error.h"
#include "dist/dist.h"

typedef struct {
    fc_api_cv_model *m;
    fc_api_cv_run *r;
} fit_ctx;

static fc_status fit_one(void *vctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fit_ctx *c = vctx;
    fc_train_summary sum;
    FC_TRY(fc_cv_fit(&c->m->t, ds, test_size, f, &sum));
    if (!c->r->verbose) return FC_OK;
    char rank[32] = "";   /* under mpirun, whose training it was */
    if (fc_dist_size() > 1) snprintf(rank, sizeof rank, "rank %d: ", fc_dist_rank());
    fprintf(stderr, "%scv: %s trained on all but the last %zu points of every series: %zu steps in %.1f s\n",
            rank, c->m->name, test_size, sum.steps, sum.seconds);
    return FC_OK;
}

/* One model's forecasts at every origin: under mpirun its trainings are
 * dealt to the ranks, numbered on from the models before it, and the rows
 * every rank forecast are merged (dist/dist.h), so every rank ends with
 * the bits one process computes. */
static fc_status run_model(fc_api_cv_run *r, fc_api_cv_model *m, size_t first, const fc_dataset *ds) {
    fc_cv_spec cv = r->spec;
    fit_ctx c = {m, r};
    fc_cv_deal deal = {first, fc_dist_rank(), fc_dist_size()};
    size_t expected = cv.h * fc_loss_forecast_width(&m->t.loss, m->t.cfg.n_outputs), width = expected,
           n = r->n_origins;
    FC_TRY(fc_cross_validate_dealt(ds, &cv, r->origins, n, fit_one, &c, &deal, &m->values, &width));
    if (width != expected && m->values) return fc_error(FC_ERR_INVALID, "cv: unexpected forecast width");
    if (!m->values && !(m->values = fc_calloc(n ? n : 1, expected * sizeof(float), "cross-validation forecasts")))
        return FC_ERR_MEMORY;   /* none of its trainings was this rank's */
    return fc_dist_merge(m->values, n * expected * sizeof *m->values, 0);
}

static fc_status run_models(fc_api_cv_run *r, const fc_dataset *ds, fc_backend *be, const volatile int *cancel) {
    size_t per_model = fc_cv_trainings(&r->spec);
    for (size_t i = 0; i < r->n_models; i++) {
        fc_api_cv_model *m = &r->m[i];
        m->t.be = be;
        m->t.o.alone = 1;   /* each training in one process: the job shares the trainings, not their steps */
        fc_api_watch(&m->t.o, &r->hook, cancel);
        FC_TRY(run_model(r, m, i * per_model, ds));
    }
    r->fits = r->n_models * per_model;   /* the job's, on every rank */
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
