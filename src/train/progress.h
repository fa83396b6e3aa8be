/* Training progress on stderr: a progress bar when stderr is a terminal,
 * otherwise one log line every few percent and at every validation. */
#ifndef FC_TRAIN_PROGRESS_H
#define FC_TRAIN_PROGRESS_H

#include <stddef.h>

#include "core/clock.h"   /* fc_now: its users included this header for it */

typedef struct {
    int mode;             /* 0 silent, 1 lines, 2 bar */
    size_t total, every;
    size_t first;         /* the step a (resumed) run started from */
    double t0;            /* fc_now() at init: elapsed time and ETA count from it */
    const char *loss_unit;/* "scaled" or "original": what the training loss is measured in */
} fc_progress;

/* first_step > 0 for a resumed run (the ETA counts the steps this run did). */
void fc_progress_init(fc_progress *p, int verbose, size_t total_steps, size_t first_step, const char *loss_unit);
/* What a log line reports about one optimizer step. */
typedef struct {
    size_t step;
    double loss, lr, windows_per_s;
    float loss_scale;        /* fp16's dynamic loss scale; 0: no scaler */
    size_t skipped;          /* steps skipped so far by the scaler */
    double grad_norm;        /* before clipping; NaN: not computed */
} fc_step_status;

void fc_progress_step(fc_progress *p, const fc_step_status *s);
/* A step skipped by the loss scaler (always logged, it is rare). */
void fc_progress_skip(fc_progress *p, size_t step, float new_scale);
void fc_progress_validation(fc_progress *p, size_t step, double val_loss, int improved);
void fc_progress_done(fc_progress *p);

#endif
