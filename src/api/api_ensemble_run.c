/* fcast_ensemble_train_file (fcast.h): `fcast ensemble`'s run. Every
 * check that can refuse the ensemble comes before the first member
 * trains (an ensemble is refused at once, not after hours of training):
 * the request, the output path, the device, the data, then each member's
 * data checks and memory plan. Then the members train side by side
 * (train/member_pool.h: as many at once as the threads, a GPU's streams
 * and the memory limit allow; "parallel" 1: one after another, each with
 * every thread) on one reading of the data, and the file is written, its
 * members in their order whichever finished first. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api_ensemble.h"
#include "api/api_train_steps.h"
#include "core/error.h"
#include "api/output_path.h"
#include "dist/dist.h"
#include "train/member_pool.h"

typedef struct {
    const fcast_ensemble_request *r;
    fc_api_member *m;
    size_t *params;           /* (n_members) each member's parameter bytes, held for the file */
    fc_backend *be;
    fcast_data *d;
    fcast_member_fn on_member;
    void *user;
    fc_ensemble_writer *w;
    pthread_mutex_t writer_lock;   /* members finishing side by side add to w one at a time */
} ensemble_run;

_Static_assert((int)FCAST_COMBINE_MEDIAN == (int)FC_COMBINE_MEDIAN && (int)FCAST_COMBINE_MEAN == (int)FC_COMBINE_MEAN,
               "fcast_combine is fc_combine");
_Static_assert(FCAST_ENSEMBLE_MAX_MEMBERS == FC_ENSEMBLE_MAX_MEMBERS, "the ensemble file's limit");

fc_status fcast_combine_parse(const char *name, fcast_combine *out) {
    fc_combine c;
    if (!out || fc_combine_parse(name, &c))
        return fc_api_words(fc_error(FC_ERR_INVALID, "--combine '%s' is not median or mean", name ? name : "(null)"));
    *out = (fcast_combine)c;
    return FC_OK;
}

const char *fcast_combine_name(fcast_combine c) {
    return (unsigned)c < FC_COMBINE_KINDS ? fc_combine_name((fc_combine)c) : NULL;
}

int fcast_loss_is_point(const char *loss) {
    fc_loss_kind k;
    if (!loss || fc_loss_parse(loss, &k)) return -1;
    return !fc_loss_kind_is_one_quantile(k) && !fc_loss_kind_has_quantile_list(k);
}

static fc_status check_request(const fcast_ensemble_request *r, const char *path) {
    if (!r || !r->members || !r->out || !path)
        return fc_error(FC_ERR_INVALID, "fcast_ensemble_train_file: request, members, out and path are needed");
    if (!r->n_members || r->n_members > FC_ENSEMBLE_MAX_MEMBERS)
        return fc_error(FC_ERR_INVALID, "%zu members; an ensemble has 1 to %d", r->n_members, FC_ENSEMBLE_MAX_MEMBERS);
    if ((unsigned)r->combine >= FC_COMBINE_KINDS)
        return fc_error(FC_ERR_INVALID, "fcast_ensemble_train_file: combine %d is not median or mean", (int)r->combine);
    for (size_t i = 0; i < r->n_members; i++)
        if (!r->members[i]) return fc_error(FC_ERR_INVALID, "fcast_ensemble_train_file: member %zu is NULL", i + 1);
    return FC_OK;
}

/* Every member resolved and named, its configuration checked; one h for all. */
static fc_status resolve_members(ensemble_run *e, const volatile int *cancel) {
    const fcast_ensemble_request *r = e->r;
    for (size_t i = 0; i < r->n_members; i++) {
        fc_api_member *m = &e->m[i];
        m->c = r->members[i];
        if (r->names && r->names[i]) snprintf(m->label, sizeof m->label, "%s", r->names[i]);
        else snprintf(m->label, sizeof m->label, "member %zu", i + 1);
        fc_status st = fc_api_member_resolve(m, cancel);
        if (st == FC_OK && m->cfg.h != e->m[0].cfg.h)   /* combined point by point */
            st = fc_error(FC_ERR_INVALID, "--h %zu; the first member's is %zu", m->cfg.h, e->m[0].cfg.h);
        if (st != FC_OK) return fc_error_wrap(st, "%s: ", m->label);
    }
    return FC_OK;
}

/* Every member's data checks and memory plan, before any is trained; the
 * parameters of the members before one wait in host memory for the file. */
static fc_status check_members(ensemble_run *e) {
    size_t kept = 0;
    for (size_t i = 0; i < e->r->n_members; i++) {
        size_t params = 0;
        fc_status st = fc_api_member_check(&e->m[i], e->d->ds, e->be, kept, &params);
        if (st != FC_OK) return fc_error_wrap(st, "%s: ", e->m[i].label);
        kept += e->params[i] = params;
    }
    return FC_OK;
}

/* How many members fit side by side: every member's parameters (held
 * for the file), the data and the libraries once, and the rest of the
 * plans of the largest members at once within the memory limit (the first
 * member's; with none, the memory the backend has free). 1 when no more
 * than one fits: the sequential run, whose checks (check_members) passed. */
static size_t members_that_fit(const ensemble_run *e) {
    size_t n = e->r->n_members, limit = e->r->members[0]->run.memory_limit, shared = 0, free_bytes = 0, all = 0;
    if (!limit) e->be->memory_info(e->be, &free_bytes, &all), limit = free_bytes;
    size_t *own = malloc(n * sizeof *own);
    if (!own) return 1;
    for (size_t i = 0; i < n; i++) {
        size_t common = fc_memory_plan_shared(&e->m[i].plan);
        if (common > shared) shared = common;
        own[i] = e->m[i].plan.total - common;
    }
    for (size_t i = 0; i < n; i++) shared += e->params[i];
    size_t k = fc_member_pool_fits(own, n, shared, limit);
    free(own);
    return k;
}

/* A member's start and end for the caller's callback (under the pool's lock). */
static fc_status member_started(void *ctx, size_t i) {
    ensemble_run *e = ctx;
    if (e->on_member) e->on_member(e->user, i, NULL);
    return FC_OK;
}

static fc_status member_done(void *ctx, size_t i, fc_status st) {
    ensemble_run *e = ctx;
    if (st != FC_OK) return fc_error_wrap(st, "%s: ", e->m[i].label);
    fcast_train_report done;
    fc_api_train_report(&e->m[i].sum, &e->m[i].o, e->be, &done);
    if (e->on_member) e->on_member(e->user, i, &done);
    return FC_OK;
}

/* Member i on a worker's backend (its thread); its description the
 * caller's, or its settings as fcast_train keeps them. */
static fc_status train_member(void *ctx, size_t i, fc_backend *be) {
    ensemble_run *e = ctx;
    fc_api_member *m = &e->m[i];
    const char *given = e->r->descriptions ? e->r->descriptions[i] : NULL;
    char *own = given ? NULL : fc_api_settings_json(m->c, 0, NULL);
    if (!given && !own) return fc_error(FC_ERR_MEMORY, "out of memory");
    fc_api_member_out out = {e->w, i, &e->writer_lock};
    fc_status st = fc_api_member_train(m, e->d->ds, be, given ? given : own, &out, &m->sum);
    free(own);
    return st;
}

static fc_status train_members(ensemble_run *e) {
    const fcast_ensemble_request *r = e->r;
    size_t asked = r->members[0]->run.parallel;
    size_t workers = fc_dist_size() > 1 ? 1 : fc_member_pool_workers(e->be, r->n_members, asked, members_that_fit(e));
    if (workers > 1)   /* members' own step progress would interleave: the caller's lines report them */
        for (size_t i = 0; i < r->n_members; i++) e->m[i].o.verbose = 0;
    if (r->members[0]->run.verbose)
        fc_member_pool_say(e->be, r->n_members, workers, r->members[0]->threads, "member");
    fc_member_pool pool = {.jobs = r->n_members, .workers = workers, .be = e->be, .start = member_started,
                           .train = train_member, .done = member_done, .ctx = e};
    FC_TRY(fc_ensemble_writer_new((fc_combine)r->combine, r->n_members, e->m[0].cfg.h, &e->w));
    pthread_mutex_init(&e->writer_lock, NULL);
    fc_status st = fc_member_pool_run(&pool);
    pthread_mutex_destroy(&e->writer_lock);
    if (st == FC_OK) st = fc_ensemble_writer_write(e->w, r->out);
    fc_ensemble_writer_free(&e->w);
    return st;
}

/* The device first, as fcast_train: a GPU that cannot run fails before
 * the data is read. The run's keys are the first member's. */
static fc_status run(ensemble_run *e, const char *path, const volatile int *cancel) {
    const fcast_config *first = e->r->members[0];
    const fc_path_use files[] = {
        {"--data", path, FCAST_PATH_IN, 0, NULL},
        {"--stat-exog-file", first->run.stat_file, FCAST_PATH_IN, 0, NULL},
        {"--out", e->r->out, FCAST_PATH_OUT, 0, NULL},
    };
    FC_TRY(resolve_members(e, cancel));
    FC_TRY(fc_paths_check(files, sizeof files / sizeof *files));   /* before any work */
    FC_TRY(fc_api_backend_open(first->run.device, first->threads > 0 ? (size_t)first->threads : 0,
                               first->run.verbose, &e->be));
    e->be->tf32 = first->run.tf32;
    FC_TRY(fc_api_data_open(first, path, &e->d));
    FC_TRY(check_members(e));
    return train_members(e);
}

fc_status fcast_ensemble_train_file(const fcast_ensemble_request *r, const char *path, fcast_member_fn on_member,
                                    void *user, const volatile int *cancel) {
    fc_status st = check_request(r, path);
    if (st != FC_OK) return fc_api_words(st);
    ensemble_run e = {.r = r, .on_member = on_member, .user = user};
    e.m = calloc(r->n_members, sizeof *e.m);
    e.params = calloc(r->n_members, sizeof *e.params);
    st = e.m && e.params ? run(&e, path, cancel) : fc_error(FC_ERR_MEMORY, "fcast_ensemble: out of memory");
    fcast_data_free(e.d);
    fc_backend_destroy(&e.be);
    free(e.m);
    free(e.params);
    return fc_api_words(st);
}
