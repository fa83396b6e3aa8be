/* fcast_tune_run: the search of a probed space (fcast.h): the device and
 * the data opened once, as the first valid configuration says (neither
 * can be searched), the search announced in the log, then trials until
 * their number or the time budget says stop. */
#include <stdlib.h>
#include <string.h>

#include "api/api_tune.h"
#include "core/error.h"
#include "core/clock.h"

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

static fc_status search(fcast_tune *t, const fcast_tune_callbacks *cb, const volatile int *cancel) {
    double start = fc_now(), budget = t->q.time_budget;
    for (size_t i = t->n_trials; !t->max_trials || i < t->max_trials; i++) {
        if (budget > 0 && fc_now() - start >= budget) {
            t->budget_spent = 1;
            break;
        }
        FC_TRY(room(t, i));
        FC_TRY(fc_api_tune_run_trial(t, cb, i, cancel));
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
