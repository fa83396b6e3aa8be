/* A training run log (fcast train --log-file run.jsonl) read back as curves.
 *
 * The file is JSON Lines, one object per line, "event" naming its kind:
 * start, step, validation, checkpoint, gpu, profile, summary (schema 1, see
 * docs/operations.md). Unknown events and unknown keys are ignored so older
 * readers keep working on newer logs of the same schema; a newer schema is
 * refused with a message saying so. A resumed run appends a second "start"
 * to the same file; the curves are keyed by step, so they stay continuous.
 *
 * A crashed run may end without a summary and with a half-written last line
 * (no final newline): both are recorded (has_summary, truncated_tail), not
 * errors, so the report can still show what there is. */
#ifndef FC_REPORT_RUN_LOG_H
#define FC_REPORT_RUN_LOG_H

#include <stddef.h>
#include "fcast/status.h"

/* The newest schema this reader knows: train/run_log.h's, the writer's (2: the phases
 * time "gather" and "scale" apart; 1: "gather_scale"). */
#define FC_RUN_LOG_SCHEMA 2

/* One curve: points (x[i], y[i]); y is NaN where the log had null. */
typedef struct {
    double *x, *y;
    size_t n, cap;
} fc_xy;

/* A named value kept as display text (config flags, summary fields). */
typedef struct {
    char *key;
    char *value;
} fc_kv;

typedef struct {
    fc_kv *items;
    size_t n, cap;
} fc_kv_list;

/* The phases of a step, in the order the log names them. */
#define FC_RUN_PHASES 9
extern const char *const fc_run_phase_names[FC_RUN_PHASES];

typedef struct {
    /* From the first "start" event (the run as configured). */
    char *fcast_version, *time, *command, *precision;
    fc_kv_list config;
    double plan_bytes, limit_bytes;   /* limit 0: none */
    double threads, max_steps;
    size_t n_starts;                  /* > 1 for a resumed run */
    fc_xy resumes;                    /* x: start_step of each later start */
    char *train_loss_unit, *val_loss_unit;

    /* "step" events, x = step. */
    fc_xy train_loss, lr, loss_scale, grad_norm, windows_per_s, rss_bytes, device_bytes, skipped;
    /* "validation" events, x = step. */
    fc_xy val_loss;
    /* "checkpoint" events, x = step. */
    fc_xy checkpoint_bytes, checkpoint_seconds;
    /* "gpu" events, x = elapsed seconds. */
    fc_xy gpu_util, gpu_mem_used, gpu_mem_total, gpu_temp, gpu_power;
    /* "profile" events, x = step, one curve per phase (the first seven). */
    fc_xy profile[FC_RUN_PHASES];

    /* The "summary" event, if the run wrote one. */
    int has_summary;
    char *status, *error, *out;
    fc_kv_list summary;               /* every scalar field, for a table */
    double phase_seconds[FC_RUN_PHASES]; /* NaN where absent */
    double peak_rss_bytes;

    size_t lines;                     /* non-blank lines read */
    int truncated_tail;               /* the last line was cut off (crash) */
} fc_run_log;

/* Reads path into *log (zeroed first; on failure nothing is left to free). Errors name path:line and, for
 * malformed JSON, jansson's message and column; FC_ERR_PARSE for malformed
 * lines, FC_ERR_FORMAT for a newer schema, FC_ERR_IO if unreadable. */
fc_status fc_run_log_read(const char *path, fc_run_log *log);

/* Parses text[0..len) as the contents of a file named `name` (for tests and
 * for fc_run_log_read). */
fc_status fc_run_log_parse(const char *name, const char *text, size_t len, fc_run_log *log);

void fc_run_log_free(fc_run_log *log);

/* Appends (x, y) to c. */
fc_status fc_xy_push(fc_xy *c, double x, double y);
void fc_xy_free(fc_xy *c);

fc_status fc_kv_push(fc_kv_list *l, const char *key, const char *value);
void fc_kv_list_free(fc_kv_list *l);

#endif
