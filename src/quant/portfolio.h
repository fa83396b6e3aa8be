/* Fully invested minimum-variance and mean-variance (target return)
 * portfolios from a return matrix, in closed form: the weights solve the KKT
 * system of  min w' S w  subject to  1'w = 1  (and  mu'w = target)
 *     [ S  A' ] [ w      ]   [ 0 ]
 *     [ A  0  ] [ lambda ] = [ b ],   A = [1'; mu'],  b = [1; target]
 * with LAPACK's dgesv (LU with partial pivoting: the system is symmetric
 * but indefinite). Short positions are allowed (no inequality constraints).
 * S is the sample covariance (ddof 1), mu the sample mean, per period. */
#ifndef FC_QUANT_PORTFOLIO_H
#define FC_QUANT_PORTFOLIO_H

#include <stddef.h>
#include "fcast/status.h"

/* More assets than this make the N x N covariance and KKT system too large
 * for one machine's memory; refused before anything is computed. */
#define PORTFOLIO_MAX_ASSETS 4096

/* mu (N) and cov (N, N) of the returns R (T, N) row-major; T >= 2. */
fc_status fc_portfolio_moments(const double *R, size_t T, size_t N, double *mu, double *cov);

/* Minimum-variance weights (N), summing to 1. */
fc_status fc_portfolio_min_variance(const double *cov, size_t N, double *w);

/* Minimum variance among portfolios with expected return mu'w = target
 * (per period), fully invested. */
fc_status fc_portfolio_target_return(const double *cov, const double *mu, size_t N, double target,
                                     double *w);

/* w'mu and sqrt(w' S w). */
void fc_portfolio_stats(const double *cov, const double *mu, size_t N, const double *w, double *mean,
                        double *vol);

#endif
