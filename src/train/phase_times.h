/* Where a training run's time goes: seconds per phase of a step, summed
 * over the run (and per step with --profile). On the CPU backend every
 * call is synchronous, so wall time between calls is the phase's time; a
 * device backend must synchronise (or use events) before reading them. */
#ifndef FC_TRAIN_PHASE_TIMES_H
#define FC_TRAIN_PHASE_TIMES_H

typedef enum {
    FC_PHASE_SAMPLE = 0,       /* drawing the step's windows */
    FC_PHASE_GATHER,           /* gathering the windows' points into the batch */
    FC_PHASE_SCALE,            /* each window's scaler statistics and transform (and the host path's exogenous inputs) */
    FC_PHASE_FORWARD,
    FC_PHASE_LOSS,
    FC_PHASE_BACKWARD,
    FC_PHASE_OPTIMIZER,        /* unscale, clip, Adam, low-precision refresh */
    FC_PHASE_VALIDATION,
    FC_PHASE_CHECKPOINT_IO,    /* writing checkpoints */
    FC_PHASE_COUNT
} fc_phase;

typedef struct {
    double seconds[FC_PHASE_COUNT];
} fc_phase_times;

/* The phase's name in the run log and on the terminal ("gather", ...). */
static inline const char *fc_phase_name(fc_phase p) {
    static const char *const names[FC_PHASE_COUNT] = {"sample", "gather", "scale", "forward", "loss",
                                                      "backward", "optimizer", "validation", "checkpoint_io"};
    return (unsigned)p < FC_PHASE_COUNT ? names[p] : "?";
}

#endif
