/* One parameter's Parzen estimator, as optuna's TPE builds it
 * (samplers/_tpe/parzen_estimator.py, univariate): a mixture of one
 * truncated Gaussian per observation plus a prior (the whole range), or
 * for a choice, one smoothed histogram row per observation plus a uniform
 * prior row. Numbers live in the "transformed" space: log for log
 * parameters, an integer range widened by half a step each side. */
#ifndef FC_TUNE_PARZEN_H
#define FC_TUNE_PARZEN_H

#include <stddef.h>

#include "tune/search_space.h"

typedef struct {
    const fc_param *p;
    size_t n;              /* kernels: the observations', then the prior's */
    double *w;             /* (n) mixture weights, summing to 1 */
    double *mu, *sigma;    /* ranges: (n), transformed */
    double lo, hi;         /* ranges: the transformed bounds */
    double *rows;          /* choice: (n, n_choices), each row summing to 1 */
} fc_parzen;

/* The estimator of the observations obs (internal representation, in
 * trial order: optuna's weights favour the newest when there are over 25). */
fc_status fc_parzen_build(fc_parzen *e, const fc_param *p, const double *obs, size_t n_obs);

/* A value drawn from the mixture with two uniforms in (0, 1): u_kernel
 * picks the kernel, u_value the value within it. */
double fc_parzen_sample(const fc_parzen *e, double u_kernel, double u_value);

/* log density (log mass for integers and choices) of x, internal
 * representation, in the transformed space. */
double fc_parzen_log_pdf(const fc_parzen *e, double x);

void fc_parzen_free(fc_parzen *e);

/* The standard normal's quantile function (exposed for the tests). */
double fc_norm_ppf(double p);

#endif
