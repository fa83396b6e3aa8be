/* fcast: neural time-series forecasting and trading analytics in C.
 *
 * The one public header. Structures are opaque; every fallible call returns
 * an fc_status and, on failure, fc_last_error() says what failed, where and
 * with which input (file, line, column, series id, field). */
#ifndef FCAST_H
#define FCAST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    FC_OK = 0,
    FC_ERR_IO,          /* a file could not be opened, read or written */
    FC_ERR_PARSE,       /* malformed user input (CSV, JSON, arguments) */
    FC_ERR_INVALID,     /* well-formed but unusable input (shapes, ranges) */
    FC_ERR_MEMORY,      /* an allocation failed or a budget was exceeded */
    FC_ERR_FORMAT,      /* a model or data file is corrupt or incompatible */
    FC_ERR_BACKEND,     /* the compute backend reported a failure */
    FC_ERR_INTERRUPTED  /* stopped by a signal; state was saved */
} fc_status;

/* The message of the last failure on this thread ("" if none). */
const char *fc_last_error(void);
/* The status that went with that message (FC_OK if none). */
fc_status fc_last_status(void);
const char *fc_status_name(fc_status s);
const char *fc_version(void);

/* ------------------------------------------------------------------ */
/* The library API (libfcast.so, pkg-config fcast; docs/c-api.md).      */
/* Handles are opaque; every call that can fail returns an fc_status,  */
/* the message in fc_last_error() naming the argument, series or field.*/
/* ------------------------------------------------------------------ */

/* Raised whenever a call or a type changes meaning; a program built
 * against version N runs with any library whose fcast_api_version() is N. */
#define FCAST_API_VERSION 1
int fcast_api_version(void);

typedef struct fcast_data fcast_data;       /* a panel of series (long format) */
typedef struct fcast_config fcast_config;   /* a model and how to train it */
typedef struct fcast_model fcast_model;     /* a trained forecaster */

/* How ds values are given: integer steps, or seconds since
 * 1970-01-01T00:00:00 (no time zone) for dates and datetimes. */
typedef enum { FCAST_DS_INDEX = 0, FCAST_DS_DATE = 1, FCAST_DS_DATETIME = 2 } fcast_ds_kind;

/* A panel from the caller's arrays in the grouped layout (coreforecast's
 * GroupedArray): series i is ids[i], its values y[indptr[i] .. indptr[i+1])
 * (NaN: missing) at ds[indptr[i] ..] (ds NULL: 0, 1, 2, ... per series, an
 * integer index). freq: a pandas alias ("MS", "D", "h", "30min"; "1" for
 * an index), NULL to infer it. Series may come in any order and their
 * points need not be sorted; gaps on the frequency grid become missing
 * points, as when a file is read. The arrays are copied: they may change
 * or go once this returns. Errors name the series and the position in y
 * (from 0), where a file's messages would name a line. */
fc_status fcast_data_from_arrays(size_t n_series, const char *const *ids, const int64_t *indptr, const double *y,
                                 const int64_t *ds, fcast_ds_kind ds_kind, const char *freq, fcast_data **out);
/* A named column of numbers beside y (an exogenous variable: a pandas
 * column), its values in the layout of the arrays it comes with. */
typedef struct {
    const char *name;
    const double *values;
} fcast_column;

/* fcast_data_from_arrays with extra columns (neuralforecast's exogenous
 * variables: what a configuration's "futr-exog" and "hist-exog" keys
 * name), each of indptr[n_series] values in y's layout, NaN where empty.
 * Names must be unique and not unique_id, ds or y. y may be NULL for the
 * future values of a forecast (neuralforecast's futr_df: no target): every
 * y is then missing and the rows are kept as given, without a grid. */
fc_status fcast_data_from_columns(size_t n_series, const char *const *ids, const int64_t *indptr, const double *y,
                                  const int64_t *ds, fcast_ds_kind ds_kind, const char *freq,
                                  const fcast_column *columns, size_t n_columns, fcast_data **out);
/* Static exogenous values (neuralforecast's static_df): row r belongs to
 * series ids[r], and column j holds columns[j].values[r], finite. Every
 * series of d needs a row; rows of other series are ignored. Replaces any
 * static values set before. A configuration's "stat-exog" names the ones
 * a model reads. */
fc_status fcast_data_set_static(fcast_data *d, size_t n_rows, const char *const *ids, const fcast_column *columns,
                                size_t n_columns);
/* A long-format CSV file (unique_id, ds, y, other columns). */
fc_status fcast_data_read_csv(const char *path, fcast_data **out);
size_t fcast_data_n_series(const fcast_data *d);
/* The id of series i (sorted order, as forecasts come out), NULL past the end. */
const char *fcast_data_id(const fcast_data *d, size_t i);
void fcast_data_free(fcast_data *d);

/* A configuration of model `model` ("nhits", "nbeats", "mlp", "nbeatsx",
 * "lstm", "tide", "patchtst") with horizon h and input window input_size,
 * at neuralforecast's defaults for that model. */
fc_status fcast_config_new(const char *model, size_t h, size_t input_size, fcast_config **out);
/* One setting, by the name and in the text of `fcast train`'s flag
 * (docs/training.md): fcast_config_set(c, "max-steps", "500"),
 * (c, "scaler", "robust"), (c, "hidden-size", "256"). Unknown keys and
 * values out of range are refused by name. */
fc_status fcast_config_set(fcast_config *c, const char *key, const char *value);
void fcast_config_free(fcast_config *c);

/* Called after every training step: the step (from 1), the steps of the
 * run and the step's training loss. */
typedef void (*fcast_progress_fn)(void *user, size_t step, size_t max_steps, double train_loss);

/* Trains a model of configuration c on d. progress may be NULL. When
 * *cancel (may be NULL) becomes non-zero, from any thread or a signal
 * handler, training stops after the current step: FC_ERR_INTERRUPTED, with
 * *out the model trained so far (the best validated weights when
 * validating), so a notebook's interrupt keeps its work. */
fc_status fcast_train(const fcast_config *c, const fcast_data *d, fcast_progress_fn progress, void *user,
                      const volatile int *cancel, fcast_model **out);
/* Forecasts of the h points after the end of every series of d into out,
 * (n_series, h, outputs) row-major (outputs: 1, or the quantiles of a
 * model trained with the mq loss), series in fcast_data_id's order;
 * capacity is out's length in floats and must hold them all. */
fc_status fcast_predict(const fcast_model *m, const fcast_data *d, float *out, size_t capacity);
/* fcast_predict for a model that reads future-known exogenous columns:
 * future holds their values over the next h points of every series of
 * history (fcast_data_from_columns with y NULL; other rows are ignored).
 * future may be NULL for a model without such columns. */
fc_status fcast_predict_future(const fcast_model *m, const fcast_data *history, const fcast_data *future, float *out,
                               size_t capacity);
size_t fcast_model_h(const fcast_model *m);
size_t fcast_model_input_size(const fcast_model *m);
size_t fcast_model_outputs(const fcast_model *m);
/* neuralforecast's class name of the model ("NHITS", "PatchTST"). */
const char *fcast_model_kind(const fcast_model *m);
/* The column suffix of output k, as neuralforecast names its columns: ""
 * for a point forecast, "-median", "-lo-80", "-hi-80" for an mq loss's;
 * NULL past the last output. */
const char *fcast_model_output_name(const fcast_model *m, size_t k);
/* The exogenous columns a model reads (neuralforecast's futr_exog_list,
 * hist_exog_list, stat_exog_list): column i of a kind, in the model's
 * order, NULL past the last. */
typedef enum { FCAST_EXOG_FUTURE = 0, FCAST_EXOG_HISTORIC = 1, FCAST_EXOG_STATIC = 2 } fcast_exog_kind;
const char *fcast_model_exog(const fcast_model *m, fcast_exog_kind kind, size_t i);

/* Cross-validation as neuralforecast's cross_validation: n_windows
 * forecast origins per series, step_size points apart, the last window
 * ending at each series' end. refit 0 trains one model with the last
 * h + step_size (n_windows - 1) points held out; refit k trains a fresh
 * model every k windows on the points up to its cutoff. progress and
 * cancel as fcast_train's (a cancelled run returns FC_ERR_INTERRUPTED and
 * no result). */
typedef struct fcast_cv fcast_cv;
fc_status fcast_cross_validate(const fcast_config *c, const fcast_data *d, size_t n_windows, size_t step_size,
                               size_t refit, fcast_progress_fn progress, void *user, const volatile int *cancel,
                               fcast_cv **out);
/* Rows of the result: one per origin and horizon step, series in
 * fcast_data_id's order, then origins in time order, then steps. */
size_t fcast_cv_rows(const fcast_cv *r);
size_t fcast_cv_outputs(const fcast_cv *r);
/* Copies the result's columns into the caller's arrays of `rows` entries
 * (forecast: rows x outputs floats); any may be NULL. series: the index
 * into fcast_data_id; ds and cutoff in the data's ds kind (seconds or
 * steps); y: the actual value, NaN where missing. */
fc_status fcast_cv_read(const fcast_cv *r, int64_t *series, int64_t *ds, int64_t *cutoff, double *y,
                        float *forecast, size_t rows);
void fcast_cv_free(fcast_cv *r);
/* Model files: safetensors with neuralforecast's state_dict names, the
 * files `fcast train --out` writes and `fcast predict --model` reads. */
fc_status fcast_model_save(const fcast_model *m, const char *path);
fc_status fcast_model_load(const char *path, fcast_model **out);
void fcast_model_free(fcast_model *m);

#ifdef __cplusplus
}
#endif
#endif
