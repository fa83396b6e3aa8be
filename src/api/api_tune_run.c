/* fcast_tune_run: the search of a probed space (fcast.h): the device and
 * the data opened once, as the first valid configuration says (neither
 * can be searched), the search announced in the log, then trials until
 * their number or the time budget says stop, in batches: each batch's
 * trials proposed by the sampler from the trials before the batch (as
 * optuna's samplers propose the trials of parallel workers), trained side
 * by side (train/member_pool.h; "parallel" 1: one at a time, each trial
 * proposed from all before it), then logged in trial order. */
#include <stdlib.h>
#include <string.h>

#include "api/api_tune.h"
#include "core/error.h"
#include "core/clock.h"
#include "dist/dist.h"
#include "train/member_pool.h"
#include "train/memory_plan.h"

/* The model of the log's search line: none when the space searches it. */
static const char *fixed_model(const fcast_tune *t) {
    for (size_t j = 0; j < t->space.n; j++)
        if (!strcmp(t->space.params[j].name, "model")) return NULL;
    return t->first->model_name;
}

static fc_status open_inputs(fcast_tune *t) {
    const fcast_config *c = t->first;
    if (!t->q.data) return fc_error(FC_ERR_INVALID, "--data is needed");
    t->seed = c->train.seed;
    FC_TRY(fc_api_backend_open(c->run.device, (size_t)c->threads, c->run.verbose, &t->be));
    t->be->tf32 = c->run.tf32;   /* as fcast train, so a trial's fits are train's */
    FC_TRY(fc_api_data_open(c, t->q.data, &t->d));
    if (!t->q.log) return FC_OK;
    FC_TRY(fc_trial_log_open(t->q.log, &t->log));
    fc_search_record s = {t->space.path, t->q.sampler, t->q.metric, fixed_model(t), t->seed, t->max_trials,
                          t->q.time_budget};
    return fc_trial_log_search(t->log, t->q.log, &s);
}

/* Room for trial i. */
static fc_status room(fcast_tune *t, size_t i) {
    if (i == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        fc_api_tune_trial **more = realloc(t->trials, cap * sizeof *more);
        if (!more) return fc_error(FC_ERR_MEMORY, "fcast_tune_run: out of memory");
        memset(more + t->cap, 0, (cap - t->cap) * sizeof *more);
        t->trials = more;
        t->cap = cap;
    }
    if (!t->trials[i] && !(t->trials[i] = malloc(sizeof *t->trials[i])))
        return fc_error(FC_ERR_MEMORY, "fcast_tune_run: out of memory");
    return FC_OK;
}

/* A batch of trials: proposed from one history, cross-validated side by
 * side, counted in order. */
typedef struct {
    fcast_tune *t;
    const fcast_tune_callbacks *cb;
    const volatile int *cancel;
    size_t first;
    fcast_config *configs[FC_POOL_MAX_WORKERS];
    int alone;                /* a batch of one: the trial as it runs alone */
    int evaluated[FC_POOL_MAX_WORKERS];   /* trial k's cross-validation finished (scored or skipped) */
} trial_batch;

static fc_status evaluate_one(void *ctx, size_t k, fc_backend *be) {
    trial_batch *b = ctx;
    fc_status st = fc_api_tune_evaluate_trial(b->t, b->cb, b->first + k, b->configs[k], be, b->alone, b->cancel);
    b->evaluated[k] = st == FC_OK;   /* its own slot: no other worker writes it */
    return st;
}

/* Trials whose plans fit at once in the memory limit (the first
 * configuration's; none: the memory the backend has free): the data and
 * libraries once, the rest of each trial's plan per trial
 * (fc_member_pool_fits). */
static size_t trials_that_fit(const fcast_tune *t, const trial_batch *b, size_t n) {
    size_t limit = t->first->run.memory_limit, shared = 0, own[FC_POOL_MAX_WORKERS], free_bytes = 0, total = 0;
    if (!limit) t->be->memory_info(t->be, &free_bytes, &total), limit = free_bytes;
    for (size_t k = 0; k < n; k++) {
        fc_model_config cfg;
        fc_loss_spec loss;
        fc_memory_plan plan;
        own[k] = 0;   /* a trial refused or skipped takes no memory */
        if (!b->configs[k] || fc_api_resolve(b->configs[k], &cfg, &loss) != FC_OK) continue;   /* it says why */
        if (fc_memory_plan_train_config(&cfg, t->d->ds, &b->configs[k]->train, t->be, &plan) != FC_OK) continue;
        size_t common = fc_memory_plan_shared(&plan);
        if (common > shared) shared = common;
        own[k] = plan.total <= limit ? plan.total - common : 0;   /* over the limit alone: skipped, not run */
    }
    fc_error_clear();
    return fc_member_pool_fits(own, n, shared, limit);
}

static fc_status run_batch(trial_batch *b, size_t n) {
    fcast_tune *t = b->t;
    fc_status st = FC_OK;
    size_t made = 0;
    for (; st == FC_OK && made < n; made++) {
        st = room(t, b->first + made);
        if (st == FC_OK) st = fc_api_tune_prepare_trial(t, b->cb, b->first + made, &b->configs[made]);
    }
    size_t workers = fc_member_pool_workers(t->be, n, n, trials_that_fit(t, b, n));
    b->alone = n == 1;
    fc_member_pool pool = {.jobs = n, .workers = workers, .be = t->be, .train = evaluate_one, .ctx = b};
    if (st == FC_OK) st = fc_member_pool_run(&pool);
    /* the trials that finished are kept, in order, also when another
     * failed or was interrupted (as one at a time keeps those before it) */
    fc_error_state why;
    fc_error_save(&why);
    fc_status kept = FC_OK;
    for (size_t k = 0; kept == FC_OK && k < made && b->evaluated[k]; k++)
        kept = fc_api_tune_record_trial(t, b->cb, b->first + k);
    fc_error_restore(&why);
    for (size_t k = 0; k < made; k++) fcast_config_free(b->configs[k]);
    return st != FC_OK ? st : kept;
}

/* Trials per batch, within the trials left: "parallel"'s; auto, the
 * pool's count for this backend with the random sampler (whose trials do
 * not depend on the batch) and one with TPE, so that a TPE search with a
 * seed proposes the same trials on any machine (each from every trial
 * before it); --parallel N batches TPE's proposals N at a time. */
static size_t batch_size(const fcast_tune *t, size_t next) {
    size_t asked = t->first->run.parallel;
    if (!asked && !t->random) asked = 1;
    size_t n = fc_member_pool_workers(t->be, FC_POOL_MAX_WORKERS, asked, FC_POOL_MAX_WORKERS);
    if (fc_dist_size() > 1) n = 1;   /* a job's ranks share each trial's trainings */
    if (t->max_trials && t->max_trials - next < n) n = t->max_trials - next;
    return n ? n : 1;
}

static fc_status search(fcast_tune *t, const fcast_tune_callbacks *cb, const volatile int *cancel) {
    double start = fc_now(), budget = t->q.time_budget;
    size_t batch = batch_size(t, t->n_trials);
    if (t->first->run.verbose && batch > 1)   /* "trials 2 at a time": a batch's trials run side by side */
        fc_member_pool_say(t->be, t->max_trials, batch, t->first->threads, "trial");
    for (size_t i = t->n_trials; !t->max_trials || i < t->max_trials;) {
        if (budget > 0 && fc_now() - start >= budget) {
            t->budget_spent = 1;
            break;
        }
        trial_batch b = {.t = t, .cb = cb, .cancel = cancel, .first = i};
        size_t n = batch_size(t, i);
        FC_TRY(run_batch(&b, n));
        i += n;
    }
    return FC_OK;
}

static fc_status run(fcast_tune *t, const fcast_tune_callbacks *cb, const volatile int *cancel) {
    if (!t || !cb || !cb->config || !t->space.path)
        return fc_error(FC_ERR_INVALID, "fcast_tune_run: a search with its space read and a configuration "
                        "callback are needed");
    if (t->be) return fc_error(FC_ERR_INVALID, "fcast_tune_run: the search has run");
    if (!t->probed) FC_TRY(fc_api_tune_probe(t, cb));
    if (!t->first) return fc_error(t->refusal, "%s", t->refusal_text);   /* no valid configuration */
    fc_status st = open_inputs(t);
    if (st == FC_OK) st = search(t, cb, cancel);
    if (!t->log) return st;
    char why[FC_ERROR_CAP];   /* the search's own failure is the one to report */
    snprintf(why, sizeof why, "%s", fc_last_error());
    fc_status closed = fc_trial_log_close(t->log, t->q.log);
    t->log = NULL;
    if (st != FC_OK) return fc_error(st, "%s", why);
    return closed;
}

fc_status fcast_tune_run(fcast_tune *t, const fcast_tune_callbacks *cb, const volatile int *cancel) {
    return fc_api_words(run(t, cb, cancel));
}
