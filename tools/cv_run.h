/* Cross-validation runs from train's flags, shared by fcast cv and fcast
 * tune: the flag table (train's, with --model taking a list and cv's own
 * flags, which land in the library's request), and the configuration of
 * every model the list names (fcast_cross_validate_file runs them). */
#ifndef FC_TOOLS_CV_RUN_H
#define FC_TOOLS_CV_RUN_H

#include "train_flags.h"

#define CV_MAX_MODELS 8

typedef struct {
    train_flags t;
    fcast_cv_request q;     /* --n-windows, --step-size, --refit (out: --out after the parse) */
    size_t n_train_specs;   /* the table's first entries: train's flags */
} cv_flags;

/* train's table with --out (required_out) and cv's flags; defaults in *a. */
void cv_flags_init(cv_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int required_out);

/* One configuration per name of --model's list, each from the same flags
 * (train_flags_config; --out and cv's own flags are not configuration
 * keys), into out[0 .. *n). 0, or the exit code after printing the reason
 * (messages name `command`); out is freed on failure. */
int cv_configs(const char *command, const cv_flags *a, const arg_spec *specs, fcast_config *out[CV_MAX_MODELS],
               size_t *n);

/* The trainings of one model's cross-validation by request q: one per
 * refit windows (refit 0: one for all), as the library runs them. */
size_t cv_trainings_per_model(const fcast_cv_request *q);

void cv_configs_free(fcast_config *c[CV_MAX_MODELS], size_t n);

#endif
