/* The run log: one JSON object per line (JSON Lines), flushed as written so
 * `tail -f` and `fcast report` can follow a run while it trains. A resumed
 * run appends to the same file. The schema (docs/operations.md, "The run
 * log") is versioned by the "schema" key of the start event; readers ignore
 * events and keys they do not know.
 *
 * A failed write (a full disk) never stops training: it is reported once
 * on stderr and the log stops; fc_run_log_close says whether it happened. */
#ifndef FC_TRAIN_RUN_LOG_H
#define FC_TRAIN_RUN_LOG_H

#include <stddef.h>

#include "fcast/status.h"
#include "train/phase_times.h"
#include "train/progress.h"

/* 2: the phases time "gather" and "scale" apart (1: "gather_scale"); report/run_log.h reads up to the same */
#define FC_RUN_LOG_SCHEMA 2

typedef struct fc_run_log fc_run_log;

fc_status fc_run_log_open(const char *path, fc_run_log **out);

/* GPU samples (utilisation, memory, temperature, power) through NVML, at
 * most once a second, logged as "gpu" events with the steps. Quietly does
 * nothing where NVML or a GPU is missing: the CPU needs no such samples.
 * Returns the number of GPUs sampled. */
int fc_run_log_sample_gpus(fc_run_log *l);
/* Closes; FC_ERR_IO (with the cause) if any line could not be written. */
fc_status fc_run_log_close(fc_run_log **log);

/* What the start event says besides the configuration. */
typedef struct {
    const char *command;        /* "train" */
    const char *config_json;    /* the configuration used, a JSON object (may be NULL) */
    size_t plan_bytes, limit_bytes;
    int threads;
    const char *precision;
    size_t max_steps, start_step;
    const char *kernel;         /* which matrix-product kernels ran ("oneDNN fp32", "AMX bf16", ...) */
    const char *device;         /* the backend the run is on ("cpu", "cuda:0") */
} fc_run_start;

void fc_run_log_start(fc_run_log *l, const fc_run_start *s);
/* rss_bytes: resident memory now; device_bytes 0 prints null (no device). */
void fc_run_log_step(fc_run_log *l, const fc_step_status *s, const char *loss_unit, size_t rss_bytes,
                     size_t device_bytes);
void fc_run_log_validation(fc_run_log *l, size_t step, double val_loss, int improved, double best, size_t best_step);
/* A resumed run: the step it continues from and the checkpoint it read. */
void fc_run_log_resume(fc_run_log *l, size_t step, const char *checkpoint);
void fc_run_log_checkpoint(fc_run_log *l, size_t step, const char *path, size_t bytes, double seconds);
void fc_run_log_profile(fc_run_log *l, size_t step, const fc_phase_times *step_times);

typedef struct {
    const char *status;         /* completed | early_stopped | interrupted | failed */
    size_t steps;
    double seconds, step_seconds, windows_per_s, last_train_loss, best_val_loss;
    size_t best_step;
    size_t peak_rss_bytes, plan_bytes, limit_bytes, arena_used_bytes;
    const fc_phase_times *phases;
    const char *out, *checkpoint, *error;   /* NULL: null */
} fc_run_end;

void fc_run_log_summary(fc_run_log *l, const fc_run_end *e);

#endif
