/* Ensembles of forecasters (fcast ensemble): members trained alike but for
 * their architecture, input size, loss and seed, whose point forecasts are
 * combined per point by the median or the mean (N-BEATS's M4 ensemble,
 * Oreshkin et al. 2019, took the median of 180 such models). */
#ifndef FC_TRAIN_ENSEMBLE_H
#define FC_TRAIN_ENSEMBLE_H

#include "train/forecaster.h"

/* Members in one ensemble at most (N-BEATS's M4 ensemble had 180). */
#define FC_ENSEMBLE_MAX_MEMBERS 256

typedef enum { FC_COMBINE_MEDIAN, FC_COMBINE_MEAN, FC_COMBINE_KINDS } fc_combine;

const char *fc_combine_name(fc_combine c);          /* "median", "mean" */
int fc_combine_parse(const char *s, fc_combine *out);   /* 0 on success */

typedef struct {
    fc_combine combine;
    size_t n;                   /* members */
    fc_forecaster *members;     /* (n), owned */
} fc_ensemble;

void fc_ensemble_free(fc_ensemble *e);

/* out[p] = the combination of values[0][p] .. values[n-1][p] for p < count:
 * the median as numpy.median (an even count: the mean of the two middle
 * values) or the mean, both computed in double and rounded once to float.
 * A NaN among a point's values makes that point NaN (as numpy). n is 1 to
 * FC_ENSEMBLE_MAX_MEMBERS. */
void fc_ensemble_combine(fc_combine c, const float *const *values, size_t n, size_t count, float *out);

/* The ensemble's forecast of the next h points of every series of ds:
 * each member's fc_predict (from its own last input_size points), combined
 * per point as above, into out (n_series, h). What fcast predict writes in
 * its column Ensemble for the same file and data; fcast serve and fcast
 * eval --model forecast ensembles with it. */
fc_status fc_ensemble_predict(fc_ensemble *e, const fc_dataset *ds, float *out);

#endif
