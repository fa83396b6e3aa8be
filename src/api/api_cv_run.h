/* A cross-validation of several configurations side by side on one panel
 * (fcast_cross_validate_file's work, and each trial of fcast_tune_file):
 * the configurations resolved and named as neuralforecast names its
 * columns, the origins of the data, and every model's forecasts at them,
 * on the engine's cross-validation (train/cross_validation.h), the one
 * fcast_cross_validate runs. */
#ifndef FC_API_API_CV_RUN_H
#define FC_API_API_CV_RUN_H

#include "api/api.h"
#include "train/cross_validation.h"

/* One configuration of the run: its training, its column name and output
 * suffixes, and its forecasts (n_origins, h, outputs). */
typedef struct {
    fc_cv_training t;
    char name[32];
    char suffix_text[FC_MAX_QUANTILES + 1][FC_LOSS_NAME_MAX];   /* a distribution's mean and quantiles */
    const char *suffixes[FC_MAX_QUANTILES + 1];
    float *values;
} fc_api_cv_model;

typedef struct {
    fc_api_cv_model *m;
    size_t n_models;
    fc_cv_spec spec;          /* h of the first model */
    fc_cv_origin *origins;
    size_t n_origins;
    size_t fits;              /* trainings run */
    int verbose;              /* a line per training on stderr */
    size_t parallel;          /* trainings side by side ("parallel"; 0: auto, train/member_pool.h) */
    fc_api_progress hook;
} fc_api_cv_run;

/* The configurations resolved into r->m (windows-batch-size auto refused:
 * a cross-validation trains many models, each at one given batch). */
fc_status fc_api_cv_models(const fcast_config *const *configs, size_t n, fc_api_cv_run *r);

/* The origins of ds and every model's forecasts on backend be, after
 * fc_api_cv_models; cancel as fcast_train's. */
fc_status fc_api_cv_forecast(fc_api_cv_run *r, const fc_dataset *ds, fc_backend *be, const volatile int *cancel);

/* Names r->m's columns as neuralforecast does (fc_api_cv_models does). */
void fc_api_cv_name_models(fc_api_cv_run *r);

void fc_api_cv_run_free(fc_api_cv_run *r);

#endif
