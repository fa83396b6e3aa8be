/* The samplers of `fcast tune`: random search and optuna's TPE, over the
 * parameters of a search space (search_space.h), from the trials so far.
 *
 * Both draw from fcast's Philox generator (core/rng.h) at counters derived
 * from (trial, parameter, draw), never from a running state, so the values
 * a trial gets depend only on the seed and the trials before it: the same
 * seed gives the same search. */
#ifndef FC_TUNE_SAMPLER_H
#define FC_TUNE_SAMPLER_H

#include <stdint.h>

#include "tune/search_space.h"

#include "core/rng.h"   /* FC_RNG_STREAM_TUNE: the samplers' Philox stream */

/* Trials so far: their values (internal representation, n_params per
 * trial) and scores; only trials with `usable` set (a finite score) inform
 * TPE, as optuna's TPE reads only complete trials. */
typedef struct {
    size_t n_params;
    double *x;        /* (n, n_params) */
    double *score;    /* (n) lower is better */
    unsigned char *usable;
    size_t n, cap;
} fc_tune_history;

void fc_tune_history_init(fc_tune_history *h, size_t n_params);
fc_status fc_tune_history_add(fc_tune_history *h, const double *x, double score, int usable);
void fc_tune_history_free(fc_tune_history *h);

/* Trial `trial`'s values by random search: each parameter independently,
 * uniform over its choices or its range (log-uniform for log ones). */
void fc_tune_sample_random(const fc_search_space *s, uint64_t seed, size_t trial, double *x);

/* TPE's defaults (optuna's TPESampler). */
#define FC_TPE_STARTUP_TRIALS 10
#define FC_TPE_EI_CANDIDATES 24

/* Trial `trial`'s values by TPE from history h (see sampler_tpe.c): random
 * until FC_TPE_STARTUP_TRIALS trials are usable. */
fc_status fc_tune_sample_tpe(const fc_search_space *s, const fc_tune_history *h, uint64_t seed, size_t trial,
                             double *x);

/* A uniform double in (0, 1) for (seed, trial, parameter, draw): the one
 * source of randomness of both samplers. */
double fc_tune_unit(uint64_t seed, size_t trial, size_t param, size_t draw);

#endif
