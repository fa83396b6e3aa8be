/* Forecast output as neuralforecast writes it: a long CSV with columns
 * unique_id, ds, <MODEL> (NHITS, NBEATS, MLP), h rows per series with the
 * future ds on the data's frequency. Written by fc_write_file_atomic (a
 * file replaced atomically, a device or FIFO written through, "-" standard
 * output). */
#ifndef FC_IO_FORECAST_CSV_H
#define FC_IO_FORECAST_CSV_H

#include "data/dataset.h"
#include "io/csv_write.h"

/* forecasts (n_series, h) in the order of ds's series; the future ds of
 * series i are its last ds advanced 1..h steps of `freq`. */
fc_status fc_forecast_write_csv(const char *path, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                const char *column, const float *forecasts);

#endif
