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

/* Trial i (t->trials[i] allocated): sampled, configured, cross-validated
 * on t->d with t->be, scored, logged, counted and reported to cb->trial.
 * A refused or failed trial is "skipped"; other failures stop the search. */
fc_status fc_api_tune_run_trial(fcast_tune *t, const fcast_tune_callbacks *cb, size_t i, const volatile int *cancel);

#endif
