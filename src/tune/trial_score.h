/* The score of one trial of `fcast tune`: one number, lower is better, from
 * a cross-validation's forecasts. neuralforecast's Auto models minimise the
 * validation loss of each trial's fit; fcast tune minimises an accuracy
 * metric over every forecast point of a cross-validation (all origins, all
 * steps, all series pooled), so a trial is judged as `fcast cv` then
 * `fcast eval` would judge it:
 *   mae    mean |y - yhat|
 *   mse    mean (y - yhat)^2
 *   rmse   sqrt(mse) (ranks trials as mse does)
 *   smape  mean 200 |y - yhat| / (|y| + |yhat|) (0/0 counts 0), as fcast eval
 *   mase   mean |y - yhat| / s, s the mean |y_t - y_{t-m}| of the series up
 *          to the origin's cutoff (origins with s = 0 are left out)
 * Points whose y is missing are left out. */
#ifndef FC_TUNE_TRIAL_SCORE_H
#define FC_TUNE_TRIAL_SCORE_H

#include "kernels/loss.h"
#include "train/cross_validation.h"

typedef enum { FC_TUNE_MAE, FC_TUNE_MSE, FC_TUNE_RMSE, FC_TUNE_SMAPE, FC_TUNE_MASE } fc_tune_metric;

/* 0 and *m set, or -1 for an unknown name. */
int fc_tune_metric_parse(const char *name, fc_tune_metric *m);
const char *fc_tune_metric_name(fc_tune_metric m);

/* Which of a model's outputs per point is its point forecast: the only one,
 * or for a multi-quantile loss the quantile nearest 0.5 (the median). */
size_t fc_tune_point_output(const fc_loss_spec *loss);

typedef struct {
    fc_tune_metric metric;
    size_t season;           /* mase's m */
    size_t h, n_outputs, point_output;
} fc_score_spec;

/* The score of forecasts values (n_origins, h, n_outputs) at origins o of
 * ds into *score, and the points it counts into *points. FC_ERR_INVALID when
 * no point can be scored. */
fc_status fc_tune_score(const fc_dataset *ds, const fc_cv_origin *o, size_t n_origins, const float *values,
                        const fc_score_spec *spec, double *score, size_t *points);

#endif
