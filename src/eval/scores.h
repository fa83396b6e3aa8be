/* The per-point and per-window arithmetic of forecast scores, as
 * utilsforecast.losses defines them for one (unique_id, cutoff) window:
 *   MAE   = mean |y - yhat|            MSE = mean (y - yhat)^2
 *   RMSE  = sqrt(MSE)
 *   sMAPE = mean |y - yhat| / (|y| + |yhat|)   (0/0 counts 0), reported
 *           x200: M4's 0-200 scale, which `fcast eval --model` prints
 *   MAPE  = mean over y != 0 of |y - yhat| / |y|, reported x100 (percent)
 *   MASE  = MAE / mean_t |y_t - y_{t-m}| over the history up to the cutoff
 *   QL_q  = mean max(q (y - yhat), (q - 1)(y - yhat))
 *   scaled CRPS = 2 * mean_q QL_q * n / (sum |y| + DBL_EPSILON)
 *   coverage_L  = share of points with lo_L <= y <= hi_L
 * Kept apart from file reading so tests check them on hand-made numbers. */
#ifndef FC_EVAL_SCORES_H
#define FC_EVAL_SCORES_H

#include <stddef.h>

/* Sums of one model's point errors over a window. */
typedef struct {
    double n, abs, sq, smape, ape, ape_n;
} fc_point_sums;

typedef struct {
    double mae, mse, rmse, smape200, mape_pct;
} fc_point_scores;

void fc_point_sums_add(fc_point_sums *s, double y, double yhat);
/* NaN where undefined: no points, or (MAPE) no y != 0. */
fc_point_scores fc_point_scores_of(const fc_point_sums *s);

/* Pinball loss of one quantile forecast. */
double fc_quantile_loss(double q, double y, double yhat);

/* utilsforecast's scaled_crps of a window from the sums over its n points
 * of each quantile's loss (ql_sums, nq of them) and sum |y|. NaN if nq or n
 * is 0. */
double fc_scaled_crps(const double *ql_sums, size_t nq, double n, double abs_y_sum);

/* 1 if lo <= y <= hi (utilsforecast's is_between: both ends inclusive). */
int fc_interval_covers(double y, double lo, double hi);

/* The quantiles of a central interval of level L (percent). */
static inline double fc_level_lo_quantile(double level) { return (100.0 - level) / 200.0; }
static inline double fc_level_hi_quantile(double level) { return (100.0 + level) / 200.0; }

/* MASE of a window: mae / scale, NaN when the scale is not > 0. */
double fc_mase(double mae, double scale);

#endif
