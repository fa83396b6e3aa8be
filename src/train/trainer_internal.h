/* The trainer's state and what its files share (not for callers: they
 * use train/forecaster.h). The concerns of a run, a file each:
 *   trainer.c              the loop: a step's windows, micro-batches, the
 *                          optimizer step, progress and the run's figures;
 *   train_stop_policy.c    when a run stops or writes a checkpoint: a loss
 *                          that diverged, early stopping on the validation
 *                          loss, the checkpoint cadence, a stop by a signal;
 *   train_dist.c           the books of a job of ranks (dist/dist.h): a
 *                          shard's place, its data's hashes, its windows'
 *                          shares of the loss, the dropout masks' numbers;
 *   train_options_check.c  the options and data a run refuses up front. */
#ifndef FC_TRAIN_TRAINER_INTERNAL_H
#define FC_TRAIN_TRAINER_INTERNAL_H

#include <stdint.h>

#include "dist/dist_grads.h"
#include "train/batch.h"
#include "train/checkpoint.h"
#include "train/forecaster.h"
#include "train/graph_pass.h"
#include "train/optimizer.h"
#include "train/progress.h"

typedef struct {
    fc_forecaster *f;
    const fc_dataset *ds;
    const fc_train_options *o;
    fc_window_spec spec;
    fc_window_sampler sampler;
    fc_batch batch;
    /* grad_accum * windows_batch_size windows per optimizer step: this
     * step's, and the next step's, drawn while the device runs this one */
    fc_window *windows[2];
    size_t n_windows[2];       /* of them, the sampler's: the job's draws, or a shard's own */
    int current;               /* windows[current] are this step's */
    int have_next;             /* windows[!current] hold the next step's */
    size_t drawn_epoch, drawn_cursor;  /* the sampler's place after this step's draws (checkpoints) */
    fc_optimizer opt;
    float *best;
    fc_runner validator;
    fc_loop_state loop;        /* what a checkpoint saves besides model and optimizer */
    fc_phase_times step_times; /* this step's phases (summed into the summary's) */
    double mark;               /* fc_now() at the end of the last timed phase */
    fc_data_hashes data_hashes;   /* the data's, for checkpoints (train/data_hash.h): at the first need */
    int data_hashed;
    int stop_checkpoint;       /* rank 0 writes a checkpoint on a stop (it alone knows: told to a shard's job) */
    int checkpoint_failing;    /* the last periodic checkpoint could not be written (said once) */
    fc_graph_slot step_graph;
    size_t first_step;         /* this process's first step (a resumed run starts past 0) */
    float grad_scale;          /* this step's loss-gradient scale: the loss scale / grad_accum */
    size_t step;               /* the step being run (dropout's seeds) */
    int rank, ranks;           /* its place in the job it trains with (dist/dist.h): 0 of 1 alone,
                                  and when o->alone (a cross-validation's trainings are dealt to ranks) */
    fc_dist_grads grads;       /* the ranks' mean gradient, where it lives (dist/dist_grads.h) */
    int sharded;               /* ds is this rank's shard of the file (data/dataset.h): it trains on
                                  the job's windows of its own series, as many as were drawn there */
    size_t staged, micro_batches;   /* this step's windows of this rank, and its micro-batches */
    double *points;            /* a shard's: (ranks) the slots of the job's sum, then (K x ranks) its
                                  micro-batches' observed target points this step (micro_batch_share) */
    double job_points;         /* the job's this step */
} trainer;

/* train_options_check.c: options a run refuses (before anything is sized),
 * and the windows they describe for a model of configuration c. */
fc_status trainer_check_options(const fc_train_options *o, const fc_model_config *c);
fc_window_spec trainer_window_spec(const fc_model_config *c, const fc_train_options *o);

/* train_stop_policy.c */
fc_checkpoint_ref trainer_checkpoint_ref(trainer *t);
fc_status trainer_check_step(const trainer *t, size_t steps, int skipped);
fc_status trainer_validation_check(trainer *t, fc_progress *p, int *stop);
int trainer_checkpoint_due(const fc_train_options *o, size_t step, int validated);
fc_status trainer_periodic_checkpoint(trainer *t, fc_train_summary *s);
int trainer_stop_requested(const trainer *t);
fc_status trainer_stop_with_checkpoint(trainer *t, fc_train_summary *s);

/* train_dist.c */
fc_status trainer_join_shards(trainer *t);
fc_status trainer_hash_shards(trainer *t);
double trainer_micro_batch_share(const trainer *t, size_t k);
fc_status trainer_count_points(trainer *t, const fc_window *w, size_t n);
uint64_t trainer_dropout_slice(const trainer *t, size_t k);

#endif
