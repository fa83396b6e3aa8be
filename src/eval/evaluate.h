/* Scoring a forecaster on a test file next to the seasonal-naive forecast:
 * forecasts the h points after each series' training history and compares
 * them with the test rows of the same (unique_id, ds). */
#ifndef FC_EVAL_EVALUATE_H
#define FC_EVAL_EVALUATE_H

#include "eval/metrics.h"
#include "train/ensemble.h"
#include "train/forecaster.h"

typedef struct {
    fc_metric_values model, naive;
    size_t season;
    size_t test_rows_outside;   /* rows of the test file beyond the horizon or off its ds grid */
} fc_eval_result;

/* Every test series must exist in train (else FC_ERR_INVALID naming it). */
fc_status fc_evaluate(fc_forecaster *f, const fc_dataset *train, const fc_dataset *test, size_t season,
                      fc_eval_result *r);
/* The same for an ensemble file's combined forecast (fc_ensemble_predict:
 * the column Ensemble of fcast predict), its members sharing h and axis. */
fc_status fc_evaluate_ensemble(fc_ensemble *e, const fc_dataset *train, const fc_dataset *test, size_t season,
                               fc_eval_result *r);

/* Loads a history CSV on the forecaster's time axis (its frequency), and
 * checks that its ds kind is the one the model was trained with. `how`
 * (may be NULL) says whether to stream and whether to keep gaps: a test
 * file is loaded with keep_gaps (its rows are looked up by ds, not
 * windowed); its frequency is the model's. The extra columns are dropped
 * unless how->drop_exog is 0 (predict keeps those its models read). */
fc_status fc_load_history(const fc_forecaster *f, const char *path, const fc_load_options *how, fc_dataset **out);

#endif
