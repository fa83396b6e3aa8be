/* Training checkpoints: everything a run needs to continue exactly where it
 * stopped, so that a resumed run writes the same model file, byte for byte,
 * as one that was never interrupted (same seed and threads).
 *
 * A checkpoint is a safetensors file (written atomically) holding:
 *   tensors   the model's tensors under their model-file names, and
 *             "optimizer.exp_avg", "optimizer.exp_avg_sq" (Adam moments,
 *             n_trainable each), "trainer.best_params" (with validation);
 *   metadata  fcast_checkpoint_version, the model configuration, scaler and
 *             loss, the training options that decide the result (under
 *             their flag names), the data's identity (file size, mtime and
 *             a hash of the series index), and the loop's state: step, Adam
 *             step count, loss-scaler state, sampler epoch and cursor, best
 *             validation loss, step and early-stopping counter. Floating
 *             point state is written in C99 hex (%a), so it reads back to
 *             the same bits.
 * The random streams are Philox counters keyed by (seed, step): the step is
 * their whole position. */
#ifndef FC_TRAIN_CHECKPOINT_H
#define FC_TRAIN_CHECKPOINT_H

#include "train/data_hash.h"
#include "train/forecaster.h"
#include "train/optimizer.h"

/* 2: the data's hashes are folds of per-series hashes (train/data_hash.h).
 * Version 1 files are still read where every rank holds the whole data. */
#define FC_CHECKPOINT_VERSION "2"

/* The training loop's own state, beyond the model and the optimizer. */
typedef struct {
    size_t step;                /* optimizer steps completed */
    size_t sampler_epoch, sampler_cursor;
    double best_val_loss;       /* NaN: no validation check improved yet */
    size_t best_step;
    long bad_checks;            /* validation checks since the last improvement */
    long skips_in_a_row;        /* fp16 steps skipped in a row */
    double last_train_loss;
} fc_loop_state;

/* What a checkpoint saves and restores, by reference. */
typedef struct {
    fc_forecaster *f;
    const fc_dataset *ds;
    const fc_train_options *o;
    fc_optimizer *opt;
    float *best;                /* (n_trainable) best weights, NULL without validation */
    fc_loop_state *loop;
    fc_data_hashes data;        /* the whole file's (train/data_hash.h), computed once per run */
} fc_checkpoint_ref;

/* The windows per step a checkpoint's run used (for --windows-batch-size
 * auto on resume, which must not choose again). */
fc_status fc_checkpoint_windows_batch(const char *path, size_t *windows);

fc_status fc_checkpoint_write(const fc_checkpoint_ref *c, const char *path, size_t *bytes);

/* The step a checkpoint was written after (for what is logged before the
 * run resumes from it); errors as fc_checkpoint_read's. */
fc_status fc_checkpoint_step(const char *path, size_t *step);

/* Reads a checkpoint into c after checking that it was made by this run's
 * model, options and data; every mismatch names the option or the data
 * property and what to do. */
fc_status fc_checkpoint_read(const fc_checkpoint_ref *c, const char *path);

#endif
