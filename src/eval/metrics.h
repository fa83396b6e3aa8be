/* Point-forecast accuracy with the M4 competition's definitions:
 *   MAE   = mean |y - yhat|                       (pooled over all points)
 *   RMSE  = sqrt(mean (y - yhat)^2)                (pooled)
 *   sMAPE = 200/n * sum |y - yhat| / (|y| + |yhat|) (pooled; 0/0 counts 0)
 *   MASE  = per series MAE / mean_t |y_t - y_{t-m}| over its training
 *           history, then averaged over series (series whose seasonal
 *           differences are all 0 are left out and counted).
 * And the seasonal-naive forecast yhat_{T+k} = y_{T+k-m*ceil(k/m)}. */
#ifndef FC_EVAL_METRICS_H
#define FC_EVAL_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include "data/dataset.h"

typedef struct {
    double abs_sum, sq_sum, smape_sum;
    size_t points;
    double mase_sum;          /* sum over series of per-series MASE */
    size_t mase_series, mase_skipped;
    /* per-series running sums while a series is being scored */
    double series_abs;
    size_t series_points;
} fc_metrics;

typedef struct { double mae, rmse, smape, mase; size_t points, series, mase_skipped; } fc_metric_values;

void fc_metrics_reset(fc_metrics *m);
void fc_metrics_add(fc_metrics *m, double y, double yhat);
/* Closes the current series with its MASE scale (<= 0: not scalable). */
void fc_metrics_end_series(fc_metrics *m, double mase_scale);
fc_metric_values fc_metrics_values(const fc_metrics *m);

/* mean |y_t - y_{t-m}| over the observed pairs of series s (0 if none). */
double fc_seasonal_scale(const fc_dataset *ds, size_t s, size_t m);

/* The same over series s's points 0..c only: the in-sample scale of a
 * forecast made at its point c (a cross-validation cutoff). */
double fc_seasonal_scale_upto(const fc_dataset *ds, size_t s, size_t c, size_t m);

/* The last observed value of series s at or before its point c (the naive
 * forecast made there), NaN when none is. */
double fc_naive_at(const fc_dataset *ds, size_t s, size_t c);

/* The seasonal-naive forecast made at point c of series s for k >= 1 steps
 * ahead: as fc_seasonal_naive below, with the history cut after point c
 * (NaN when nothing is observed up to c). */
double fc_seasonal_naive_at(const fc_dataset *ds, size_t s, size_t c, size_t m, size_t k);

/* Seasonal-naive forecasts of series s for steps 1..h into out (h): the
 * value one season before, skipping back further seasons over missing
 * points; the last observed value when a season is longer than the series. */
void fc_seasonal_naive(const fc_dataset *ds, size_t s, size_t m, size_t h, float *out);

#endif
