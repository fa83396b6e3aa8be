/* The library API of libfcast.so (docs/c-api.md): data, configurations,
 * training, forecasting, model files, output files and settings files.
 * Included by fcast.h; include that. */
#ifndef FCAST_LIBRARY_H
#define FCAST_LIBRARY_H

#include "fcast/status.h"

#ifdef __cplusplus
extern "C" {
#endif

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
 * "lstm", "tide", "patchtst": the keys fcast_config_model_kind lists; any
 * case) with horizon h and input window input_size, at neuralforecast's
 * defaults for that model. */
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
/* The model kinds, in fcast's order: for i below their count, fills *out
 * and returns 1; past the end returns 0. key is fcast_config_new's
 * model ("nhits"), name neuralforecast's class, which names the model in
 * model files and forecast columns ("NHITS"; fcast_model_kind). */
typedef struct {
    const char *key, *name;   /* static strings */
} fcast_kind_info;
int fcast_config_model_kind(size_t i, fcast_kind_info *out);

/* The other keys of fcast_config_set, one table in `fcast train --help`'s
 * order, from which the CLI makes its flags (their --help lines, --config
 * files, --print-config) and against which the Python package's argument
 * names are tested (docs/operations.md, "Configuration files"). A key is
 * added here, with its setter in the library, and nowhere else. */
typedef enum {
    FCAST_KEY_COUNT,      /* a non-negative integer */
    FCAST_KEY_INTEGER,    /* an integer, negative ones meaning "off" or "the model's" */
    FCAST_KEY_NUMBER,     /* a finite number */
    FCAST_KEY_TEXT,       /* a word or a list */
    FCAST_KEY_SWITCH,     /* on | off */
    FCAST_KEY_FILE_IN,    /* a file read */
    FCAST_KEY_FILE_OUT    /* a file written */
} fcast_key_kind;
typedef enum {
    FCAST_KEY_KEPT,         /* kept in the model file's configuration */
    FCAST_KEY_RUN,          /* how and where a run goes (device, files): left out of the model file, so a
                               resumed run writes the file an uninterrupted one would */
    FCAST_KEY_TRAIN_RUN,    /* the same, read by fcast_train alone (checkpoints, run log): no key of
                               cross-validation, plans or searches */
    FCAST_KEY_INTERVALS     /* kept; conformal intervals, fitted by fcast_train alone (after the
                               architecture keys in --help) */
} fcast_key_role;
typedef struct {
    const char *key, *metavar, *help;   /* static strings; help in the CLI's words */
    const char *default_text;   /* the CLI's value when not given, as --print-config writes it; NULL: none
                                   (the model's, the data's); num-lr-decays -2: the model's */
    const char *python;         /* the argument of neuralforecast's models that sets it (python/fcast), or NULL */
    fcast_key_kind kind;
    fcast_key_role role;
} fcast_train_key_info;
/* For i below the table's length, fills *out and returns 1; past the end
 * returns 0. "verbose" is the one key the CLI spells otherwise (--quiet). */
int fcast_config_train_key(size_t i, fcast_train_key_info *out);

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
 * NHITS-hi-80, NHITS-hi-90). n_levels 0: fcast_predict_future. A model
 * trained with a distribution loss (normal, studentt, ...) gives the same
 * layout drawn at the levels' quantiles (at most 7 levels): its sample
 * mean, then the bounds, as neuralforecast's predict(level=...). */
fc_status fcast_predict_levels(const fcast_model *m, const fcast_data *history, const fcast_data *future,
                               const double *levels, size_t n_levels, float *out, size_t capacity);
/* A distribution model's forecast drawn at quantiles q (in (0, 1),
 * distinct, at most 15), as neuralforecast's predict(quantiles=...): out
 * (n_series, h, 1 + n) row-major, per point the sample mean, then the
 * quantiles sorted ascending (columns NHITS, NHITS_ql0.1, ...). An IQLoss
 * model's: out (n_series, h, n), the quantiles alone, np.quantile of its
 * forecasts at neuralforecast's 11 fixed quantiles (and so, for it,
 * fcast_predict_levels: out (n_series, h, 2 n_levels), the bounds alone).
 * Another loss is refused. */
fc_status fcast_predict_quantiles(const fcast_model *m, const fcast_data *history, const fcast_data *future,
                                  const double *q, size_t n, float *out, size_t capacity);
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
 * for a point forecast, "-median", "-lo-80", "-hi-80" for an mq loss's,
 * "" (the sample mean) then those for a distribution loss's; NULL past the
 * last output. fcast_model_outputs counts the forecast's values per point
 * (a distribution's are not its raw parameters). */
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

#ifdef __cplusplus
}
#endif
#endif
