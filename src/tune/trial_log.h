/* The trial log of `fcast tune` (--log FILE): JSON Lines appended to FILE,
 * one "search" line when a search starts, then one "trial" line per trial:
 *
 *   {"event":"trial","trial":3,"status":"ok","metric":"mae","score":12.5,
 *    "points":288,"seconds":1.9,"params":{"lr":"0.0012","scaler":"robust"},
 *    "values":{"lr":0.0012,"scaler":"robust"},"error":null}
 *
 * params are the values as the flags were given (text), values the same
 * typed as their flags are (integer, number, boolean or string). status is
 * ok, skipped (the memory plan or the flags' combination refused the trial:
 * error says why) or diverged (the score is not finite). Each line is
 * written whole and flushed, so a search stopped midway leaves a log of
 * the trials it finished. */
#ifndef FC_TUNE_TRIAL_LOG_H
#define FC_TUNE_TRIAL_LOG_H

#include <stddef.h>
#include <stdio.h>

#include "fcast/status.h"

typedef enum { FC_VALUE_TEXT, FC_VALUE_INT, FC_VALUE_REAL, FC_VALUE_BOOL } fc_value_type;

typedef struct {
    size_t trial;
    const char *status, *metric, *error;   /* error: NULL when none */
    double score, seconds;                 /* score: NaN when none */
    size_t points;
    size_t n_params;
    const char *const *names, *const *texts;
    const fc_value_type *types;
} fc_trial_record;

typedef struct {
    const char *space, *sampler, *metric, *model;
    unsigned long long seed;
    size_t max_trials;                     /* 0: no limit */
    double time_budget;                    /* 0: none */
} fc_search_record;

/* Opens path for appending (FC_ERR_IO naming it). */
fc_status fc_trial_log_open(const char *path, FILE **out);

fc_status fc_trial_log_search(FILE *f, const char *path, const fc_search_record *r);
fc_status fc_trial_log_trial(FILE *f, const char *path, const fc_trial_record *r);

/* Closes f; FC_ERR_IO when anything written was lost. */
fc_status fc_trial_log_close(FILE *f, const char *path);

#endif
