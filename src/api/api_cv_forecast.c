/* Every model's forecasts at every origin of a panel (api_cv_run.h): the
 * engine's cross-validation, every model's trainings (one per refit
 * group) side by side in a pool of workers (train/member_pool.h), each a
 * fresh forecaster on its worker's backend writing its windows' rows, and
 * saying so when verbose. The rows are the bits of one training after the
 * other (each training is the same steps on its own backend). Under
 * mpirun the trainings are dealt to the ranks (docs/distributed.md), each
 * rank's pool running its own. */
#include <stdio.h>
#include <stdlib.h>

#include "api/api_cv_run.h"
#include "core/error.h"
#include "dist/dist.h"
#include "train/member_pool.h"
#include "train/memory_plan.h"

/* One training of the run: model i's training g. */
typedef struct {
    size_t model, g;
} cv_job;

typedef struct {
    fc_api_cv_run *r;
    const fc_dataset *ds;
    cv_job *jobs;
    size_t n_jobs;
    int side_by_side;         /* more than one worker: the trainings' own step reports are off */
} cv_pool;

typedef struct {
    fc_cv_training t;         /* the model's, on the worker's backend */
    const char *name;
    int verbose;
} fit_ctx;

static fc_status fit_one(void *vctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fit_ctx *c = vctx;
    fc_train_summary sum;
    FC_TRY(fc_cv_fit(&c->t, ds, test_size, f, &sum));
    if (!c->verbose) return FC_OK;
    char rank[32] = "";   /* under mpirun, whose training it was */
    if (fc_dist_size() > 1) snprintf(rank, sizeof rank, "rank %d: ", fc_dist_rank());
    fprintf(stderr, "%scv: %s trained on all but the last %zu points of every series: %zu steps in %.1f s\n",
            rank, c->name, test_size, sum.steps, sum.seconds);
    return FC_OK;
}

static fc_status train_job(void *ctx, size_t j, fc_backend *be) {
    cv_pool *p = ctx;
    fc_api_cv_run *r = p->r;
    fc_api_cv_model *m = &r->m[p->jobs[j].model];
    fit_ctx c = {m->t, m->name, r->verbose};
    c.t.be = be;
    if (p->side_by_side) c.t.o.on_step = NULL;   /* reported at its end (job_done): steps of several would mix */
    size_t width = r->spec.h * fc_loss_forecast_width(&m->t.loss, m->t.cfg.n_outputs);
    return fc_cv_run_training(p->ds, &r->spec, r->origins, r->n_origins, p->jobs[j].g, fit_one, &c, m->values, width);
}

/* Side by side, a training's end is its step reports, its first and its
 * last: the job's progress counts a training where the steps start again
 * (tools/job_progress.h), whatever the models' max steps (under the pool's lock). */
static fc_status job_done(void *ctx, size_t j, fc_status st) {
    cv_pool *p = ctx;
    const fc_train_options *o = &p->r->m[p->jobs[j].model].t.o;
    if (st != FC_OK || !p->side_by_side || !o->on_step) return st;
    o->on_step(o->on_step_user, 1, o->max_steps, 0.0);
    o->on_step(o->on_step_user, o->max_steps, o->max_steps, 0.0);
    return st;
}

/* The trainings this rank runs: model i's g-th is the job's i * per_model + g. */
static fc_status deal_jobs(cv_pool *p) {
    fc_api_cv_run *r = p->r;
    size_t per_model = fc_cv_trainings(&r->spec), ranks = (size_t)fc_dist_size(), rank = (size_t)fc_dist_rank();
    if (!(p->jobs = fc_malloc(r->n_models * per_model * sizeof *p->jobs, "cross-validation trainings")))
        return FC_ERR_MEMORY;
    for (size_t i = 0; i < r->n_models; i++)
        for (size_t g = 0; g < per_model; g++)
            if ((i * per_model + g) % ranks == rank) p->jobs[p->n_jobs++] = (cv_job){i, g};
    return FC_OK;
}

/* Trainings whose plans fit at once in the tightest memory limit (with
 * none, the memory the backend has free): the data and libraries once,
 * the rest of each job's model's plan per job. */
static size_t trainings_that_fit(const cv_pool *p, fc_backend *be) {
    const fc_api_cv_run *r = p->r;
    size_t limit = 0, shared = 0, free_bytes = 0, total = 0, k = 1;
    size_t *own = malloc((p->n_jobs ? p->n_jobs : 1) * sizeof *own);
    fc_status st = own ? FC_OK : FC_ERR_MEMORY;
    for (size_t j = 0; st == FC_OK && j < p->n_jobs; j++) {
        const fc_cv_training *t = &r->m[p->jobs[j].model].t;
        fc_memory_plan plan;
        if (t->memory_limit && (!limit || t->memory_limit < limit)) limit = t->memory_limit;
        st = fc_memory_plan_train_config(&t->cfg, p->ds, &t->o, be, &plan);   /* failing: the training says why */
        size_t common = st == FC_OK ? fc_memory_plan_shared(&plan) : 0;
        if (common > shared) shared = common;
        if (st == FC_OK) own[j] = plan.total - common;
    }
    if (st == FC_OK && !limit) be->memory_info(be, &free_bytes, &total), limit = free_bytes;
    if (st == FC_OK) k = fc_member_pool_fits(own, p->n_jobs, shared, limit);   /* else one at a time */
    fc_error_clear();
    free(own);
    return k;
}

/* Every model's rows, zero where another rank forecasts them. */
static fc_status allocate_rows(fc_api_cv_run *r) {
    for (size_t i = 0; i < r->n_models; i++) {
        fc_api_cv_model *m = &r->m[i];
        size_t width = r->spec.h * fc_loss_forecast_width(&m->t.loss, m->t.cfg.n_outputs), n = r->n_origins;
        if (!(m->values = fc_calloc(n ? n : 1, width * sizeof(float), "cross-validation forecasts")))
            return FC_ERR_MEMORY;
    }
    return FC_OK;
}

/* Under mpirun the rows every rank forecast are merged (dist/dist.h), so
 * every rank ends with the bits one process computes. */
static fc_status merge_rows(fc_api_cv_run *r) {
    for (size_t i = 0; i < r->n_models; i++) {
        fc_api_cv_model *m = &r->m[i];
        size_t width = r->spec.h * fc_loss_forecast_width(&m->t.loss, m->t.cfg.n_outputs);
        FC_TRY(fc_dist_merge(m->values, r->n_origins * width * sizeof *m->values, 0));
    }
    return FC_OK;
}

static fc_status run_models(fc_api_cv_run *r, const fc_dataset *ds, fc_backend *be, const volatile int *cancel) {
    for (size_t i = 0; i < r->n_models; i++) {
        fc_api_cv_model *m = &r->m[i];
        m->t.be = be;
        m->t.o.alone = 1;   /* each training in one process: the job shares the trainings, not their steps */
        fc_api_watch(&m->t.o, &r->hook, cancel);
    }
    cv_pool p = {.r = r, .ds = ds};
    fc_status st = allocate_rows(r);
    if (st == FC_OK) st = deal_jobs(&p);
    size_t workers = st == FC_OK && p.n_jobs ? fc_member_pool_workers(be, p.n_jobs, r->parallel,
                                                                      trainings_that_fit(&p, be)) : 1;
    p.side_by_side = workers > 1;
    if (st == FC_OK && r->verbose && p.n_jobs > 1) fc_member_pool_say(be, p.n_jobs, workers, 0, "training");
    fc_member_pool pool = {.jobs = p.n_jobs, .workers = workers, .be = be, .train = train_job, .done = job_done,
                           .ctx = &p};
    if (st == FC_OK) st = fc_member_pool_run(&pool);
    free(p.jobs);
    if (st == FC_OK) st = merge_rows(r);
    r->fits = r->n_models * fc_cv_trainings(&r->spec);   /* the job's, on every rank */
    return st;
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
