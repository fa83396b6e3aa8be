/* What the public handles of include/fcast.h hold (the library's own
 * view; callers see only the names). One file per handle: api_data.c (with
 * api_static.c), api_config.c, api_model.c (with api_cv.c). */
#ifndef FC_API_API_H
#define FC_API_API_H

#include "data/dataset.h"
#include "models/arch_options.h"
#include "train/conformal.h"
#include "train/exog_bind.h"
#include "train/forecaster.h"

struct fcast_data {
    fc_dataset *ds;
};

/* A configuration: the model kind and sizes, the architecture options as
 * given (applied at training), the training options and the texts the
 * options point to (owned). */
#define FCAST_CONFIG_MAX_TEXTS 64
struct fcast_config {
    fc_model_config model;
    fc_arch_options arch;
    fc_train_options train;
    fc_scaler_kind scaler;
    fc_loss_spec loss;
    int threads;                  /* CPU threads; 0: all cores */
    /* conformal intervals (neuralforecast's PredictionIntervals): 0 windows: none */
    size_t pi_windows, pi_step;
    fc_conformal_method pi_method;
    char *texts[FCAST_CONFIG_MAX_TEXTS];
    size_t n_texts;
};

struct fcast_model {
    fc_backend *be;
    fc_forecaster f;
    char output_names[FC_MAX_QUANTILES][FC_LOSS_NAME_MAX];   /* fcast_model_output_name's */
};

/* How the library's messages name the exogenous inputs (config keys,
 * API functions). */
extern const fc_exog_words FC_API_EXOG_WORDS;

/* The model configuration c describes: its architecture options applied
 * and checked, its outputs those of its loss. */
fc_status fc_api_resolve(const fcast_config *c, fc_model_config *cfg);

/* The backend a library call computes on (auto: GPU 0 when one is
 * usable, else the CPU with `threads` threads, 0: all cores). */
fc_status fc_api_open_backend(int threads, fc_backend **be);

/* The caller's progress callback and cancel flag on a training's options
 * (hook must outlive the run; fn NULL: no callback). */
typedef struct {
    fcast_progress_fn fn;
    void *user;
} fc_api_progress;
void fc_api_watch(fc_train_options *o, fc_api_progress *hook, const volatile int *cancel);

/* st, with the current message's flags ("--lr") written as the keys of
 * the API ("lr"): for the returns of calls whose checks are the CLI's. */
fc_status fc_api_words(fc_status st);

/* Names the outputs of m's forecaster (after it is trained or loaded). */
void fc_api_name_outputs(fcast_model *m);

#endif
