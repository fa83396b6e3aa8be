/* Forecast output as neuralforecast writes it: a long CSV with columns
 * unique_id, ds, <MODEL> (NHITS, NBEATS, MLP), h rows per series with the
 * future ds on the data's frequency. Written by fc_write_file_atomic (a
 * file replaced atomically, a device or FIFO written through, "-" standard
 * output), or to any stream (fcast serve's responses), from the same code
 * so the two texts cannot drift apart. */
#ifndef FC_IO_FORECAST_CSV_H
#define FC_IO_FORECAST_CSV_H

#include <stdio.h>

#include "data/dataset.h"
#include "io/csv_write.h"

/* How a forecast value is printed: 9 significant digits round-trip a float. */
#define FC_FORECAST_VALUE_FORMAT "%.9g"

/* forecasts (n_series, h) in the order of ds's series; the future ds of
 * series i are its last ds advanced 1..h steps of `freq`. */
fc_status fc_forecast_write_csv(const char *path, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                const char *column, const float *forecasts);

/* The same text written to f (a failed write shows in ferror(f)). */
fc_status fc_forecast_write_stream(FILE *f, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                   const char *column, const float *forecasts);

/* Several models' columns side by side, as neuralforecast's models=[...]:
 * a model's columns are its name followed by each output's suffix (""
 * for a point forecast, "-median", "-lo-80", "_ql0.9", ...). */
typedef struct {
    const char *name;              /* NHITS, NBEATS1, ... */
    size_t n_outputs;
    const char *const *suffixes;   /* (n_outputs) */
    const float *values;           /* (rows, h, n_outputs) */
} fc_forecast_columns;

/* unique_id, ds, then every model's columns: values (n_series, h, n_outputs). */
fc_status fc_forecast_write_columns(const char *path, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                    const fc_forecast_columns *models, size_t n_models);

/* The same text written to f. */
fc_status fc_forecast_write_columns_stream(FILE *f, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                           const fc_forecast_columns *models, size_t n_models);

/* The header cells of the models' columns (",NHITS,NHITS-lo-80,..."), quoted as needed. */
void fc_forecast_write_column_names(FILE *f, const fc_forecast_columns *models, size_t n_models);

/* The (k+1)-th future ds of series s (k from 0), as the CSV writes it. */
void fc_forecast_ds_text(const fc_dataset *ds, const fc_freq *freq, size_t s, size_t k, char *buf, size_t cap);

#endif
