/* Cross-validation output as neuralforecast's cross_validation writes it:
 * unique_id, ds, cutoff, <model columns>, y, sorted by unique_id, cutoff,
 * ds (h rows per origin). A model's columns are its name followed by each
 * output's suffix ("" for a point forecast, "-median", "-lo-80", "_ql0.9",
 * ...), models side by side in the order given. y is empty where the data
 * has a gap (a filled, missing point), as pandas writes NaN. */
#ifndef FC_IO_CV_CSV_H
#define FC_IO_CV_CSV_H

#include "data/dataset.h"
#include "io/forecast_csv.h"
#include "train/cross_validation.h"

typedef fc_forecast_columns fc_cv_columns;

fc_status fc_cv_write_csv(const char *path, const fc_dataset *ds, const fc_cv_origin *o, size_t n, size_t h,
                          const fc_cv_columns *models, size_t n_models);

#endif
