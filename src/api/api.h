/* What the public handles of include/fcast.h hold (the library's own
 * view; callers see only the names). One file per handle: api_data.c (with
 * api_static.c), api_config.c, api_model.c (with api_cv.c). */
#ifndef FC_API_API_H
#define FC_API_API_H

#include "fcast.h"
#include "api/api_backend.h"
#include "data/dataset.h"
#include "models/arch_options.h"
#include "train/conformal.h"
#include "train/exog_bind.h"
#include "train/data_budget.h"
#include "train/forecaster.h"
#include "train/loss_text.h"

struct fcast_data {
    fc_dataset *ds;
    char *path;   /* the file it was read from (fcast_data_open), else NULL */
};

/* A configuration: the model kind and sizes, the architecture options as
 * given (applied at training), the training options and the texts the
 * options point to (owned). */
#define FCAST_CONFIG_MAX_TEXTS 256

/* The operations keys (fcast.h): how and where a run goes; texts owned by
 * the configuration. */
typedef struct {
    const char *device;            /* NULL: auto */
    int tf32, verbose, profile;
    size_t memory_limit;           /* 0: none */
    size_t parallel;               /* trainings side by side (train/member_pool.h); 0: auto */
    int auto_batch;                /* windows-batch-size auto */
    fc_data_store data_store;
    const char *store_dir, *freq, *stat_file;
    const char *out, *checkpoint, *resume, *log_file;
    size_t checkpoint_every;
} fc_api_run_keys;

/* A key set on a configuration and its text, in the order set (a key set
 * again keeps its place): the run's description in model files and logs. */
typedef struct {
    const char *key, *value;
} fc_api_setting;

struct fcast_config {
    fc_model_config model;
    fc_arch_options arch;
    fc_train_options train;
    fc_scaler_kind scaler;
    fc_loss_kind loss_kind;
    fc_loss_texts loss_texts;     /* its parameters as set, read at resolve */
    int threads;                  /* CPU threads; 0: all cores */
    /* conformal intervals (neuralforecast's PredictionIntervals): 0 windows: none */
    size_t pi_windows, pi_step;
    fc_conformal_method pi_method;
    fc_api_run_keys run;
    const char *model_name;       /* as given to fcast_config_new */
    fc_api_setting settings[FCAST_CONFIG_MAX_TEXTS];
    size_t n_settings;
    char *texts[FCAST_CONFIG_MAX_TEXTS];
    size_t n_texts;
};

/* A copy of value that lives as long as c (NULL: out of memory or room). */
const char *fc_api_keep(fcast_config *c, const char *value);

/* An integer of at least lo (and at most 2^40) from the text of key. */
fc_status fc_api_parse_count(const char *key, const char *v, size_t lo, size_t *out);

/* Sets an operations key (fc_api_run_keys); FC_ERR_INVALID naming it for a
 * bad value; 1 (not a status) when key is not one of them. */
int fc_api_set_run_key(fcast_config *c, const char *key, const char *value, fc_status *st);

/* The settings of c as a JSON object: {"data": data (when not NULL),
 * "model": ..., "h": ..., "input-size": ..., key: value, ...}, numbers as
 * numbers, on/off as booleans; without the operations keys when
 * `operations` is 0 (what a model file keeps). malloc'ed; NULL when out of
 * memory. */
char *fc_api_settings_json(const fcast_config *c, int operations, const char *data);

/* The row of fcast_config_train_key's table named key, NULL when none
 * (api_train_keys.c). */
const fcast_train_key_info *fc_api_train_key(const char *key);
/* Its keys, ", "-separated, in table order: the run's (FCAST_KEY_RUN and
 * FCAST_KEY_TRAIN_RUN) when run is 1, the others when 0 (for messages). */
void fc_api_train_key_list(char *buf, size_t size, int run);

/* 1 under FCAST_NAMES_FLAGS (the CLI's messages). */
int fc_api_names_flags(void);

struct fcast_model {
    fc_backend *be;
    fc_forecaster f;
    fc_train_summary sum;          /* its training (fcast_model_train_report) */
    fcast_train_report report;
    char *checkpoint, *model_file;   /* the report's strings */
    char *run_config;                /* its settings as JSON (f.run_config_json) */
    char output_names[FC_MAX_QUANTILES + 1][FC_LOSS_NAME_MAX];   /* fcast_model_output_name's */
};

/* How the library's messages name the exogenous inputs (config keys and
 * API functions; flags under FCAST_NAMES_FLAGS). */
const fc_exog_words *fc_api_exog_words(void);

/* The model configuration c describes: its architecture options applied
 * and checked, its loss (with its parameters, checked) in *loss, and its
 * outputs those of the loss. */
fc_status fc_api_resolve(const fcast_config *c, fc_model_config *cfg, fc_loss_spec *loss);

/* The backend a library call computes on (auto: GPU 0 when one is
 * usable, else the CPU with `threads` threads, 0: all cores). */
fc_status fc_api_open_backend(int threads, fc_backend **be);

/* In an MPI job, a failure on this rank (an interruption too when
 * interrupted_too) is said on stderr and ends every rank (dist.h,
 * fc_dist_abort): the others would wait for this one in their next
 * collective. Alone, or st FC_OK: st. */
fc_status fc_api_job_failed(fc_status st, int interrupted_too);

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

/* fcast_data_open's work, its messages in the engine's words. */
fc_status fc_api_data_open(const fcast_config *c, const char *path, fcast_data **out);
/* The same for rank `rank` of a training job of `ranks`: a file it streams
 * is kept as the rank's shard of the series (data/dataset.h). */
fc_status fc_api_data_open_shard(const fcast_config *c, const char *path, int rank, int ranks, fcast_data **out);

/* An empty model (its message set when out of memory). */
fcast_model *fc_api_new_model(void);

/* Names the outputs of m's forecaster (after it is trained or loaded). */
void fc_api_name_outputs(fcast_model *m);

#endif
