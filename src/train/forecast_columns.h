/* The columns a forecaster writes, as neuralforecast names them, and their
 * values: shared by fcast predict and fcast serve so the two cannot drift.
 *
 *   point loss:                 NHITS
 *   quantile / mq loss:         NHITS_ql0.9 / NHITS-median, NHITS-lo-90, ...
 *                               (its own outputs: levels asked at predict
 *                               time do not change them, as neuralforecast)
 *   conformal, levels asked:    NHITS, NHITS-lo-95, NHITS-lo-80, NHITS-hi-80,
 *                               NHITS-hi-95 (train/conformal.h)
 *   distribution:               NHITS, NHITS-median, NHITS-lo-90, ... (its own
 *                               quantiles); levels asked: NHITS, NHITS-lo-95,
 *                               ..., NHITS-hi-95, drawn at the levels'
 *                               quantiles (neuralforecast's predict(level))
 *   IQLoss:                     NHITS_ql0.5; levels asked: NHITS-lo-95, ...,
 *                               NHITS-hi-95 alone (neuralforecast's 11-quantile
 *                               np.quantile, train/iq_forecast.h)
 *   point loss, levels asked:   an error (neuralforecast's too). */
#ifndef FC_TRAIN_FORECAST_COLUMNS_H
#define FC_TRAIN_FORECAST_COLUMNS_H

#include "train/conformal.h"
#include "train/forecaster.h"

#define FC_MAX_COLUMNS (1 + 2 * FC_MAX_LEVELS > FC_MAX_QUANTILES ? 1 + 2 * FC_MAX_LEVELS : FC_MAX_QUANTILES)

typedef struct {
    char name[32];                                  /* NHITS, NHITS1, ... */
    size_t n_cols;
    char suffix_text[FC_MAX_COLUMNS][FC_LOSS_NAME_MAX];
    const char *suffixes[FC_MAX_COLUMNS];           /* point at suffix_text */
    int intervals;                                  /* conformal columns after the point */
    int levels_ignored;                             /* levels asked of a quantile-loss model */
    int draws_levels;                               /* a distribution drawn at the levels' quantiles
                                                       (fc_loss_draw_levels): its own columns replaced */
    int iq_levels;                                  /* IQLoss at the levels' bounds (train/iq_forecast.h):
                                                       their columns alone, as neuralforecast's */
} fc_column_set;

/* The columns of f under `name` for the levels asked (n_levels 0: none). */
fc_status fc_columns_of(const fc_forecaster *f, const char *name, const double *levels, size_t n_levels,
                        fc_column_set *out);

/* When c->intervals: the values (n_series of ds, h, c->n_cols), each
 * point forecast of raw (n_series, h) followed by its conformal
 * intervals, each series' scores found by its id. Otherwise the raw
 * outputs (n_series, h, n_outputs) are the columns as they are. */
fc_status fc_columns_fill(const fc_forecaster *f, const fc_column_set *c, const fc_dataset *ds, const float *raw,
                          const double *levels, size_t n_levels, float *out);

#endif
