/* The exogenous part of a batch (neuralforecast's futr_exog, hist_exog and
 * stat_exog of windows_batch): the model configuration names the columns,
 * the dataset holds them (its exog columns and its static values), and a
 * window's values are gathered and scaled beside its y (train/batch.c).
 *
 * Scaling is neuralforecast's BaseModel._normalization: every temporal
 * exogenous channel gets the window's scaler with its own statistics,
 * computed, like y's, over the insample points where y is observed (y's
 * available_mask, not the channel's), then applied to all its points, the
 * horizon included. Static values are not scaled. Points outside the
 * visible part of the series are 0, as neuralforecast's padding. */
#ifndef FC_TRAIN_BATCH_EXOG_H
#define FC_TRAIN_BATCH_EXOG_H

#include "data/dataset.h"
#include "kernels/scaler.h"
#include "models/model.h"
#include "train/windows.h"

/* The model's exogenous columns located in one dataset. */
typedef struct {
    size_t F, X, S;
    size_t futr[FC_MAX_EXOG], hist[FC_MAX_EXOG];   /* columns of ds->exog */
    size_t stat[FC_MAX_EXOG];                      /* columns of ds->static_values */
} fc_exog_cols;

/* Finds c's columns in ds: FC_ERR_INVALID naming the file and the column
 * (and the flag that asked for it) when one is missing. */
fc_status fc_exog_resolve(const fc_model_config *c, const fc_dataset *ds, fc_exog_cols *out);

/* Floats per window of each part: futr (L + H) F, hist L X, stat S. */
void fc_exog_widths(const fc_model_config *c, size_t w[3]);

/* Window w's exogenous inputs into futr (L + H, F), hist (L, X) and stat
 * (S), scaled with y's insample mask ym (L); work holds L + H + L floats. */
void fc_exog_gather(const fc_dataset *ds, const fc_exog_cols *cols, const fc_window *w, size_t L, size_t H,
                    size_t limit, const float *ym, fc_scaler_kind scaler, float *work, float *futr, float *hist,
                    float *stat);

#endif
