/* The books a trainer keeps in a job of ranks (dist/dist.h): a shard's
 * window counts and data hashes merged with the other ranks', each
 * micro-batch's share of the job's loss, and the numbers of the dropout
 * masks, counted over the ranks as one process counts its micro-batches.
 * Alone (one rank, not sharded) each is the plain one-process answer. */
#include <stdlib.h>

#include "core/error.h"
#include "dist/dist.h"
#include "train/data_hash.h"
#include "train/trainer_internal.h"

/* The whole file's hashes from the shards': each rank hashes its own
 * series into their places in the file's order, the places are merged
 * (each is one rank's: OR-ed, exact), and every rank folds them in order,
 * as one process folds the whole file's. Every rank of the job calls it. */
fc_status trainer_hash_shards(trainer *t) {
    const fc_dataset *ds = t->ds;
    size_t N = fc_dataset_job_series(ds), since = 0;
    fc_data_hashes *h = fc_calloc(N, sizeof *h, "data hashes");
    if (!h) return FC_ERR_MEMORY;
    for (size_t i = 0; i < ds->n_series; i++) {
        h[i * ds->shards + ds->shard] = fc_data_hashes_series(ds, i);
        fc_dataset_release_every(ds, &since, fc_dataset_len(ds, i), FC_RELEASE_POINTS);
    }
    fc_status st = fc_dist_merge(h, N * sizeof *h, 0);
    t->data_hashes = fc_data_hashes_start();
    for (size_t g = 0; g < N && st == FC_OK; g++) t->data_hashes = fc_data_hashes_fold(t->data_hashes, h[g]);
    t->data_hashed = st == FC_OK;
    free(h);
    return st;
}

/* When a shard's job hashes its data: at the start when the run resumes or
 * rank 0 writes periodic checkpoints; else at a stop, if rank 0 then
 * writes one (stop_checkpoint). Only rank 0 knows its checkpoints. */
static fc_status plan_shard_hashes(trainer *t) {
    const fc_train_options *o = t->o;
    int writes[2] = {o->checkpoint_path != NULL,
                     o->checkpoint_path && (o->checkpoint_every || (o->checkpoint_at_validation && o->val_size))};
    FC_TRY(fc_dist_broadcast(writes, sizeof writes));
    t->stop_checkpoint = writes[0];
    return o->resume_path || writes[1] ? trainer_hash_shards(t) : FC_OK;
}

/* A shard's sampler learns every rank's window counts (each series is one
 * rank's: OR-ed, exact). */
fc_status trainer_join_shards(trainer *t) {
    const fc_dataset *ds = t->ds;
    if (ds->shards != (size_t)t->ranks || ds->shard != (size_t)t->rank)
        return fc_error(FC_ERR_INVALID, "%s: shard %zu of %zu trains only as rank %zu of a job of %zu ranks",
                        ds->source, ds->shard, ds->shards, ds->shard, ds->shards);
    size_t N = (size_t)t->ranks;   /* a shard runs at most K x N micro-batches: all the job's windows */
    if (!(t->points = fc_calloc(N + t->o->grad_accum * N, sizeof *t->points, "target points"))) return FC_ERR_MEMORY;
    FC_TRY(fc_dist_merge(t->sampler.counts, fc_dataset_job_series(ds) * sizeof *t->sampler.counts, 0));
    FC_TRY(fc_window_sampler_join(&t->sampler));
    return plan_shard_hashes(t);
}

/* Micro-batch k's share of the step's loss. Of K equal ones, 1/K. A
 * shard's micro-batches hold however many of the job's windows its series
 * drew, and each one's loss is a masked mean over its own observed target
 * points: it weighs its points' share of the job's, times the ranks (the
 * gradient is then a mean over the ranks). The step's loss is then the
 * masked mean over all the job's windows at once: one process's with the
 * job's windows in one batch (--grad-accum 1). */
double trainer_micro_batch_share(const trainer *t, size_t k) {
    if (!t->sharded) return 1.0 / (double)t->o->grad_accum;
    double own = t->points[t->ranks + k];
    return t->job_points > 0 ? own * (double)t->ranks / t->job_points : 0.0;
}

/* A shard's observed target points per micro-batch of its windows w (n),
 * and the job's: every rank's summed (whole numbers: exact). */
fc_status trainer_count_points(trainer *t, const fc_window *w, size_t n) {
    size_t W = t->o->windows_batch_size, N = (size_t)t->ranks;
    double *mine = t->points + N;
    t->job_points = 0.0;
    for (size_t k = 0; k < t->micro_batches; k++) {
        size_t points = 0;
        for (size_t i = k * W; i < n && i < (k + 1) * W; i++) points += fc_window_target_points(&t->sampler, w + i);
        mine[k] = (double)points;
        t->job_points += mine[k];
    }
    return fc_dist_sum_ordered(&t->job_points, 1, t->points, 1);
}

/* Its dropout masks' number: a pure function of the seed, the step and the
 * micro-batch, counted over the ranks of a job as one process counts its
 * micro-batches (rank r's k is its r K + k-th); a shard may run up to
 * K x ranks micro-batches, so its ranks count in steps of that. */
uint64_t trainer_dropout_slice(const trainer *t, size_t k) {
    uint64_t K = t->o->grad_accum, ranks = (uint64_t)t->ranks;
    if (t->sharded) return ((uint64_t)t->step * ranks + (uint64_t)t->rank) * K * ranks + k;
    return (uint64_t)t->step * K * ranks + (uint64_t)t->rank * K + k;
}
