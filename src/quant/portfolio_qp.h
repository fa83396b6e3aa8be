/* Fully invested portfolios under per-asset bounds lo_i <= w_i <= hi_i
 * (lo finite, hi may be +inf): minimum variance, with a target return,
 * the efficient frontier and the maximum-Sharpe (tangency) portfolio, as
 * quadratic programmes solved exactly by qp_dense.h. mu and cov are per
 * period (the caller annualises). */
#ifndef FC_QUANT_PORTFOLIO_QP_H
#define FC_QUANT_PORTFOLIO_QP_H

#include <stddef.h>
#include "fcast/status.h"
#include "quant/qp_dense.h"

typedef struct {
    const double *lower, *upper;   /* N each */
} fc_box;

/* lo_i finite, lo_i <= hi_i, hi_i > 0 or not NaN, and sum lo <= 1 <= sum hi
 * (else the weights cannot sum to 1); messages name lower[i] / upper[i]. */
fc_status fc_box_check(const fc_box *b, size_t N);

/* The lowest and highest mu'w over the fully invested weights in the box
 * (a linear programme, solved greedily: from w = lo, the mass 1 - sum lo
 * goes to the assets of highest (lowest) mean first, each up to hi). */
void fc_box_return_range(const fc_box *b, const double *mu, size_t N, double *lowest, double *highest);

/* The greedy weights of fc_box_return_range's highest return, and whether
 * they are the only weights earning it (no tie of means at the margin). */
int fc_box_highest_weights(const fc_box *b, const double *mu, size_t N, double *w);

/* min w'cov w subject to 1'w = 1, the box, and mu'w = *target when target
 * is not NULL (per period; inside fc_box_return_range, else an error
 * naming --target-return and the range). info may be NULL. */
fc_status fc_portfolio_box_min_variance(const double *cov, const double *mu, size_t N, const fc_box *b,
                                        const double *target, double *w, fc_qp_info *info);

/* n_points >= 2 frontier portfolios, targets evenly spaced from the
 * minimum-variance portfolio's return to the highest reachable return:
 * targets (n_points) and weights W (n_points x N, row k for targets[k]). */
fc_status fc_portfolio_box_frontier(const double *cov, const double *mu, size_t N, const fc_box *b,
                                    size_t n_points, double *targets, double *W, fc_qp_info *info);

/* The maximum-Sharpe portfolio in the box: min y'cov y subject to
 * (mu - rf)'y = s, lo_i 1'y <= y_i <= hi_i 1'y, 1'y >= 0, then
 * w = y / 1'y (s > 0 any scale: the highest reachable excess return).
 * An error when no weights in the box earn more than rf. */
fc_status fc_portfolio_box_max_sharpe(const double *cov, const double *mu, size_t N, const fc_box *b, double rf,
                                      double *w, fc_qp_info *info);

#endif
