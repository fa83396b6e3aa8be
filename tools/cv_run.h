/* Cross-validation runs from train's flags, shared by fcast cv and fcast
 * tune: the flag table (train's, with --model taking a list and cv's own
 * flags), the models it names resolved side by side, and their forecasts
 * for every origin. */
#ifndef FC_TOOLS_CV_RUN_H
#define FC_TOOLS_CV_RUN_H

#include "train/conformal.h"
#include "train/cross_validation.h"
#include "train_flags.h"

#define CV_MAX_MODELS 8

typedef struct {
    train_flags t;
    size_t n_windows, step_size, refit;
} cv_flags;

/* One architecture of the run: what its flags resolve to, its column name
 * and output suffixes, and its forecasts (n_origins, h, n_outputs). */
typedef struct {
    train_setup su;
    char name[32];
    char suffix_text[FC_MAX_QUANTILES][FC_LOSS_NAME_MAX];
    const char *suffixes[FC_MAX_QUANTILES];
    float *values;
} cv_model;

typedef struct {
    cv_model m[CV_MAX_MODELS];
    size_t n_models;
    fc_cv_origin *origins;
    size_t n_origins;
    size_t fits;          /* trainings run */
} cv_result;

/* train's table with --out (required_out) and cv's flags; defaults in *a. */
void cv_flags_init(cv_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int required_out);

/* Resolves --model's list into r->m (0, or the exit code after printing
 * the reason, as train_flags_resolve). `command` names the messages. */
int cv_resolve_models(const char *command, const cv_flags *a, cv_result *r);

/* The origins of ds and every model's forecasts (after cv_resolve_models). */
fc_status cv_run(const cv_flags *a, const fc_dataset *ds, fc_backend *be, cv_result *r);

void cv_result_free(cv_result *r);

#endif
