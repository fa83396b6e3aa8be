/* What the forecast endpoint reads and writes (docs/serving.md):
 *
 * Request, JSON (application/json):
 *   {"series": [{"unique_id": "a", "ds": [...], "y": [...]}, ...], "h": optional}
 * ds entries are all strings (dates, "2024-01-31" or "2024-01-31 13:00:00")
 * or all integers; y entries are numbers or null (missing). The same
 * unique_id twice, ds and y of different lengths, a value of the wrong type,
 * a non-finite number, an empty list: errors naming the field, as
 * "series[2].y[7]: expected a number or null, got a string".
 * and optionally "level": [80, 95], the levels of a conformal model's
 * intervals (as fcast predict --level).
 * Request, CSV (text/csv): the long format fcast predict reads.
 *
 * Either becomes the same fc_dataset fcast predict builds from the
 * equivalent CSV (the same loader: dataset_build.c's sorting, duplicate,
 * grid and frequency checks), so a forecast over HTTP equals fcast predict's
 * bit for bit.
 *
 * Response, JSON: {"model": "name", "h": H, "forecasts": [{"unique_id":
 * "a", "ds": [...future ds...], "<COLUMN>": [...]}, ...]} in the dataset's
 * series order, numbers printed as fcast predict prints them (%.9g), future
 * ds as predict computes and formats them. Response, CSV: exactly the text
 * fcast predict writes. */
#ifndef FC_SERVE_FORECAST_CODEC_H
#define FC_SERVE_FORECAST_CODEC_H

#include <stddef.h>
#include "api/serve_engine.h"

/* Limits of one request (the server's flags); 0, or a NULL lim, is no
 * limit. */
typedef struct {
    size_t max_series;        /* series in one request */
    size_t max_points;        /* points over all series after gap filling: the points as sent are
                               * checked before loading, the filled ones by the loader from each
                               * series' first and last ds, before it allocates for them */
} fc_forecast_limits;

/* Parses a JSON request body (len bytes, not NUL-terminated) into *ds
 * (loaded with opt, as predict loads its --data) and *p (h 0 when absent).
 * Errors: FC_ERR_PARSE for malformed JSON (jansson's line and column),
 * FC_ERR_INVALID naming the field (the loader's own checks too: a duplicate
 * or off-grid ds is reported as "series[i].ds[j]: ..."), FC_ERR_MEMORY past
 * the limits (checked before the dataset is built; max_points also after
 * gap filling, naming the series that fills the most and its count).
 * Unknown keys, at the top level or in a series, are errors. p may be
 * NULL. Never crashes on any input (fuzzed:
 * tests/fuzz/fuzz_forecast_request.c). */
/* What a request asks beside its series: h (0: the model's), levels. */
typedef struct {
    size_t h;
    double levels[FC_MAX_LEVELS];
    size_t n_levels;
} fc_forecast_params;

fc_status fc_forecast_request_json(const char *body, size_t len, const fc_load_options *opt,
                                   const fc_forecast_limits *lim, fc_dataset **ds, fc_forecast_params *p);

/* The same for a CSV body: the loader's own errors ("request:LINE: ..."),
 * FC_ERR_MEMORY past the limits (the rows before loading, the points after
 * gap filling before they are allocated, the series after loading). */
fc_status fc_forecast_request_csv(const char *body, size_t len, const fc_load_options *opt,
                                  const fc_forecast_limits *lim, fc_dataset **ds);

/* forecasts (n_series, h) as the JSON response, malloc'd NUL-terminated
 * text (*len bytes; len may be NULL), or NULL with an error. An integer ds
 * is a JSON number, a date a string; a non-finite forecast is null (the
 * CSV's "nan"); a byte of an id that is not UTF-8 is written as U+FFFD. */
char *fc_forecast_response_json(const char *model, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                const char *column, const float *forecasts, size_t *len);
/* The same as the CSV fcast predict writes. */
char *fc_forecast_response_csv(const fc_dataset *ds, const fc_freq *freq, size_t h, const char *column,
                               const float *forecasts, size_t *len);
/* Both for one model's columns (quantiles, intervals): values (n_series,
 * h, n_outputs), one JSON list or CSV column per output. */
char *fc_forecast_response_json_columns(const char *model, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                        const fc_forecast_columns *cols, size_t *len);
char *fc_forecast_response_csv_columns(const fc_dataset *ds, const fc_freq *freq, size_t h,
                                       const fc_forecast_columns *cols, size_t *len);

#endif
