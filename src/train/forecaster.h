/* A forecaster: a model with what it needs to be used on data — its scaler,
 * training loss, and the time axis (ds kind and frequency) of the data it
 * was trained on. It is what `fcast train` writes and `fcast predict` reads. */
#ifndef FC_TRAIN_FORECASTER_H
#define FC_TRAIN_FORECASTER_H

#include "data/dataset.h"
#include "kernels/adam.h"
#include "kernels/loss.h"
#include "kernels/scaler.h"
#include "models/model.h"
#include "train/batch.h"
#include "train/graph_pass.h"
#include "train/phase_times.h"
#include "train/windows.h"

#include <signal.h>

typedef int fc_loss_kind;   /* FC_LOSS_* (kernels/loss.h) */

/* The longest output-name suffix (fc_loss_output_name) with its NUL. */
#define FC_LOSS_NAME_MAX 48

typedef struct {
    fc_model *model;
    fc_scaler_kind scaler;
    fc_loss_spec loss;           /* kind and parameters; its outputs are the model's n_outputs */
    fc_ds_kind ds_kind;
    fc_freq freq;
    uint64_t seed;
    size_t steps_trained;
    /* The run's configuration as JSON, saved in the model file's metadata
     * as "run_config" so a model says how it was trained; NULL (the
     * default): not saved. Borrowed, never freed here; not read back. */
    const char *run_config_json;
    /* Conformal prediction intervals (train/conformal.h), fitted at
     * training time; NULL: none. Owned: freed with the forecaster. */
    struct fc_conformal *conformal;
} fc_forecaster;

const char *fc_scaler_name(fc_scaler_kind k);
int fc_scaler_parse(const char *s, fc_scaler_kind *out);     /* 0 on success */
/* Loss names: "mae", "mse", "huber", "smape", "mape", "mase", "quantile",
 * "mq", "huber-mq". fc_loss_name takes the spec by value (it is small and plain) so
 * that `fc_loss_name(f->loss)` reads as it always did. */
const char *fc_loss_kind_name(fc_loss_kind k);
const char *fc_loss_name(fc_loss_spec s);
int fc_loss_parse(const char *s, fc_loss_kind *out);         /* 0 on success */

/* A loss of `kind` with neuralforecast's defaults: HuberLoss delta 1,
 * QuantileLoss q 0.5, MQLoss and HuberMQLoss level [80, 90]; MASE's seasonality, which
 * neuralforecast requires, defaults to 1 here (the naive forecast). */
fc_loss_spec fc_loss_default(fc_loss_kind kind);
/* MQ's (or HUBER_MQ's: s keeps that kind) quantiles from prediction-interval levels (integers in 1..99,
 * distinct; neuralforecast's level_to_outputs): the median first, then the
 * 2 n interval bounds in increasing order. FC_ERR_INVALID, with a message
 * naming `what` (a flag or a file's field), on a bad list. */
fc_status fc_loss_set_levels(fc_loss_spec *s, const long *levels, size_t n, const char *what);
/* A distribution's quantiles for a forecast at prediction-interval levels
 * (sorted ascending, in (0, 100), at most FC_MAX_LEVELS; predict's): the
 * bounds (50 -+ l / 2) / 100 of every level, sorted, without the median,
 * as neuralforecast's level_to_quantiles; the forecast's columns are then
 * the mean and those bounds. FC_ERR_INVALID for another loss. */
fc_status fc_loss_draw_levels(fc_loss_spec *s, const double *levels, size_t n);
/* The bounds of levels (ascending, n of them) as quantiles, ascending,
 * (50 -+ l / 2) / 100 in double as Python computes them: q (2 n). */
void fc_levels_to_bounds(const double *levels, size_t n, double *q);
/* MQ's quantiles as given (quantiles_to_outputs keeps their order): each
 * in (0, 1), distinct, at most FC_MAX_QUANTILES. */
fc_status fc_loss_set_quantiles(fc_loss_spec *s, const double *q, size_t n, const char *what);
/* FC_ERR_INVALID unless every parameter of s is usable with input size L:
 * delta > 0, q in (0, 1), 1 <= season < L, MQ's quantiles as above. */
fc_status fc_loss_check(const fc_loss_spec *s, size_t L, const char *what);

/* Model outputs per horizon point (fc_model_config.n_outputs): MQ's and
 * HUBER_MQ's quantile count, a distribution's parameter count, else 1
 * (neuralforecast's outputsize_multiplier). */
size_t fc_loss_n_outputs(const fc_loss_spec *s);
/* Forecast values per horizon point, what fc_predict writes: the model's
 * outputs, except for a distribution (its sample mean and quantiles,
 * train/distribution_forecast.h). */
size_t fc_forecast_width(const fc_forecaster *f);
/* The model part a loss brings (IQLoss's head: cfg's iq_dim and
 * concentrations), into cfg; other losses clear it. */
void fc_loss_head(const fc_loss_spec *s, fc_model_config *cfg);
/* The same for a model of n_outputs outputs per point trained with s. */
size_t fc_loss_forecast_width(const fc_loss_spec *s, size_t n_outputs);
/* The forecast column that is the point forecast: a distribution's sample
 * mean (0), a multi-quantile loss's quantile nearest the median, else 0. */
size_t fc_loss_point_output(const fc_loss_spec *s);
/* The suffix of output j's column in neuralforecast's convention: "" for a
 * point loss, "_ql0.9" for QuantileLoss(0.9) (q as Python prints it), and
 * for MQ "-median", "-lo-90", "-hi-80" from levels or "-lo-80.0" from
 * quantiles (np.round(100 - 200 q, 2) as Python prints a float). */
void fc_loss_output_name(const fc_loss_spec *s, size_t j, char buf[FC_LOSS_NAME_MAX]);

/* The parameters as compact JSON with neuralforecast's argument names:
 * {} | {"delta":0.5} | {"q":0.9} | {"seasonality":4} | {"level":[80,90]}
 * | {"quantiles":[0.1,0.5,0.9]}. Into buf; FC_ERR_INVALID if cap is short. */
fc_status fc_loss_params_json(const fc_loss_spec *s, char *buf, size_t cap);
/* Reads them back into s (its kind already set): FC_ERR_FORMAT naming
 * `where` and the field on anything unknown or out of bounds. */
fc_status fc_loss_params_parse(const char *json, fc_loss_spec *s, const char *where);

enum { FC_LR_STEP = 0, FC_LR_COSINE, FC_LR_EXPONENTIAL };

/* Training options, with neuralforecast's defaults from fc_train_options_default. */
typedef struct {
    size_t max_steps;            /* 1000 */
    size_t batch_size;           /* 32 series per step */
    size_t windows_batch_size;   /* 1024 windows per step */
    double learning_rate;        /* 1e-3 */
    long num_lr_decays;          /* 3 (-1: none) */
    size_t val_size;             /* 0: no validation */
    size_t test_size;            /* cross-validation: last points of every series left out of
                                    training and validation (neuralforecast's test_size); 0 */
    size_t val_check_steps;      /* 100 */
    long early_stop_patience;    /* -1: off; else validation checks without improvement */
    size_t step_size;            /* 1 */
    int drop_last;               /* 0; 1: skip each epoch's short last batch of series (drop_last_loader) */
    int start_padding;           /* 0; 1: input_size - 1 zeros before every series' training part
                                    (start_padding_enabled) */
    /* The learning rate's schedule, torch's schedulers stepped once per
     * optimizer step (neuralforecast's lr_scheduler, interval "step"):
     * STEP (default): StepLR(step_size = lr_step_size, else max_steps /
     * num_lr_decays; gamma = lr_gamma, else 0.5); COSINE:
     * CosineAnnealingLR(T_max = lr_t_max, eta_min = lr_eta_min);
     * EXPONENTIAL: ExponentialLR(gamma = lr_gamma). */
    int lr_scheduler;            /* FC_LR_STEP, FC_LR_COSINE, FC_LR_EXPONENTIAL */
    size_t lr_step_size, lr_t_max;   /* 0: not given */
    double lr_gamma, lr_eta_min;     /* lr_gamma -1: not given */
    int valid_loss;              /* -1: validate with the training loss; else a point loss kind (FC_LOSS_MAE,
                                    MSE, SMAPE, MAPE, HUBER at delta 1), neuralforecast's valid_loss */
    int loss_targets;            /* 1: the loss reads each window's unscaled target, shift and scale on the
                                    backend (a distribution's likelihood): the memory plan holds them */
    double min_in_frac, min_out_frac;   /* 0, 0 */
    uint64_t seed;               /* 1 */
    int verbose;                 /* 0 silent, 1 log lines, 2 progress bar */
    /* Optimisation (docs/training.md "Precision, accumulation, clipping") */
    fc_precision precision;      /* fp32; bf16 / fp16 matrix products (fp16 with loss scaling) */
    size_t grad_accum;           /* 1: micro-batches of windows_batch_size per optimizer step */
    int deterministic_reduce;    /* ranks of an MPI job: gradients summed in rank order (dist/dist.h) */
    int alone;                   /* in an MPI job, train in this process alone, not with the other ranks
                                    (cross-validation deals its trainings to the ranks) */
    double clip_grad_norm;       /* 0: off; else clip the global gradient norm to this */
    fc_optimizer_kind optimizer; /* adam (torch.optim.Adam, neuralforecast's default) or adamw */
    double weight_decay;         /* -1: the optimizer's torch default (adam 0, adamw 0.01) */
    /* Operations (docs/operations.md): none of these changes the trained model. */
    const char *checkpoint_path; /* where checkpoints go (also the one written on a stop); NULL: none */
    size_t checkpoint_every;     /* steps between checkpoints (0: none periodic) */
    int checkpoint_at_validation;/* 1: a checkpoint after every validation check too */
    const char *resume_path;     /* NULL: a fresh run; else continue from this checkpoint */
    const volatile sig_atomic_t *stop_requested; /* set (by a signal handler): checkpoint after the current
                                                    step and return FC_ERR_INTERRUPTED */
    struct fc_run_log *log;      /* NULL: no run log */
    int profile;                 /* 1: every step's phase timings in the run log */
    int no_graphs;               /* 1: never capture steps into graphs (--cuda-graph off; for debugging) */
    /* Called after every step with the step (from 1), max_steps and the
     * step's training loss (the library's progress callback); NULL: none. */
    void (*on_step)(void *user, size_t step, size_t max_steps, double train_loss);
    void *on_step_user;
} fc_train_options;

typedef struct {
    size_t steps;
    double seconds;              /* whole run */
    double step_seconds;         /* the training steps alone */
    double windows_per_second;   /* windows_batch_size * grad_accum * steps / step_seconds */
    double last_train_loss;
    double best_val_loss;        /* NaN without validation */
    size_t best_step;
    int early_stopped;
    size_t skipped_steps;        /* fp16: steps skipped by the loss scaler */
    float loss_scale;            /* fp16: the final loss scale; 0 otherwise */
    double last_grad_norm;       /* NaN unless clipping or scaling computed it */
    size_t start_step;           /* > 0 for a resumed run */
    size_t checkpoints;          /* checkpoints written */
    const char *checkpoint;      /* the last one written (options' path), NULL if none */
    size_t checkpoint_step;      /* the step it holds */
    fc_phase_times phases;       /* seconds per phase over the whole run */
} fc_train_summary;

void fc_train_options_default(fc_train_options *o);
/* The weight decay o trains with: its own, else its optimizer's default. */
double fc_train_weight_decay(const fc_train_options *o);
/* The learning rate of optimizer step `step` (0-based) under o's schedule:
 * the closed forms of torch's StepLR, CosineAnnealingLR and ExponentialLR
 * after `step` scheduler steps. */
double fc_train_learning_rate(const fc_train_options *o, size_t step);
/* Steps between validations: val_check_steps, at most max_steps (as
 * neuralforecast's BaseModel sets it, "val_check_steps is greater than
 * max_steps, setting val_check_steps to max_steps"). */
size_t fc_train_val_check_steps(const fc_train_options *o);

/* Checks options and data lengths for a model of configuration c, without
 * allocating: what fc_train would refuse, before the model is built. */
fc_status fc_train_check(const fc_dataset *ds, const fc_model_config *c, const fc_train_options *o);

/* 1 when ds has a training window for a model of configuration c under o
 * (a shard: among its own series, on the file's grid, as a rank training
 * alone draws them): where batch trials can be timed. */
int fc_train_has_windows(const fc_dataset *ds, const fc_model_config *c, const fc_train_options *o);

/* Trains f->model (already created and initialised) on ds. With validation,
 * the weights of the best validation check are kept (neuralforecast keeps
 * the last ones: see docs/training.md). */
fc_status fc_train(fc_forecaster *f, const fc_dataset *ds, const fc_train_options *o, fc_train_summary *sum);

/* Which checkpoint the run of o and s can go on from, for the messages of
 * a file it could not write: "X still holds step N" (the last written: a
 * failed write leaves it whole), else the one it resumed from, else that
 * none was written. */
void fc_train_good_checkpoint(const fc_train_options *o, const fc_train_summary *s, char *buf, size_t cap);

/* Buffers for inference over many windows, allocated once (so validation
 * during training allocates nothing after the first check). */
typedef struct {
    fc_batch batch;
    float *forecast;          /* (cap, h, n_outputs) host */
    float *draws;             /* a distribution's forecast: n_samples per thread; else NULL */
    int draw_threads;
    fc_window *windows;
    size_t n_windows, cap;
    fc_graph_slot forward_graph;   /* the forward of a full chunk (graph_pass.h) */
    size_t full_chunks;            /* run so far: the first warms the kernels, the next is captured */
    double *partials;              /* validation: each chunk's loss sum and weight, added in chunk order */
    int rank, ranks;               /* validation shared by the ranks of a job (dist/dist.h); 0 of 1 alone */
    int valid_loss;                /* -1: the forecaster's loss; else the point loss validation scores */
} fc_runner;

/* Windows per inference chunk for n windows on a model with room for
 * `capacity` (0: none yet): at most 1024, and never more than the room
 * the model already has, so validation during training does not move its
 * buffers. The memory plan sizes inference buffers with it too. */
size_t fc_inference_chunk(size_t capacity, size_t n);

/* The validator of f on ds; its rank and ranks may be set after (each rank
 * then validates its chunks and the chunks' sums are merged: the loss has
 * the same bits for any number of ranks). */
fc_status fc_validator_init(fc_runner *r, fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec);
fc_status fc_validator_run(fc_runner *r, fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec,
                           double *loss);
void fc_validator_free(fc_runner *r);

/* Mean validation loss on the original scale over the last val_size points
 * of every series (masked points excluded). */
fc_status fc_validate(fc_forecaster *f, const fc_dataset *ds, const fc_window_spec *spec, double *loss);

/* Forecasts of the next h points of every series from its last input_size
 * points: out (n_series, h, fc_forecast_width) on the original scale. */
fc_status fc_predict(fc_forecaster *f, const fc_dataset *ds, float *out);
/* The same from the input_size points before the last `tail` of every
 * series: the series of ds go on for `tail` future points that carry the
 * future exogenous values (predict --futr-data), not observations. */
fc_status fc_predict_before(fc_forecaster *f, const fc_dataset *ds, size_t tail, float *out);
/* The same for series [lo, hi) alone, into their rows of out (n_series,
 * h, fc_forecast_width). Its chunks start at lo: when lo is a multiple of
 * fc_predict_chunk(f, n_series) and hi is one or n_series, they are the
 * chunks of the whole forecast, so the bits are too (a row's forecast
 * depends on how many rows its matrix products run with). */
fc_status fc_predict_part(fc_forecaster *f, const fc_dataset *ds, size_t tail, size_t lo, size_t hi, float *out);
/* The windows per chunk a forecast of n series runs in on f. */
size_t fc_predict_chunk(const fc_forecaster *f, size_t n);
/* The same for n windows anywhere in ds (a window's insample starts at its
 * start; its forecast covers the h points after the insample, which may
 * run past the series' end): out (n, h, fc_forecast_width). */
fc_status fc_predict_windows(fc_forecaster *f, const fc_dataset *ds, const fc_window *w, size_t n, float *out);

void fc_forecaster_free(fc_forecaster *f);

#endif
