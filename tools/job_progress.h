/* Progress of a job of several trainings on stderr: fcast cv's trainings,
 * fcast ensemble's members, fcast tune's trials. As fcast train's own
 * progress: a bar redrawn in place when stderr is a terminal, otherwise a
 * line every 5% of the job, each with the units done of the total, the
 * current training's step, the elapsed time and the time left at the
 * job's pace so far. It hears the library's training steps as a
 * fcast_progress_fn (job_progress_on_step) and the callers' unit ends. */
#ifndef FC_TOOLS_JOB_PROGRESS_H
#define FC_TOOLS_JOB_PROGRESS_H

#include <stddef.h>

typedef struct {
    const char *command;       /* "cv": each line's prefix */
    const char *unit;          /* "training", "member", "trial": plural with an s */
    size_t total;              /* units in the job; 0: unknown, the budget paces it */
    double budget;             /* seconds after which the job stops (tune's --time-budget); 0: none */
    size_t trainings_per_unit; /* a tune trial's cross-validation trainings; 1 otherwise */
    int unit_is_training;      /* cv: each training is a unit, its end heard as the next one's start */
    int mode;                  /* 0 silent, 1 lines, 2 bar */
    size_t done;               /* units finished */
    size_t trainings;          /* trainings finished in the current unit */
    size_t step, max_steps;    /* the current training's */
    int next_percent;          /* lines: the next multiple of 5 to print at */
    int bar_open;              /* a bar is drawn and its line not ended */
    double windows;            /* training windows of the units done: the job's rate */
    double t0;
} job_progress;

/* Silent when quiet; a bar when stderr is a terminal, else lines. */
void job_progress_init(job_progress *p, const char *command, const char *unit, size_t total, int quiet);
/* A training step (fcast_progress_fn; user is the job_progress). A step
 * not after the previous one starts the next training: of the unit, or
 * the next unit when unit_is_training. */
void job_progress_on_step(void *user, size_t step, size_t max_steps, double train_loss);
/* Ends the line of a drawn bar, before the caller prints a line of its own. */
void job_progress_break(job_progress *p);
/* The current unit is finished (a member trained, a trial scored). */
void job_progress_unit_done(job_progress *p);
/* Training windows of a unit about to be reported done: the lines then
 * show the job's windows per second (units trained side by side count
 * together, so this is the rate of the whole machine, not of one). */
void job_progress_add_windows(job_progress *p, double windows);
/* The job is finished, the last line at 100%: the training running is
 * done when unit_is_training, else the units done are the job's (a time
 * budget may end it before its total). */
void job_progress_finish(job_progress *p);

#endif
