/* Whole runs over files: one call per command of the fcast CLI (train,
 * predict, cv, ensemble, tune, eval, report, plan, bench, doctor).
 * Included by fcast.h; include that. */
#ifndef FCAST_RUNS_H
#define FCAST_RUNS_H

#include "fcast/library.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Whole runs over files: what each command of the fcast CLI does, as  */
/* one call (the CLI is these calls, its flags and its exit codes).    */
/* The request structures hold the flags' values, named as the flags;  */
/* zero-initialise one and set what the command line would. Messages  */
/* name keys ("level"), or flags ("--level") under FCAST_NAMES_FLAGS.  */
/* ------------------------------------------------------------------ */

/* BEGIN predict-run */
/* `fcast predict`: the forecasts of the next h points of every series of
 * a history file by trained models, written as neuralforecast's forecast
 * CSV. The fields are the command's flags (NULL, 0: not given). */
typedef struct {
    const char *model;            /* model or ensemble files, comma-separated,
                                     written side by side: NHITS, NBEATS, NHITS1,
                                     ... (an ensemble: Ensemble, Ensemble1, ...) */
    const char *data;             /* history: long CSV with unique_id, ds, y
                                     (and the columns the models read) */
    const char *out;              /* the forecast CSV, written atomically;
                                     "-": standard output */
    const char *futr_data;        /* future values of the models' future-known
                                     columns over the horizon (no y) */
    const char *stat_exog_file;   /* static values (unique_id, a column per
                                     variable) of models that read them */
    const char *level;            /* "80,95": conformal intervals of models
                                     trained with them (NHITS-lo-95, ...) */
    const char *device;           /* auto (NULL) | cpu | cuda | cuda:N */
    const char *memory_limit;     /* "512MiB", "12GB": refuse a forecast whose
                                     memory plan exceeds it */
    const char *data_store;       /* auto (NULL) | memory | stream */
    const char *store_dir;        /* where a streamed store goes ($TMPDIR,
                                     else /var/tmp) */
    size_t threads;               /* CPU threads; 0: all cores */
    int members;                  /* non-zero: an ensemble's members' columns
                                     too, after its column Ensemble */
} fcast_predict_request;
/* What a forecast over files wrote: its rows are series x h. */
typedef struct {
    size_t series, h;             /* series forecast, points per series */
    size_t files;                 /* model files in "model" */
} fcast_predict_summary;
/* Runs the forecast of r, as `fcast predict` does: the values checked
 * (memory-limit, data-store, level) and "out" checked before any work
 * (not a directory, not one of the inputs; FC_ERR_IO for a missing
 * directory); then the device opened (its choice said on stderr), the
 * models loaded (they share h and frequency, FC_ERR_INVALID otherwise;
 * at most 16 files), the history read on their time axis as the memory
 * limit allows, their exogenous inputs given (a model reading static or
 * future values without their file is FC_ERR_INVALID), each model's
 * memory plan checked against the limit (FC_ERR_MEMORY), the future ds
 * checked against the frequency, and the forecasts written. Warnings
 * about unused files and columns and about series shorter than a model's
 * input window or unobserved in it go to stderr; none stops the run.
 * r's model, data and out are needed; summary (may be NULL) is filled
 * on success. Errors name the key ("level"), or the flag ("--level") under
 * FCAST_NAMES_FLAGS; on an error nothing is written. */
fc_status fcast_predict_files(const fcast_predict_request *r, fcast_predict_summary *summary);
/* END predict-run */

/* BEGIN cv-run */
/* `fcast cv`: neuralforecast's cross_validation of one or several
 * configurations side by side (NeuralForecast(models=[...])), from a file.
 * The windows as fcast_cross_validate's: n_windows (at least 1) forecast
 * origins per series, step_size (at least 1) points apart; refit 0 trains
 * once, k a fresh model every k windows. out: the CSV to write, "-" for
 * standard output. */
typedef struct {
    const char *out;
    size_t n_windows, step_size, refit;
} fcast_cv_request;
/* What the run wrote: origins x h rows of `models` column groups, after
 * `fits` trainings. */
typedef struct {
    size_t origins, h, models, fits;
} fcast_cv_report;
/* Cross-validates configs[0 .. n_configs) (one h for all) on the file at
 * data_path and writes neuralforecast's CSV to request->out: unique_id,
 * ds, cutoff, a column per model output named as neuralforecast names
 * them (NHITS, MLP, MLP1 for a second MLP; NHITS-lo-80 for an mq loss),
 * y. The run's operations keys (device, threads, tf32, freq, data-store,
 * memory-limit, stat-exog-file, verbose) are those of configs[0]; the file
 * is read as fcast_data_open reads it for configs[0], after out is checked
 * and the device opened, so a run that cannot keep its result fails before
 * any work. windows-batch-size auto is refused (each fit trains at one
 * given batch). Verbose: the device and a line per training on stderr.
 * progress and cancel as fcast_train's, for every training; report may be
 * NULL. */
fc_status fcast_cross_validate_file(const fcast_config *const *configs, size_t n_configs, const char *data_path,
                                    const fcast_cv_request *request, fcast_progress_fn progress, void *user,
                                    const volatile int *cancel, fcast_cv_report *report);
/* END cv-run */

/* BEGIN eval-run */
/* Scores of forecasts against actual values, as `fcast eval` writes them
 * (docs/evaluation.md). Exactly one input:
 *   model      a model file (fcast_model_save's): it forecasts the h points
 *              after each series of `train` and they are scored against the
 *              rows of `test` with the same (unique_id, ds), beside
 *              seasonal naive; a table of MAE, RMSE, sMAPE, MASE;
 *   cv         a cross-validation CSV (unique_id, ds, cutoff, y, one column
 *              per model, intervals and quantiles: fcast cv's,
 *              neuralforecast's cross_validation); train optional;
 *   forecasts  a forecast CSV (unique_id, ds, models...: fcast predict's)
 *              with its actual values in `test` and the history in `train`
 *              (each series' cutoff).
 * The file forms score every model column beside Naive and
 * SeasonalNaive(season) baselines (with train), by the metrics of
 * utilsforecast. Paths are the caller's; nothing is kept. */
typedef struct {
    const char *model, *cv, *forecasts;   /* one of them */
    const char *train, *test;             /* long CSVs (unique_id, ds, y) */
    size_t season;       /* seasonal period of seasonal naive and MASE, >= 1 */
    const char *freq;    /* the file forms: frequency of train (NULL: inferred) */
    const char *format;  /* the file forms: "table" (NULL too), "csv" (long) or "json" */
    int per_series;      /* the file forms: 1 adds the scores of each series */
    size_t threads;      /* model: CPU threads (0: all cores) */
    const char *device;  /* model: FCAST_DEVICE_FORMS (NULL: auto) */
    int verbose;         /* model: 1 says on stderr which device runs ("device: cpu (...)") */
    const char *out;     /* where the scores go: a file (written whole, atomically) or "-" (NULL too): stdout */
} fcast_eval_request;
/* Checks the request alone, before any file is read: one input, season
 * >= 1, a known format, and only the fields of its form (model needs
 * train and test and takes no freq, format or per_series; cv takes no
 * test; forecasts needs test and train; freq needs train). FC_ERR_INVALID
 * names the fields. fcast_eval_file checks it too. */
fc_status fcast_eval_check(const fcast_eval_request *r);
/* Scores r's forecasts into r->out. The output path is checked before any
 * work (an existing directory, not one of the inputs). Errors: the
 * request's (fcast_eval_check), a file's (FC_ERR_IO, FC_ERR_PARSE naming
 * the line), a model that reads exogenous inputs (FC_ERR_INVALID: forecast
 * it with fcast_predict_future and score the forecast file), an ensemble
 * file given as model (FC_ERR_FORMAT), a test series not in train. */
fc_status fcast_eval_file(const fcast_eval_request *r);

/* Ensembles (`fcast ensemble`; N-BEATS's M4 ensemble): several models
 * trained on one panel, written to one file that fcast predict reads
 * and combines per point. */
typedef enum { FCAST_COMBINE_MEDIAN = 0, FCAST_COMBINE_MEAN = 1 } fcast_combine;
/* "median" or "mean" (exactly); FC_ERR_INVALID naming the text otherwise. */
fc_status fcast_combine_parse(const char *name, fcast_combine *out);
/* "median", "mean"; NULL for another value. */
const char *fcast_combine_name(fcast_combine c);
/* 1 when the loss named `loss` (a "loss" key's value, any case) gives
 * point forecasts (mae, mse, huber, smape, mape, mase), 0 when it gives
 * quantiles (quantile, mq: an ensemble cannot take them, as the median of
 * quantiles is not a quantile), -1 when it is no loss. */
int fcast_loss_is_point(const char *loss);
#define FCAST_ENSEMBLE_MAX_MEMBERS 256
typedef struct {
    const fcast_config *const *members;   /* n_members configurations, trained in this order */
    size_t n_members;                     /* 1 to FCAST_ENSEMBLE_MAX_MEMBERS */
    /* each member's name in messages, prefixed to an error of its own
     * ("member 2/8 (nhits, ...): ..."); NULL: "member i" from 1 */
    const char *const *names;
    /* each member's description kept in the file (its "run_config");
     * NULL, or a NULL entry: its settings as fcast_train keeps them */
    const char *const *descriptions;
    fcast_combine combine;
    const char *out;                      /* the ensemble file (.safetensors) */
} fcast_ensemble_request;
/* Called before member i trains (done NULL) and after (done: what its
 * training did: steps, seconds, losses, early stop; the memory fields 0). */
typedef void (*fcast_member_fn)(void *user, size_t member, const fcast_train_report *done);
/* Trains every member on the file at path and writes the ensemble file,
 * each member exactly as fcast_train trains its configuration (the same
 * tensors, bit for bit), side by side on one reading of the file: as many
 * at once as "parallel" says (0: auto, a thread and a backend each on the
 * CPU, 8 streams on a GPU, as many as the memory limit holds; 1: one after
 * another with every thread), the file the same either way. on_member is
 * then called from the workers' threads, one call at a time. The run's
 * operations are the first member's keys: device, threads, parallel, tf32,
 * verbose (the device and, one at a time, each step's progress on
 * stderr), and the data's (data-store, store-dir,
 * freq, stat-exog-file, memory-limit); "memory-limit" bounds each
 * member's plan beside the parameters of the members before it (held for
 * the file). The members must share h and give point forecasts; they
 * cannot take "windows-batch-size" auto, "prediction-intervals",
 * "checkpoint", "resume" or "log-file". Order of the checks, so that a
 * run that cannot finish fails at once: the request, r->out (a writable
 * place that is not the data), the device, the file, then every member's
 * data checks and memory plan before any trains. on_member (may be NULL)
 * hears of each member; *cancel (may be NULL) non-zero stops after the
 * current step with FC_ERR_INTERRUPTED, nothing written. */
fc_status fcast_ensemble_train_file(const fcast_ensemble_request *r, const char *path, fcast_member_fn on_member,
                                    void *user, const volatile int *cancel);
/* END eval-run */

/* BEGIN tune-run */
/* `fcast tune`: a hyperparameter search scored by cross-validation, as
 * neuralforecast's Auto models (AutoNHITS, ... on optuna's TPESampler,
 * univariate). A search space file (YAML, docs/evaluation.md,
 * "Hyperparameter search") maps keys to distributions, one per line:
 * loguniform(1e-4, 1e-2), uniform(0, 0.5), int(100, 1000), int(12, 96, log),
 * choice(identity, robust). Each trial samples a value per key, asks the
 * caller for the configuration those values make (the caller's keys fixed
 * for every trial, the sampled ones added), cross-validates it as
 * fcast_cross_validate_file does (one model) and scores it by `metric` over
 * every forecast point; lower is better.
 *
 * data: the training file (read once, for every trial); space: the search
 * space file; sampler: "tpe" (NULL: tpe) or "random"; metric: "mae" (NULL:
 * mae), "mse", "rmse", "smape" or "mase"; log: a JSON Lines file every
 * trial is appended to (NULL: none); trials: trials to run, at least 1, or
 * FCAST_TUNE_TRIALS_DEFAULT: 10, no limit with a time budget alone;
 * metric_season: mase's seasonality, at least 1; time_budget: seconds
 * after which no trial starts (a started one finishes; 0: none); cv: the
 * cross-validation's windows (fcast_cv_request; out unused). The sampler's
 * seed is the configurations' "seed" key: the same seed, the same search. */
#define FCAST_TUNE_TRIALS_DEFAULT ((size_t)-1)
typedef struct {
    const char *data, *space, *sampler, *metric, *log;
    size_t trials, metric_season;
    double time_budget;
    fcast_cv_request cv;
} fcast_tune_request;
typedef struct fcast_tune fcast_tune;
/* The configuration of one set of values: keys[i] = values[i] for the n
 * keys of the space, in the file's order (an on/off key's value is "true"
 * or "false"). Return FC_OK with *out (the search frees it), FC_ERR_INVALID
 * with its message when the values make no configuration (the trial is
 * skipped, the message its reason), or any other status to stop the
 * search (returned as is). It checks a sampled value as the caller checks
 * its own, and is also the probe of fcast_tune_probe. */
typedef fc_status (*fcast_tune_config_fn)(void *user, const char *const *keys, const char *const *values, size_t n,
                                          fcast_config **out);
/* Trial `trial` has finished (fcast_tune_trial_get reads it). */
typedef void (*fcast_tune_trial_fn)(void *user, const fcast_tune *t, size_t trial);
typedef struct {
    fcast_tune_config_fn config;    /* required */
    fcast_tune_trial_fn trial;      /* NULL: none */
    fcast_progress_fn progress;     /* every training's, as fcast_train's; NULL: none */
    void *user;                     /* passed to each */
} fcast_tune_callbacks;
/* A search of request q (copied, strings too): its values checked
 * (FC_ERR_INVALID naming the key: sampler, metric, trials, metric-season,
 * time-budget). Nothing is read yet. Free with fcast_tune_free. */
fc_status fcast_tune_open(const fcast_tune_request *q, fcast_tune **out);
/* The log checked as an output (fcast_output_check, against data and
 * space), then the space file read: FC_ERR_IO when unreadable, FC_ERR_PARSE
 * for a malformed value, FC_ERR_INVALID for bounds that make no range,
 * each as "FILE:LINE: KEY: ...". */
fc_status fcast_tune_read_space(fcast_tune *t);
/* The space's keys, in the file's order: their count, key j and its line
 * in the file (NULL and 0 past the last). */
size_t fcast_tune_params(const fcast_tune *t);
const char *fcast_tune_param_name(const fcast_tune *t, size_t j);
size_t fcast_tune_param_line(const fcast_tune *t, size_t j);
/* The type of key j's values, as the trial log writes them ("values"):
 * text (the default), integer, number or on/off. An integer key takes
 * int(...) or choice(...), an on/off key choice(true, false): any other
 * distribution is FC_ERR_INVALID as "FILE:LINE: KEY: ...". */
typedef enum { FCAST_TUNE_TEXT, FCAST_TUNE_INT, FCAST_TUNE_REAL, FCAST_TUNE_BOOL } fcast_tune_type;
fc_status fcast_tune_param_type(fcast_tune *t, size_t j, fcast_tune_type type);
/* Every value a key can take at its ends (each choice, both bounds), with
 * the other keys at their first, goes through cb->config before any
 * training, so a value the caller refuses fails now, naming its key and
 * line. A configuration refused as FC_ERR_INVALID is a trial's matter, not
 * the space's; any other status stops the probe and is returned with a
 * message naming the value. */
fc_status fcast_tune_probe(fcast_tune *t, const fcast_tune_callbacks *cb);
/* The search (probed first, if fcast_tune_probe was not called): the
 * device, threads, tf32, verbose and the file's reading (freq, data-store,
 * memory-limit, stat-exog-file) are those of the first valid probed
 * configuration, opened once; then trials until `trials` ran or the time
 * budget is spent, cb->trial called after each. A trial the memory limit
 * or its configuration refuses is "skipped" with the reason, one whose
 * score is not finite "diverged"; the search goes on. Verbose: the device
 * on stderr. cancel as fcast_train's (FC_ERR_INTERRUPTED; the trials so far
 * stay readable). */
fc_status fcast_tune_run(fcast_tune *t, const fcast_tune_callbacks *cb, const volatile int *cancel);
/* The search so far: the metric's name, trials run, the limit (0: none),
 * whether the time budget ended it, and the best trial (lowest score among
 * "ok" ones; the first on a tie), when has_best. */
typedef struct {
    const char *metric;
    size_t trials, max_trials;
    int budget_spent, has_best;
    size_t best;
} fcast_tune_report;
fc_status fcast_tune_summary(const fcast_tune *t, fcast_tune_report *out);
/* Trial i: status "ok", "skipped" or "diverged", error its reason ("" when
 * none), score (NaN when none) over `points` forecast points, seconds of
 * its configuration and cross-validation, and its values as text, one per
 * key (fcast_tune_params). Strings live as long as t. */
typedef struct {
    const char *status, *error;
    double score, seconds;
    size_t points;
    const char *const *values;
} fcast_tune_trial;
fc_status fcast_tune_trial_get(const fcast_tune *t, size_t i, fcast_tune_trial *out);
void fcast_tune_free(fcast_tune *t);
/* END tune-run */

/* BEGIN tools-run */
/* The memory plan of a training run, as `fcast plan` prints it: what
 * fcast_train_file(c, path, ...) would allocate, without training. The
 * file is read as fcast_data_open reads it (the plan depends on its size)
 * and the device of "device" builds its matrix-product kernels to say
 * their workspace; no model is allocated. "out" and the other output keys
 * are not used. Bytes throughout; strings are the library's, never freed. */
#define FCAST_PLAN_MAX_ITEMS 24
typedef struct {
    const char *name;       /* "parameters", "activations", "batch buffers", ... */
    size_t bytes;
    size_t per_window;      /* the part that grows per window of the batch; 0: fixed */
    int on_device;          /* inside the run's arena on its device */
} fcast_plan_item;
typedef struct {
    const char *model;                     /* neuralforecast's class name: "NHITS" */
    const char *precision;                 /* "fp32", "bf16", "fp16" */
    size_t h, input_size;
    size_t windows_batch_size;             /* planned for ("auto": 1024, the sweep's first guess) */
    fcast_plan_item items[FCAST_PLAN_MAX_ITEMS];   /* largest first */
    size_t n_items;
    size_t total, per_window;              /* over all items */
    size_t memory_limit;                   /* "memory-limit"; 0: none */
    size_t largest_batch;                  /* with a limit: the largest windows-batch-size within it; 0: none fits */
    int data_streamed;                     /* the rows go to a mapped store file ("data-store") */
    int data_estimated;                    /* loaded whole under a limit: the next two are known */
    size_t data_rows, data_load_peak;      /* rows and loading's estimated (transient) peak */
    size_t data_store_bytes, data_stream_heap;   /* streamed: the store file, loading's heap at its peak */
} fcast_plan_report;
/* Fills *out. Errors are fcast_train_file's before training (the
 * configuration, the device, the file, the data against the model); a plan
 * over the limit is not an error (the report says so). */
fc_status fcast_plan_file(const fcast_config *c, const char *path, fcast_plan_report *out);
/* A training run as one self-contained HTML page, as `fcast report`
 * writes it (docs/operations.md): loss and validation curves, learning
 * rate, loss scale, throughput, memory against the plan and the limit, the
 * phase breakdown and, given forecasts, forecasts against actuals. Charts
 * are inline SVG; the page loads nothing from the network. */
typedef struct {
    const char *log;         /* the run log (JSON Lines) of the key "log-file"; needed */
    const char *forecasts;   /* a forecast CSV of `fcast predict` (unique_id, ds, <MODEL>[, intervals]); NULL: none */
    const char *actuals;     /* a long CSV (unique_id, ds, y) drawn under the forecasts; NULL: none */
    const char *series;      /* comma-separated unique_ids to draw; NULL: the first 4 of the forecasts */
    const char *out;         /* the HTML file, written whole or not at all; "-": standard output */
} fcast_report_request;
/* Writes the page. out is checked first (and must not be one of the
 * inputs); actuals and series need forecasts; a series not in the
 * forecasts, or actuals that do not cover them, are FC_ERR_INVALID naming
 * it. */
fc_status fcast_report_html(const fcast_report_request *r);
/* A backtest as one self-contained HTML page, as `fcast report --equity`
 * writes it (docs/operations.md): per series the equity curve, its
 * drawdowns below the running peak, the position and, given the trade
 * log, the trades and their hit rate. */
typedef struct {
    const char *equity;   /* `fcast quant backtest --equity` CSV: unique_id, ds, equity[, position, ...]; needed */
    const char *trades;   /* `fcast quant backtest --trades` CSV (unique_id, ..., return); NULL: none */
    const char *series;   /* comma-separated unique_ids to draw; NULL: the first 4 of the equity file */
    const char *out;      /* the HTML file, written whole or not at all; "-": standard output */
} fcast_backtest_report_request;
/* Writes the page. A file without an equity column, a series not in it,
 * or a trade log naming a series the equity file lacks are FC_ERR_INVALID
 * (FC_ERR_PARSE for malformed CSV) naming the file and the column. */
fc_status fcast_report_backtest_html(const fcast_backtest_report_request *r);
/* This machine as fcast sees it, as `fcast doctor` reports it: the CPU
 * (model, AVX-512, AVX512-BF16, AMX, cores, memory, the measured
 * matrix-product peak), the GPUs (through NVML; through the CUDA backend,
 * host<->device bandwidth and matrix-product peak; a GPU that cannot run
 * says why, never a failure) and the conclusion: the device "device" auto
 * takes, the precision to train in, and the largest windows-batch-size of
 * the default N-HiTS (h 48, input 96) within the memory limit. What a
 * notebook checks its setup with: fcast_doctor_json for every figure,
 * fcast_doctor_summary_get for the answers. */
typedef struct {
    const char *memory_limit;   /* "2GiB"; NULL: the memory available now (on a GPU, at most GPU 0's free memory) */
    const char *data;           /* a long CSV to plan on; NULL: one synthetic series built in memory */
    size_t threads;             /* CPU threads, at most 1024; 0: all cores */
    int quick;                  /* 1: skip the timed peaks and the copy bandwidths (a second, not tens) */
} fcast_doctor_request;
typedef struct fcast_doctor fcast_doctor;
/* Probes and measures (seconds, unless quick). Errors: a bad memory_limit
 * or threads (named), an unreadable data file, the memory available
 * unknown without a memory_limit. */
fc_status fcast_doctor_run(const fcast_doctor_request *r, fcast_doctor **out);
/* The report as `fcast doctor` prints it (lines ending in '\n'), and as
 * `fcast doctor --json` prints it (one JSON object and '\n': "cpu", "gpu",
 * "conclusion"; null where a figure is unknown or not measured). Owned by
 * d. */
const char *fcast_doctor_text(const fcast_doctor *d);
const char *fcast_doctor_json(const fcast_doctor *d);
/* The answers, strings owned by d. */
typedef struct {
    const char *device, *device_reason;         /* "cpu" or "cuda:0": where device auto runs, and why */
    const char *precision, *precision_reason;   /* "bf16" or "fp32" (fcast_train's default is fp32) */
    size_t memory_limit;                        /* bytes the batch was planned within */
    const char *memory_limit_source;            /* "--memory-limit", "available memory", "GPU 0's free memory" */
    size_t largest_windows_batch_size;          /* of the default N-HiTS; 0: not one window fits */
    const char *plan_data;                      /* the data planned on */
    const char *cpu_model;                      /* NULL when unknown */
    int logical_cpus, threads;                  /* threads: fcast's */
    int avx512f, avx512_bf16, amx_works;
    double cpu_peak_gflops[2];                  /* fp32, bf16; 0: not measured (quick) */
    int gpus;                                   /* GPUs NVML describes */
    int cuda0_usable;                           /* the CUDA backend opened cuda:0 */
} fcast_doctor_summary;
fc_status fcast_doctor_summary_get(const fcast_doctor *d, fcast_doctor_summary *out);
void fcast_doctor_free(fcast_doctor *d);
/* How close training comes to the machine's limit, as `fcast bench train`
 * measures it: per precision, the dense-layer peak (the N-HiTS hidden
 * layer, 1024 x 512 by 512 x 512, forward with bias and ReLU fused; the
 * best of a measurement before and after training), then the default
 * N-HiTS (h 48, input 96) trained for `steps` steps on `data` after
 * `warmup` untimed ones, and with vs_torch the same architecture in
 * PyTorch eager (python/bench_torch.py, same threads and batch; on a GPU
 * on it, with autocast for bf16 and fp16). Figures, not pass/fail: on a
 * shared machine compare ratios taken in the same run. */
typedef struct {
    const char *data;                /* training data (long CSV) */
    const char *precisions;          /* "fp32,bf16"; NULL: fp32,bf16 on the CPU, fp32,bf16,fp16 on a GPU */
    const char *device;              /* auto | cpu | cuda | cuda:N (NULL: auto) */
    const char *python, *torch_script;   /* vs_torch: the interpreter and the script (no single quotes) */
    size_t steps;                    /* timed steps per precision, 1 to 100000 */
    size_t warmup;                   /* untimed steps first, at most 1000 */
    size_t threads;                  /* CPU threads, at most 1024; 0: all cores */
    size_t windows_batch_size;       /* windows per step, 1 to 65536 */
    int vs_torch;                    /* 1: also time PyTorch (CPU fp16 excepted: no baseline anyone uses) */
    int verbose;                     /* 1: each phase, and the PyTorch command and its failures, on stderr */
} fcast_bench_request;
/* The command's defaults: data/taylor_halfhourly.csv, python3 and
 * python/bench_torch.py (paths from the working directory), device auto,
 * 100 steps after 5, 1024 windows per step, all cores, precisions NULL. */
void fcast_bench_defaults(fcast_bench_request *r);
#define FCAST_BENCH_MAX_RUNS 3
typedef struct {
    const char *precision;           /* "fp32", "bf16", "fp16" */
    const char *kernel;              /* its matrix products: "oneDNN", "oneDNN fp32" (fp16 emulated), "fcast AMX", "fcast AVX512-BF16", "cuBLASLt" */
    double peak_gflops;              /* the dense layer's */
    double windows_per_second;       /* training */
    double gflops;                   /* training's matrix products: a share of the peak */
    double val_mae;                  /* the validation MAE at the end (48 points a series held out) */
    double step_seconds;             /* a step's mean time */
    double phase_seconds[FCAST_PHASES];   /* its mean time per phase (fcast_phase_name), over the timed steps */
    int torch_ok;                    /* PyTorch ran and reported */
    double torch_windows_per_second;
    char torch_device[128];          /* as the script reports it: "cuda:0 (NVIDIA H100 ...)" */
} fcast_bench_run;
typedef struct {
    char device[16];                 /* "cpu", "cuda:0" */
    int gpu;                         /* the CUDA backend ran */
    int threads;                     /* the backend's CPU threads (1 on a GPU) */
    int amx_capped;                  /* the CPU: oneDNN capped below AMX (AMX does not work for it here) */
    int bf16_on_fcast_amx;           /* the CPU: bf16 on fcast's AMX kernels, else on oneDNN */
    fcast_bench_run runs[FCAST_BENCH_MAX_RUNS];   /* in the order of precisions */
    size_t n_runs;
} fcast_bench_report;
/* Fills *out. Errors: a request value out of range or a precisions list
 * that is not one (named), the device, the data. A PyTorch side that fails
 * is not an error: its run says torch_ok 0. */
fc_status fcast_bench_train(const fcast_bench_request *r, fcast_bench_report *out);

/* A whole fit, as `fcast bench fit` measures it: configuration c (its
 * model, h, input size, steps, scaler, threads, device, ...) trained end
 * to end on a panel file with the last h points of every series held out,
 * once per precision, then those points forecast and scored; with
 * vs_neuralforecast, nf_script (python/bench_nf_fit_holdout.py) runs
 * neuralforecast's fit and predict on the same file, configuration, steps
 * and threads for each precision. Wall times, not a step benchmark: they
 * include reading the file, planning, building kernels and predicting. */
typedef struct {
    const char *data;                /* a long CSV (unique_id, ds, y) */
    const char *precisions;          /* "fp32,bf16"; NULL: the device's (fp32,bf16 on the CPU; and fp16 on a GPU) */
    int vs_neuralforecast;
    const char *python, *nf_script;  /* the interpreter and the neuralforecast side */
    int verbose;                     /* 1: each run, the neuralforecast command and its failures, on stderr */
} fcast_bench_fit_request;
/* data/monthly_classics.csv, python3, python/bench_nf_fit_holdout.py (paths
 * from the working directory), precisions NULL. */
void fcast_bench_fit_defaults(fcast_bench_fit_request *r);
typedef struct {
    const char *precision;           /* "fp32", "bf16", "fp16" */
    const char *kernel;              /* as fcast_bench_run's */
    double load_seconds;             /* reading and checking the file */
    double train_seconds;            /* the fit: plan, kernels, every step */
    double predict_seconds;          /* forecasting the held-out points */
    double windows_per_second;       /* steps x windows per step / train_seconds */
    double mae;                      /* over the held-out points (the model's first output) */
    double phase_seconds[FCAST_PHASES];   /* over the fit (fcast_phase_name) */
    int nf_ok;                       /* neuralforecast ran and reported */
    double nf_load_seconds, nf_train_seconds, nf_predict_seconds, nf_windows_per_second, nf_mae;
    char nf_versions[64];            /* "neuralforecast 3.3.0, torch 2.15.0" */
} fcast_bench_fit_run;
typedef struct {
    char device[16];                 /* "cpu", "cuda:0" */
    int threads;
    char model[16];                  /* "nhits" */
    char freq[32];                   /* the data's, as pandas names it */
    size_t n_series, n_points, h, input_size, steps, windows_batch_size;
    size_t held_out;                 /* points scored: h per series long enough */
    fcast_bench_fit_run runs[FCAST_BENCH_MAX_RUNS];
    size_t n_runs;
} fcast_bench_fit_report;
/* Fills *out. Errors: the configuration (auto windows per step is refused:
 * both sides must train the same batch), the request, the device, the
 * data (a series no longer than h). A neuralforecast side that fails is
 * not an error: its run says nf_ok 0. */
fc_status fcast_bench_fit(const fcast_config *c, const fcast_bench_fit_request *r, fcast_bench_fit_report *out);
/* END tools-run */

#ifdef __cplusplus
}
#endif
#endif
