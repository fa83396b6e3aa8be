/* What a search of fcast_tune_* holds (fcast.h, "fcast tune"), shared by
 * its files: api_tune_search.c (the handle, the space, the accessors),
 * api_tune_probe.c (the space against the caller's configurations),
 * api_tune_trial.c (one trial) and api_tune_run.c (the search). */
#ifndef FC_API_API_TUNE_H
#define FC_API_API_TUNE_H

#include <stdio.h>

#include "api/api.h"
#include "tune/sampler.h"
#include "tune/search_space.h"
#include "tune/trial_log.h"
#include "tune/trial_score.h"

#define FC_API_TUNE_REFUSAL_MAX 1024

typedef struct {
    double x[FC_TUNE_MAX_PARAMS];   /* the values, internal representation (sampler.h) */
    char text[FC_TUNE_MAX_PARAMS][FC_TUNE_VALUE_MAX];
    const char *values[FC_TUNE_MAX_PARAMS];   /* text's rows, for fcast_tune_trial */
    const char *status;             /* ok | skipped | diverged */
    char error[512];
    double score, seconds;
    double started;                 /* fc_now() when it was configured */
    size_t points;
} fc_api_tune_trial;

struct fcast_tune {
    fcast_tune_request q;           /* its strings are `owned`'s */
    char *owned[3];
    fc_tune_metric metric;
    int random;                     /* the random sampler, else TPE */
    size_t max_trials;              /* 0: no limit */
    fc_search_space space;
    fc_value_type types[FC_TUNE_MAX_PARAMS];
    int probed, budget_spent;
    fcast_config *first;            /* the first valid configuration of the probe */
    fc_status refusal;              /* else why the first one was refused */
    char refusal_text[FC_API_TUNE_REFUSAL_MAX];
    uint64_t seed;
    fc_tune_history hist;
    fc_api_tune_trial **trials;     /* one allocation each: fcast_tune_trial's pointers stay */
    size_t n_trials, cap;
    fcast_data *d;
    fc_backend *be;
    FILE *log;
};

/* The configuration cb->config makes of the values text[0 .. space.n). */
fc_status fc_api_tune_config(const fcast_tune *t, const fcast_tune_callbacks *cb,
                             char text[][FC_TUNE_VALUE_MAX], fcast_config **out);

fc_status fc_api_tune_probe(fcast_tune *t, const fcast_tune_callbacks *cb);

/* Trial i (t->trials[i] allocated) in three parts, so that a batch of
 * trials can be proposed from one history, cross-validated side by side
 * (train/member_pool.h), then counted in order (api_tune_run.c):
 * prepare: sampled and configured (*c NULL: refused, "skipped");
 * evaluate: cross-validated on t->d with be (alone: with the caller's step
 *   reports, and the trial's own trainings side by side; else neither),
 *   scored; a refused or failed cross-validation is "skipped";
 * record: counted, added to the sampler's history, logged, reported to
 *   cb->trial. Other failures stop the search. */
fc_status fc_api_tune_prepare_trial(fcast_tune *t, const fcast_tune_callbacks *cb, size_t i, fcast_config **c);
fc_status fc_api_tune_evaluate_trial(const fcast_tune *t, const fcast_tune_callbacks *cb, size_t i,
                                     const fcast_config *c, fc_backend *be, int alone, const volatile int *cancel);
fc_status fc_api_tune_record_trial(fcast_tune *t, const fcast_tune_callbacks *cb, size_t i);

#endif
