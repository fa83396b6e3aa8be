/* TPE as optuna's TPESampler does it in its default, univariate form
 * (optuna 5.0, samplers/_tpe/sampler.py): each parameter on its own,
 *   - random until n_startup_trials (10) trials have finished with a score;
 *   - the finished trials split by score into the best gamma(n) =
 *     min(ceil(0.1 n), 25) ("below") and the rest ("above");
 *   - a Parzen estimator l(x) of the below trials' values, g(x) of the
 *     above's (parzen.h);
 *   - n_ei_candidates (24) draws from l, keeping the one with the largest
 *     log l(x) - log g(x).
 * Simplifications, none of which changes what the sampler aims at:
 *   - the random numbers are Philox's at counters (trial, parameter, draw),
 *     not numpy's RandomState: a seed gives different values than optuna's;
 *   - truncated normals are drawn by inverting the CDF with Acklam's
 *     approximation refined by a Halley step (optuna inverts in log space);
 *   - only steps of 1 for integers, no real-valued steps;
 *   - no multivariate or group mode, no constant liar (trials run one at a
 *     time), no pruning and no constraints;
 *   - trials skipped or diverged are left out, as optuna leaves out failed
 *     trials; ties in score split by trial order. */
#include "tune/sampler.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "tune/parzen.h"

typedef struct {
    double score;
    size_t trial;
} ranked;

static int by_score(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    if (x->score != y->score) return x->score < y->score ? -1 : 1;
    return x->trial < y->trial ? -1 : x->trial > y->trial;
}

static int by_trial(const void *a, const void *b) {
    const ranked *x = a, *y = b;
    return x->trial < y->trial ? -1 : x->trial > y->trial;
}

/* The best of n candidates drawn from l: argmax log l - log g (the first on ties). */
static double best_candidate(const fc_parzen *l, const fc_parzen *g, uint64_t seed, size_t trial, size_t j) {
    double best = 0, best_acq = -INFINITY;
    for (size_t c = 0; c < FC_TPE_EI_CANDIDATES; c++) {
        double u_kernel = fc_tune_unit(seed, trial, j, 1 + 2 * c), u_value = fc_tune_unit(seed, trial, j, 2 + 2 * c);
        double x = fc_parzen_sample(l, u_kernel, u_value);
        double acq = fc_parzen_log_pdf(l, x) - fc_parzen_log_pdf(g, x);
        if (c == 0 || acq > best_acq) { best = x; best_acq = acq; }
    }
    return best;
}

/* Parameter j from the split: below = r[0, n_below), above = the rest,
 * each in trial order. */
static fc_status sample_one(const fc_search_space *s, const fc_tune_history *h, const ranked *r, size_t n,
                            size_t n_below, double *obs, uint64_t seed, size_t trial, size_t j, double *x) {
    fc_parzen l, g;
    for (size_t i = 0; i < n; i++) obs[i] = h->x[r[i].trial * h->n_params + j];
    fc_status st = fc_parzen_build(&l, &s->params[j], obs, n_below);
    if (st == FC_OK) st = fc_parzen_build(&g, &s->params[j], obs + n_below, n - n_below);
    if (st == FC_OK) *x = best_candidate(&l, &g, seed, trial, j);
    fc_parzen_free(&l);
    fc_parzen_free(&g);
    return st;
}

fc_status fc_tune_sample_tpe(const fc_search_space *s, const fc_tune_history *h, uint64_t seed, size_t trial,
                             double *x) {
    size_t n = 0;
    for (size_t i = 0; i < h->n; i++) n += h->usable[i];
    if (n < FC_TPE_STARTUP_TRIALS) {
        fc_tune_sample_random(s, seed, trial, x);
        return FC_OK;
    }
    ranked *r = fc_malloc(n * sizeof *r, "TPE");
    double *obs = fc_malloc(n * sizeof *obs, "TPE");
    fc_status st = r && obs ? FC_OK : FC_ERR_MEMORY;
    if (st == FC_OK) {
        size_t k = 0;
        for (size_t i = 0; i < h->n; i++)
            if (h->usable[i]) r[k++] = (ranked){h->score[i], i};
        size_t n_below = (n + 9) / 10 < 25 ? (n + 9) / 10 : 25;   /* gamma(n) = min(ceil(0.1 n), 25) */
        qsort(r, n, sizeof *r, by_score);
        qsort(r, n_below, sizeof *r, by_trial);
        qsort(r + n_below, n - n_below, sizeof *r, by_trial);
        for (size_t j = 0; j < s->n && st == FC_OK; j++)
            st = sample_one(s, h, r, n, n_below, obs, seed, trial, j, &x[j]);
    }
    free(r);
    free(obs);
    return st;
}
