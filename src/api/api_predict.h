/* fcast_predict_files (fcast.h) in parts: the model files of one call
 * loaded side by side with their columns named as neuralforecast names
 * them (api_predict_models.c), their forecasts and the ensembles'
 * combinations (api_predict_forecast.c), the warnings about the inputs
 * (api_predict_warn.c), the exogenous inputs (api_predict_exog.c) and the
 * run itself (api_predict_run.c). */
#ifndef FC_API_API_PREDICT_H
#define FC_API_API_PREDICT_H

#include "api/api.h"
#include "train/ensemble_file.h"
#include "train/forecast_columns.h"

#define FC_PREDICT_MAX_FILES 16

/* One forecaster of the call and its columns: a model file's, or a member
 * of an ensemble file (whose columns are written only with "members"). */
typedef struct {
    fc_forecaster f;
    int shown;                /* its columns are written */
    fc_column_set cols;       /* train/forecast_columns.h: as fcast serve names them */
    float *values;            /* (n_series, h, cols.n_cols) */
} fc_predict_model;

/* One file of "model": a model (one forecaster) or an ensemble (its
 * members, combined into the column Ensemble). */
typedef struct {
    size_t first, n;          /* its forecasters: m[first .. first + n) */
    int ensemble;
    fc_combine combine;
    char name[32];            /* Ensemble, Ensemble1, ... */
    float *values;            /* (n_series, h): the combination */
} fc_predict_file;

typedef struct {
    fc_predict_model *m;
    size_t n_models, cap;
    fc_predict_file files[FC_PREDICT_MAX_FILES];
    size_t n_files;
    double levels[FC_MAX_LEVELS];
    size_t n_levels;
    int members;              /* an ensemble's members' columns after its own */
} fc_predict_run;

/* The comma-separated files of `list` loaded on be into r (whose levels
 * and members are set), checked to share one horizon and time axis, their
 * columns named. */
fc_status fc_predict_load_models(fc_predict_run *r, const char *list, fc_backend *be);

/* Every forecaster's columns for every series of ds, then the ensembles'.
 * ext, when not NULL, is ds with each series' future exogenous values
 * appended (h points): the models read their inputs from it. */
fc_status fc_predict_forecast_all(fc_predict_run *r, const fc_dataset *ds, const fc_dataset *ext);

/* The forecast CSV at path ("-": standard output), written atomically. */
fc_status fc_predict_write(const fc_predict_run *r, const char *path, const fc_dataset *ds);

/* The warnings about short or unobserved inputs, once per input size. */
void fc_predict_warn_inputs(const fc_predict_run *r, const fc_dataset *ds);

void fc_predict_run_free(fc_predict_run *r);

/* An option's word in what is printed rather than returned (warnings):
 * the flag under FCAST_NAMES_FLAGS, else the key (fc_api_words does the
 * same for the messages returned). */
static inline const char *fc_predict_word(const char *flag) { return fc_api_names_flags() ? flag : flag + 2; }

#endif
