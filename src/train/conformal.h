/* Conformal prediction intervals as neuralforecast's PredictionIntervals
 * (utils.py: add_conformal_distribution_intervals and
 * add_conformal_error_intervals). At training time a cross-validation of
 * n_windows origins, step_size apart, without refit, gives every series'
 * absolute errors |y - yhat| per window and horizon step: the conformity
 * scores, kept in the model file with the ids of their series. At
 * prediction, for a forecast m of series s at step t and each level l:
 *
 *   conformal_distribution: the quantiles alpha/200 and 1 - alpha/200
 *     (alpha = 100 - l) of the 2 n_windows values m -/+ score[s][w][t];
 *   conformal_error: m -/+ the (1 - alpha/200) quantile of score[s][.][t];
 *
 * quantiles as numpy's np.quantile (linear interpolation). Columns as
 * neuralforecast names them: lo for the levels in reverse order, then hi:
 * NHITS-lo-95, NHITS-lo-80, NHITS-hi-80, NHITS-hi-95 for levels 80, 95.
 * Where y was missing (a gap) its score is left out of that step's sample
 * (neuralforecast's would be NaN, and so its intervals). */
#ifndef FC_TRAIN_CONFORMAL_H
#define FC_TRAIN_CONFORMAL_H

#include <sys/types.h>

#include "train/cross_validation.h"

#define FC_MAX_LEVELS 8
/* "-lo-" and a level as Python writes it (at most 17 digits, a point, an exponent). */
#define FC_LEVEL_NAME_MAX 32

typedef enum { FC_CONFORMAL_DISTRIBUTION = 0, FC_CONFORMAL_ERROR } fc_conformal_method;

typedef struct fc_conformal {
    fc_conformal_method method;
    size_t n_windows, step_size, h;
    size_t n_series;
    char **ids;           /* (n_series) sorted, as a dataset's */
    float *scores;        /* (n_series, n_windows, h); NaN where y was missing */
} fc_conformal;

const char *fc_conformal_method_name(fc_conformal_method m);    /* "conformal_distribution", ... */
int fc_conformal_method_parse(const char *s, fc_conformal_method *out);   /* 0 on success */

/* Levels in (0, 100) as "80,95": at most FC_MAX_LEVELS, no repeats (the
 * error names `flag`), sorted as neuralforecast sorts them (predict's
 * `level_ = sorted(level)`), which sets the columns' order. */
fc_status fc_levels_parse(const char *text, const char *flag, double *levels, size_t *n);
void fc_levels_sort(double *levels, size_t n);
/* A level as Python's str() writes it in column names: "80", "80.5". */
void fc_level_text(double level, char *buf, size_t cap);

/* Scores from a cross-validation's origins and point forecasts (n, h) on
 * ds. Every series must have all n_windows origins (neuralforecast
 * requires h + step * (n_windows - 1) + 1 points, plus the validation). */
fc_status fc_conformal_from_cv(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *o, size_t n,
                               const float *forecasts, fc_conformal_method method, fc_conformal *out);

/* Scores for the training t describes (neuralforecast's fit with
 * PredictionIntervals): a cross-validation of `windows` origins `step`
 * apart without refit, quietly (no output, checkpoints or run log), and
 * its absolute errors per series, window and step. */
fc_status fc_conformal_fit(const fc_cv_training *t, const fc_dataset *ds, size_t windows, size_t step,
                           fc_conformal_method method, fc_conformal *out);

/* The index of series `id` among the scores' series, or -1. */
ssize_t fc_conformal_find(const fc_conformal *c, const char *id);

/* Intervals of one series' forecast `point` (h): out (h, 2 * n_levels),
 * per step the lo columns then the hi columns in neuralforecast's order. */
void fc_conformal_intervals(const fc_conformal *c, size_t series, const float *point, const double *levels,
                            size_t n_levels, float *out);

/* Column suffixes "-lo-95", ..., "-hi-95" into names (2 * n_levels, each
 * of `cap` bytes). */
void fc_conformal_suffixes(const double *levels, size_t n_levels, char (*names)[FC_LEVEL_NAME_MAX]);

void fc_conformal_free(fc_conformal *c);

#endif
