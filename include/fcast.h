/* fcast: neural time-series forecasting and trading analytics in C.
 *
 * The one public header. Structures are opaque; every fallible call returns
 * an fc_status and, on failure, fc_last_error() says what failed, where and
 * with which input (file, line, column, series id, field). */
#ifndef FCAST_H
#define FCAST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
/* The exit code of a failure with status s, one per status and the same
 * for every fcast command (docs/operations.md, "Exit codes"), so a script
 * or a scheduler tells "fix the data" from "retry" from "resume": 3 parse,
 * 4 invalid, 5 I/O, 6 memory, 7 file format, 8 backend, 130 interrupted;
 * 1 for FC_OK or an unknown status (a failure without a status is a bug).
 * A rank of an MPI job that fails ends the job with it (MPI_Abort). */
int fcast_exit_code(fc_status s);
const char *fc_version(void);
/* For a signal handler about to _exit: removes the temporary file of the
 * library's write in progress (files are written to a temporary name and
 * renamed), so an interrupted write leaves neither a half-written file
 * nor a stray temporary. Async-signal-safe. */
void fcast_abandon_writes(void);

/* ------------------------------------------------------------------ */
/* The library API (libfcast.so, pkg-config fcast; docs/c-api.md).      */
/* Handles are opaque; every call that can fail returns an fc_status,  */
/* the message in fc_last_error() naming the argument, series or field.*/
/* ------------------------------------------------------------------ */

/* Raised whenever a call or a type changes meaning; a program built
 * against version N runs with any library whose fcast_api_version() is N. */
#define FCAST_API_VERSION 2
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
/* A long-format CSV file (unique_id, ds, y); other columns are not read. */
fc_status fcast_data_read_csv(const char *path, fcast_data **out);
/* The same with every other column kept as an exogenous variable (each
 * must hold numbers; the error names the file, line and column of one
 * that does not): the file `fcast train --futr-exog ...` reads. */
fc_status fcast_data_read_csv_exog(const char *path, fcast_data **out);
/* A file of future values (neuralforecast's futr_df: unique_id, ds and
 * the future-known columns; a y column is allowed and not needed), for
 * fcast_predict_future: the file `fcast predict --futr-data` reads. */
fc_status fcast_data_read_future_csv(const char *path, fcast_data **out);
/* Static values from a CSV file (unique_id and one numeric column per
 * variable, a row per series: neuralforecast's static_df, the file of
 * --stat-exog-file) attached to d as fcast_data_set_static does. */
fc_status fcast_data_read_static_csv(fcast_data *d, const char *path);
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
/* Checks the configuration as a whole, before any data: the architecture
 * its keys make (a head count that must divide the width, stacks and
 * their lists of one length, ...), the loss against the input size,
 * intervals for a point loss. fcast_train checks it too. */
fc_status fcast_config_check(const fcast_config *c);
void fcast_config_free(fcast_config *c);
/* The architecture keys of fcast_config_set (hidden-size, n-blocks,
 * mlp-units, ...) in `fcast train --help`'s order: for i below their
 * count, fills *out and returns 1; past the end returns 0. A count key
 * takes a non-negative integer, the others text (a list, a name). */
typedef struct {
    const char *key, *metavar, *help;   /* static strings */
    int is_count;
} fcast_key_info;
int fcast_config_arch_key(size_t i, fcast_key_info *out);

/* How messages name an option: by its key ("max-steps", the default: a
 * library caller sets it with fcast_config_set) or by its command-line
 * flag ("--max-steps": the fcast CLI). Process-wide; set it once, before
 * other calls. */
typedef enum { FCAST_NAMES_KEYS = 0, FCAST_NAMES_FLAGS = 1 } fcast_option_names;
void fcast_set_option_names(fcast_option_names names);

/* The operations keys (docs/operations.md): how and where a run goes, not
 * what model it makes. None changes the trained weights.
 *   device          auto | cpu | cuda | cuda:N (auto: GPU 0 when usable)
 *   tf32, cuda-graph  on | off: TF32 products, step graphs (GPU only)
 *   memory-limit    "12GB", "512MiB": refuse a run whose plan exceeds it
 *   windows-batch-size auto: the fastest batch that fits the limit
 *   data-store      auto | memory | stream, store-dir DIR (fcast_data_open)
 *   freq            the data's frequency (fcast_data_open; inferred)
 *   stat-exog-file  the static values fcast_data_open attaches (all of its
 *                   columns unless "stat-exog" names some)
 *   verbose         on | off (off): the device, the progress and the
 *                   choices made, on stderr
 *   out             the model file fcast_train writes (also on a cancel)
 *   checkpoint, checkpoint-every, resume  checkpoints and resuming
 *   log-file, profile  the run log (JSON Lines) and per-step timings
 * The other keys, and these, are those of `fcast train`'s flags. */

/* A long-format CSV read as configuration c trains on it: the columns its
 * model reads kept (a warning on stderr names the ones left out), the
 * frequency of "freq", the file of "stat-exog-file" attached, and the
 * rows loaded whole or streamed into a mapped store file as "data-store",
 * "store-dir" and "memory-limit" say (a line on stderr when streamed). */
fc_status fcast_data_open(const fcast_config *c, const char *path, fcast_data **out);

/* Called after every training step: the step (from 1), the steps of the
 * run and the step's training loss. */
typedef void (*fcast_progress_fn)(void *user, size_t step, size_t max_steps, double train_loss);

/* Trains a model of configuration c on d. progress may be NULL. When
 * *cancel (may be NULL) becomes non-zero, from any thread or a signal
 * handler, training stops after the current step: FC_ERR_INTERRUPTED, with
 * *out the model trained so far (the best validated weights when
 * validating), so a notebook's interrupt keeps its work. With the key
 * "out", the model is written there (on a cancel too, with a checkpoint
 * beside it to resume from); fcast_model_train_report says what the run
 * did. */
fc_status fcast_train(const fcast_config *c, const fcast_data *d, fcast_progress_fn progress, void *user,
                      const volatile int *cancel, fcast_model **out);
/* fcast_train on the file at path, read as fcast_data_open reads it once
 * the device is open and the files the run writes ("out", "checkpoint",
 * "log-file") are checked: a run that cannot compute or keep its result
 * fails before a large file is read. `fcast train` is this call. */
fc_status fcast_train_file(const fcast_config *c, const char *path, fcast_progress_fn progress, void *user,
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
/* Forecasts with conformal prediction intervals, for a model trained with
 * the key "prediction-intervals" = "conformal" (neuralforecast's
 * PredictionIntervals): levels in (0, 100), at most 8; out (n_series, h,
 * 1 + 2 n_levels) row-major: per point the forecast, then the lower bounds
 * from the widest level in, then the upper bounds from the narrowest out,
 * as neuralforecast's columns (NHITS, NHITS-lo-90, NHITS-lo-80,
 * NHITS-hi-80, NHITS-hi-90). n_levels 0: fcast_predict_future. */
fc_status fcast_predict_levels(const fcast_model *m, const fcast_data *history, const fcast_data *future,
                               const double *levels, size_t n_levels, float *out, size_t capacity);
/* 1 when the model was trained with conformal intervals. */
int fcast_model_has_intervals(const fcast_model *m);
/* A data-parallel job started by mpirun (docs/distributed.md): this
 * process's rank (0 alone) and the number of processes (1 alone), joining
 * the job if no call has yet. In fcast_train every rank trains on its
 * share of each step's windows; fcast_predict_files and
 * fcast_cross_validate_file share their forecasts and trainings. Rank 0
 * alone writes the model file, checkpoints, the run log and the output
 * files, so a program prints on rank 0 alone too. Every rank must make the
 * same calls in the same order; a call that fails on one rank ends the
 * job (MPI_Abort). */
int fcast_job_rank(void);
int fcast_job_size(void);
/* What the training of m did (a model from fcast_train; zeros and NULLs
 * for a loaded one). Strings live as long as m. */
#define FCAST_PHASES 9
typedef struct {
    size_t steps, max_steps, start_step;   /* start_step > 0: resumed */
    double seconds, windows_per_second;
    double last_train_loss, best_val_loss; /* NaN without validation */
    size_t best_step;
    int early_stopped;
    size_t skipped_steps;                  /* fp16: steps the loss scaler skipped */
    double loss_scale;                     /* fp16: the final scale */
    size_t windows_batch_size;             /* as trained ("auto": the choice) */
    const char *precision, *kernel, *device;   /* "bf16", "bf16 on oneDNN", "cpu" */
    const char *checkpoint;                /* the last checkpoint written, or NULL */
    const char *model_file;                /* "out" when written, else NULL */
    size_t memory_plan, memory_limit, arena_used, arena_size, resident_peak;   /* bytes */
    double phase_seconds[FCAST_PHASES];    /* fcast_phase_name(p) */
} fcast_train_report;
fc_status fcast_model_train_report(const fcast_model *m, fcast_train_report *out);
/* "sample", "gather", "scale", "forward", "loss", "backward", "optimizer",
 * "validation", "checkpoint_io"; NULL past the last. */
const char *fcast_phase_name(size_t p);
/* This process's resident memory now, and its peak, in bytes (0 where the
 * system does not say); bytes as text ("1.5 GiB") into buf. */
size_t fcast_resident_bytes(void);
size_t fcast_resident_peak_bytes(void);
const char *fcast_bytes_text(size_t bytes, char *buf, size_t cap);
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

/* ------------------------------------------------------------------ */
/* Output files as fcast writes them: checked before the work, written */
/* whole or not at all, CSV fields as pandas reads them back.          */
/* ------------------------------------------------------------------ */

/* An input of the run and the name (key or flag) that gave it. */
typedef struct {
    const char *name;   /* "data", "--data" */
    const char *path;   /* NULL: not given, skipped */
} fcast_input_path;
/* Refuses an output that cannot be written, before any work, naming
 * `name` and `path`: "-" unless allow_stdout (FC_ERR_INVALID); a
 * directory, a socket or a dangling link; a missing or unwritable parent
 * directory; a device or FIFO that cannot be opened (FC_ERR_IO); the same
 * file as any input however named: "./x.csv", a link (FC_ERR_INVALID).
 * A NULL path (an output not asked for) is accepted. */
fc_status fcast_output_check(const char *name, const char *path, int allow_stdout, const fcast_input_path *inputs,
                             size_t n_inputs);
/* A file a run reads or writes, and the name (key or flag) that gave it:
 * the entries of fcast_paths_check, one list for every file of a command. */
typedef enum {
    FCAST_PATH_IN,          /* read */
    FCAST_PATH_OUT,         /* written ("-" refused) */
    FCAST_PATH_OUT_STDOUT   /* written; "-" is standard output */
} fcast_path_role;
typedef struct {
    const char *name;       /* "--out", "out" */
    const char *path;       /* NULL: not given, skipped */
    fcast_path_role role;
    int list;               /* 1: path is a comma-separated list of files (fcast predict's --model) */
    const char *may_share;  /* the name of the one entry this one may be the same file as, or NULL
                               (--checkpoint may be the file --resume reads) */
} fcast_path_use;
/* Refuses (FC_ERR_INVALID, naming both entries) an output that is the same
 * file as any other entry, input or output, whether the file exists yet or
 * not and however it is named: "./x", "d/../x", a symbolic or a hard link.
 * Devices are exempt (two outputs may both go to /dev/null), and "-"
 * collides only with another "-" output. Nothing is created. */
fc_status fcast_paths_distinct(const fcast_path_use *uses, size_t n);
/* fcast_paths_distinct, then each output checked as fcast_output_check
 * does (writable, "-" only for FCAST_PATH_OUT_STDOUT): every file of a
 * command checked together, before any work. */
fc_status fcast_paths_check(const fcast_path_use *uses, size_t n);
/* Writes the file's contents to f; returns FC_OK or a status with its
 * message set. It must not close f. */
typedef fc_status (*fcast_write_fn)(FILE *f, void *ctx);
/* Writes what body writes to path so that a reader sees the old file or
 * the whole new one: a temporary in the same directory, flushed, synced
 * and renamed over path ("-": standard output; a device or FIFO is
 * written through, never replaced). Errors name the path and the reason. */
fc_status fcast_write_file(const char *path, fcast_write_fn body, void *ctx);
/* One CSV field, quoted (quotes doubled) when it holds a comma, a quote
 * or a line break. */
void fcast_csv_write_field(FILE *f, const char *text);
/* v in the fewest digits (15 to 17) that read back as v. */
void fcast_csv_write_real(FILE *f, double v);

/* A settings file (`fcast train --config run.yaml`; docs/operations.md,
 * "Configuration files"): one YAML mapping of keys to values, each a
 * scalar kept as the text YAML gives (`h: 012` stays "012") or a sequence
 * of scalars joined with commas ("512,512"). Nested mappings, aliases, a
 * second document or a key given twice are FC_ERR_PARSE naming
 * file:line:column; an unreadable file (missing, a directory, a FIFO) is
 * FC_ERR_IO. The keys are fcast_config_set's (or a command's flags). */
typedef struct fcast_settings_file fcast_settings_file;
typedef struct {
    const char *key, *value;   /* value as written */
    size_t line;               /* 1-based line of the key */
    int is_null;               /* an empty, "~" or "null" value */
} fcast_setting;
fc_status fcast_settings_read(const char *path, fcast_settings_file **out);
/* The entries in file order (keys unique); NULL past the end. */
size_t fcast_settings_count(const fcast_settings_file *f);
const fcast_setting *fcast_settings_at(const fcast_settings_file *f, size_t i);
/* The path as given, for messages. */
const char *fcast_settings_path(const fcast_settings_file *f);
void fcast_settings_free(fcast_settings_file *f);

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
 * tensors, bit for bit), one after another with every thread, on one
 * backend and one reading of the file. The run's operations are the first
 * member's keys: device, threads, tf32, verbose (the device and each
 * step's progress on stderr), and the data's (data-store, store-dir,
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

/* ------------------------------------------------------------------ */
/* Trading analytics (docs/c-api.md, "Trading analytics"): TA-Lib's     */
/* indicators, options (Black-Scholes, Monte Carlo), risk measures and */
/* portfolio weights over the caller's arrays; nothing to free but a   */
/* device and a file's returns (their _free). Errors name the argument */
/* and the index at fault ("vol[3] = -0.2").                           */
/* ------------------------------------------------------------------ */

/* Indicators, with TA-Lib 0.8.1's values (docs/quant-indicators.md).
 * spec is the text of `fcast quant indicators --ind`: "sma:20", "ema:10",
 * "wma:10", "rsi:14", "mom:10", "roc:10", "stddev:5:1", "bbands:20:2:2",
 * "macd:12:26:9", "zscore:20" (parameters in TA-Lib's order; omitted ones
 * take TA-Lib 0.8.1's defaults: bbands' period is 20, 5 before 0.8.1;
 * zscore, fcast's own, takes 20).
 * Its outputs: 3 for bbands (upper, middle, lower) and macd (macd, signal,
 * hist), 1 otherwise. */
fc_status fcast_indicator_outputs(const char *spec, size_t *n_outputs);
/* TA-Lib's lookback: the NaNs that start the outputs of a series without NaN. */
fc_status fcast_indicator_lookback(const char *spec, size_t *lookback);
/* One series x[0 .. n) into outs[k][0 .. n) for k < n_outs, which must be
 * the spec's number of outputs: NaN for the first lookback values (all of
 * them when n <= lookback) and where the indicator is undefined, as
 * TA-Lib's Python functions return them. Leading NaNs of x are skipped
 * (the series starts at its first number); a later NaN enters the running
 * sums as in TA-Lib. The outputs may not overlap x or each other. */
fc_status fcast_indicator(const char *spec, const double *x, size_t n, double *const *outs, size_t n_outs);
/* The same for n_series series in the grouped layout of
 * fcast_data_from_arrays: series i is values[indptr[i] .. indptr[i+1])
 * (indptr[0] = 0, never decreasing; a series may be empty), each on its
 * own; outs[k] has indptr[n_series] values. Large inputs run on all cores. */
fc_status fcast_indicator_grouped(const char *spec, size_t n_series, const int64_t *indptr, const double *values,
                                  double *const *outs, size_t n_outs);

/* Several indicators computed in one pass over the data (each series read
 * once for all): the comma-separated specs of `fcast quant indicators
 * --ind` ("sma:20,rsi:14,bbands:20:2"), each at most once, at most 64. */
#define FCAST_INDICATOR_MAX_SPECS 64
typedef struct fcast_indicator_set fcast_indicator_set;
fc_status fcast_indicator_set_parse(const char *specs, fcast_indicator_set **out);
size_t fcast_indicator_set_size(const fcast_indicator_set *s);
/* Spec j in its canonical text ("bbands:20:2", what fcast_indicator_lookback
 * takes), NULL past the end. */
const char *fcast_indicator_set_spec(const fcast_indicator_set *s, size_t j);
/* The output columns of all specs, spec by spec, each spec's outputs in
 * fcast_indicator's order: column c's name ("sma_20", "bbands_20_2_upper";
 * the spec with '_' for ':', then the output's name when there are
 * several), NULL past the end. */
size_t fcast_indicator_set_n_columns(const fcast_indicator_set *s);
const char *fcast_indicator_set_column(const fcast_indicator_set *s, size_t c);
void fcast_indicator_set_free(fcast_indicator_set *s);

/* What a NaN inside a series does: POISON, TA-Lib's (it enters the running
 * sums); RESTART, each run between NaNs is a series of its own. */
typedef enum { FCAST_NAN_POISON = 0, FCAST_NAN_RESTART = 1 } fcast_nan_policy;
typedef struct fcast_device fcast_device;   /* where the work runs: fcast_device_open below */
typedef struct {
    fcast_nan_policy nan;
    int threads;                  /* 0: all cores */
    const fcast_device *device;   /* NULL: the CPU */
} fcast_indicator_options;
/* Every spec of s over the series of fcast_indicator_grouped's layout
 * (o NULL: POISON, all cores, the CPU): outs[c] (indptr[n_series] values)
 * for each of the n_outs = fcast_indicator_set_n_columns(s) columns.
 * too_short (may be NULL): (size(s), n_series) row-major, 1 where a series
 * is too short (under RESTART, after its gaps) for spec j to give a value. */
fc_status fcast_indicator_set_compute(const fcast_indicator_set *s, const fcast_indicator_options *o,
                                      size_t n_series, const int64_t *indptr, const double *values,
                                      double *const *outs, size_t n_outs, uint8_t *too_short);

typedef enum { FCAST_PUT = 0, FCAST_CALL = 1 } fcast_option_type;

/* n options on a stock with a continuous dividend yield, one value per
 * option in each array: type[i] (FCAST_CALL or FCAST_PUT), spot[i] > 0,
 * strike[i] > 0, rate[i] (continuously compounded) and div[i] finite,
 * vol[i] > 0, expiry[i] > 0 in years. rate and div may be NULL: 0. */
typedef struct {
    size_t n;
    const int *type;
    const double *spot, *strike, *rate, *div, *vol, *expiry;
} fcast_option_arrays;

/* European prices and Greeks under Black-Scholes-Merton into arrays of
 * o->n values, any of them NULL when not wanted. QuantLib's units: vega
 * and rho per 1.00 of volatility and rate, theta per year. */
fc_status fcast_bs_european(const fcast_option_arrays *o, double *price, double *delta, double *gamma,
                            double *vega, double *theta, double *rho);
/* Discrete geometric-average-price Asian options in closed form (Kemna and
 * Vorst; QuantLib's AnalyticDiscreteGeometricAveragePriceAsianEngine):
 * the average of n_fixings prices at fixing_times[0 .. n_fixings), sorted
 * and within [0, expiry[i]] for every option (0: today's spot is one), or,
 * fixing_times NULL, at expiry[i] j / n_fixings for j = 1 .. n_fixings. */
fc_status fcast_asian_geometric(const fcast_option_arrays *o, const double *fixing_times, size_t n_fixings,
                                double *price);

/* One option priced by Monte Carlo as `fcast quant option` does: exact
 * lognormal paths from counter-based draws, so that a seed gives the same
 * price on any number of threads. A field left 0 takes the default said. */
typedef struct {
    int type;                   /* FCAST_CALL or FCAST_PUT */
    int asian;                  /* 0: European; 1: arithmetic-average-price Asian */
    double spot, strike, rate, div, vol, expiry;   /* as in fcast_option_arrays */
    const double *fixing_times; /* Asian: n_fixings sorted times in [0, expiry]; NULL: expiry j / n_fixings */
    size_t n_fixings;           /* Asian: fixings of the average; 0: 12 */
    size_t steps;               /* European: time steps per path; 0: 1 (the paths are exact) */
    uint64_t paths;             /* 0: 1000000; rounded up to whole draws (2 paths, 4 with antithetic) */
    uint64_t seed;              /* any value (the CLI's default is 42) */
    int antithetic;             /* 1: each path with its mirror */
    int no_control_variate;     /* Asian: 1 to go without the geometric-average control variate */
} fcast_mc_option;

typedef struct {
    double price, std_error;    /* the estimate and its standard error */
    double ci_low, ci_high;     /* 95%: price -+ 1.959964 std_error */
    uint64_t paths;             /* paths simulated */
} fcast_mc_result;

fc_status fcast_mc_price(const fcast_mc_option *o, fcast_mc_result *out);

/* Where Monte Carlo prices run, as `fcast quant option --device` says:
 * "auto" (NULL too: GPU 0 when one with fcast's quant kernels is usable,
 * else the CPU), "cpu", "cuda" or "cuda:N". A GPU runs the CPU's draws in
 * the same order (equal but for the last bits of exp, log, sin, cos).
 * cuda without a usable GPU is FC_ERR_BACKEND naming the device and the
 * check that failed ("device cuda:0: no CUDA backend: ..."); a name that
 * is none of these forms is FC_ERR_INVALID. */
fc_status fcast_device_open(const char *device, fcast_device **out);
/* One line saying which device runs and, under auto, why not a GPU:
 * "device: cpu", "device: cpu (no GPU: ...)", "device: cuda:0 (...)". */
const char *fcast_device_note(const fcast_device *d);
/* The forms of a device name, for help texts. */
#define FCAST_DEVICE_FORMS "auto | cpu | cuda | cuda:N"
/* *gpu 1 when device names a GPU (cuda, cuda:N), 0 for auto (NULL too) and
 * cpu; FC_ERR_INVALID naming the forms for any other text. */
fc_status fcast_device_is_gpu(const char *device, int *gpu);
void fcast_device_free(fcast_device *d);

/* What a Monte Carlo estimate is made of (`fcast quant option` prints it). */
typedef struct {
    uint64_t samples;                    /* independent samples (an antithetic pair counts once) */
    double plain_price, plain_std_error; /* without the control variate (else price and std_error) */
    double geo_mc, geo_mc_std_error;     /* Asian: Monte Carlo mean of the geometric-average payoff */
    double geo_exact;                    /* Asian: its closed form (Kemna-Vorst) */
    double cv_beta;                      /* the control variate's coefficient; 0 when not used */
} fcast_mc_detail;

/* fcast_mc_price on dev (NULL: the CPU), the same price for a seed, with
 * *detail (may be NULL) filled too. */
fc_status fcast_mc_price_on(const fcast_mc_option *o, const fcast_device *dev, fcast_mc_result *out,
                            fcast_mc_detail *detail);

/* Risk of n simple returns per period (252 periods a year; returns finite
 * and not below -1), with empyrical's conventions: volatility and Sharpe
 * from the ddof-1 standard deviation, risk-free rate and required return 0. */
typedef struct {
    size_t n;
    double mean;                /* per period */
    double annual_return;       /* CAGR: prod(1 + r)^(252 / n) - 1 */
    double annual_volatility;   /* std(r) sqrt(252) */
    double sharpe;              /* mean / std sqrt(252); NaN when the returns are constant */
    double sortino;             /* downside deviation over all periods; +inf when none lost */
    double max_drawdown;        /* <= 0, of the wealth prod(1 + r) from 1 */
} fcast_risk;

/* n >= 2. */
fc_status fcast_risk_summary(const double *returns, size_t n, fcast_risk *out);
/* One-period value at risk and expected shortfall at a confidence level in
 * (0, 1), losses positive. Historical (n >= 1): the k-th worst return,
 * k = ceil((1 - level) n) (QuantLib's percentile), and the mean of the k
 * worst. Normal (n >= 2): from the mean and the ddof-1 standard deviation. */
fc_status fcast_var_historical(const double *returns, size_t n, double level, double *var, double *cvar);
fc_status fcast_var_normal(const double *returns, size_t n, double level, double *var, double *es);

/* Portfolios of n_assets from n_periods returns of each, row-major:
 * returns[t * n_assets + j] (a DataFrame's values); every value finite,
 * n_periods >= 2, 1 <= n_assets <= 4096. The sample mean (n_assets) and
 * covariance (n_assets x n_assets, ddof 1) per period: */
fc_status fcast_portfolio_moments(const double *returns, size_t n_periods, size_t n_assets, double *mean,
                                  double *cov);
/* Fully invested weights (summing to 1, shorts allowed, closed form): of
 * least variance, and of least variance earning `target` per period
 * (mean'w = target; n_assets >= 2). */
fc_status fcast_portfolio_min_variance(const double *returns, size_t n_periods, size_t n_assets, double *weights);
fc_status fcast_portfolio_target_return(const double *returns, size_t n_periods, size_t n_assets, double target,
                                        double *weights);

/* The returns matrix of a long CSV file (unique_id, ds, y; other columns
 * ignored), as `fcast quant risk` and `fcast quant portfolio` read --data:
 * rows as given (no frequency grid: trading days leave weekends out), the
 * series aligned on ds by an inner join (the ds where every series has a
 * value), then simple returns p_t / p_{t-1} - 1 between consecutive kept
 * ds of prices (all > 0, at least 3 common ds), or, are_returns 1, y as
 * given (finite and above -1, at least 2 common ds). Errors name the
 * file, the line, the series and the ds. Series in sorted id order. */
typedef struct fcast_returns fcast_returns;
fc_status fcast_returns_read_csv(const char *path, int are_returns, fcast_returns **out);
size_t fcast_returns_n_periods(const fcast_returns *r);
size_t fcast_returns_n_assets(const fcast_returns *r);
/* The id of series j, NULL past the end. */
const char *fcast_returns_id(const fcast_returns *r, size_t j);
/* returns[t * n_assets + j]: the matrix fcast_risk_summary's columns and
 * fcast_portfolio_*'s returns come from, owned by r. */
const double *fcast_returns_values(const fcast_returns *r);
void fcast_returns_free(fcast_returns *r);

/* A long CSV file (unique_id, ds, y; other columns ignored) with its rows
 * as given, as `fcast quant indicators` and `fcast quant backtest` read
 * --data: no frequency grid (trading days leave weekends out), series in
 * sorted id order, each in ds order, an empty y missing (NaN). Errors name
 * the file, the line and the series. */
typedef struct fcast_table fcast_table;
fc_status fcast_table_read_csv(const char *path, fcast_table **out);
size_t fcast_table_n_series(const fcast_table *t);
/* The id of series i, NULL past the end. */
const char *fcast_table_id(const fcast_table *t, size_t i);
/* The grouped layout (fcast_indicator_grouped's), owned by t: series i is
 * values[indptr[i] .. indptr[i+1]), NaN where missing. */
const int64_t *fcast_table_indptr(const fcast_table *t);
const double *fcast_table_values(const fcast_table *t);
/* The ds of row `row` as fcast writes it ("2024-01-31", "2024-01-31
 * 09:30:00", "17") into buf, cap >= 48. */
fc_status fcast_table_ds_text(const fcast_table *t, size_t row, char *buf, size_t cap);
void fcast_table_free(fcast_table *t);

/* Backtests of a trading rule over a grid of its parameters, as `fcast
 * quant backtest` runs them (docs/quant-analytics.md): a position decided
 * on the close of bar t earns the return of bar t+1; costs are cost_bps
 * basis points per unit of turnover. Rules and their parameters:
 * "sma-cross" (fast, slow), "rsi" (period, lower, upper), "bbands"
 * (period, k). Messages name a parameter by these names. */
typedef enum { FCAST_RULE_SMA_CROSS = 0, FCAST_RULE_RSI = 1, FCAST_RULE_BBANDS = 2 } fcast_rule;
fc_status fcast_rule_parse(const char *name, fcast_rule *out);
/* The rule's name and its parameters' (NULL past the end or for no rule). */
const char *fcast_rule_name(fcast_rule r);
size_t fcast_rule_n_params(fcast_rule r);
const char *fcast_rule_param_name(fcast_rule r, size_t i);
/* The product of one range per parameter: ranges[i] for parameter i,
 * "start:stop:step" (inclusive), "start:stop" (step 1) or one value; NULL
 * (or i >= n_ranges) takes the default (fast 5:50:5, slow 20:200:10;
 * period 14, lower 30, upper 70; period 20, k 2). Combinations with fast
 * >= slow or lower >= upper are skipped; every one kept is checked
 * (periods whole numbers from 1, 2 for rsi and bbands, to 100000; RSI
 * thresholds in [0, 100]; k > 0). A grid with none left is FC_ERR_INVALID. */
typedef struct fcast_grid fcast_grid;
fc_status fcast_grid_new(fcast_rule rule, const char *const *ranges, size_t n_ranges, fcast_grid **out);
size_t fcast_grid_size(const fcast_grid *g);
size_t fcast_grid_skipped(const fcast_grid *g);
fcast_rule fcast_grid_rule(const fcast_grid *g);
/* The fcast_rule_n_params values of combination c, NULL past the end. */
const double *fcast_grid_params(const fcast_grid *g, size_t c);
void fcast_grid_free(fcast_grid *g);

typedef struct {
    double cost_bps;   /* in [0, 10000) */
    int allow_short;   /* 1: long-short; 0: long-only */
} fcast_backtest_options;
/* Of one combination on one series: total return; CAGR (252 bars a year);
 * Sharpe (ddof 1, sqrt(252); NaN if the strategy never moves); maximum
 * drawdown (<= 0); trades opened, trades closed and the fraction of closed
 * trades that gained (NaN when none closed). */
typedef struct {
    double total_return, cagr, sharpe, max_drawdown, hit_rate;
    size_t trades, closed_trades;
} fcast_backtest_metrics;
/* Every combination of g on every series of closes in the grouped layout
 * (NaN closes skipped; at least 2 left, all > 0, each period no longer than
 * the series): out (fcast_grid_size(g), n_series) row-major. ids (may be
 * NULL) name the series in messages. */
fc_status fcast_backtest(const fcast_grid *g, const fcast_backtest_options *o, size_t n_series, const int64_t *indptr,
                         const double *close, const char *const *ids, fcast_backtest_metrics *out);

#ifdef __cplusplus
}
#endif
#endif
