/* Trainings side by side (issue 36): an ensemble's members, a
 * cross-validation's windows, a search's trials, each an independent
 * training, run `workers` at a time, each worker a host thread with a
 * backend of its own (fc_backend_create_like): on the CPU the machine's
 * cores are split between the workers, on a GPU the workers' streams run
 * their steps at the same time (a small model's step fills a fraction of
 * the device, so one member's kernels leave it mostly idle).
 *
 * Why not one batched step over the members: a training's step is the same
 * kernels on the same shapes whichever thread or stream runs it, so every
 * training's results are the bits it gives alone on that device with the
 * worker's share of the threads: on the CPU, the bits of `fcast train
 * --threads T`, T the worker's threads (1 by default). Where oneDNN does
 * not split a product's reduction over threads, as for N-HiTS and N-BEATS
 * at their widths, that is also any --threads (tests/cli_ensemble.sh); tall
 * narrow weight gradients (LSTM's input projections, widths of 64 over
 * thousands of windows) differ in their last bits with the thread count,
 * side by side or not.
 * A batched product over members sums in another order on a GPU, and ties
 * the members of a group to one architecture and input size; here any
 * trainings share a pool. On the CPU, batching the products bought
 * nothing either: bench/ measured oneDNN's batched matmul at 0.92x a loop
 * of the same products (docs/performance.md).
 *
 * Jobs are taken in index order as workers free up. start and done run
 * under the pool's lock, one at a time, in any job order (done sees
 * job's status); train runs in the worker's thread, alone on its backend.
 * The first failing job stops the pool from starting others; jobs under
 * way finish. A job that runs out of memory (FC_ERR_MEMORY) beside the
 * others is not a failure: it runs again once they are done, alone, in the
 * calling thread on the caller's backend (start is not called again), so
 * side by side never fails a run that one at a time would finish. With
 * one worker everything runs in the calling thread on the caller's
 * backend: exactly the sequential run. */
#ifndef FC_TRAIN_MEMBER_POOL_H
#define FC_TRAIN_MEMBER_POOL_H

#include <stddef.h>

#include "backend/backend.h"

/* Workers of one pool at most (a GPU's streams, a big server's cores). */
#define FC_POOL_MAX_WORKERS 64

typedef struct {
    size_t jobs;
    size_t workers;           /* 1 .. FC_POOL_MAX_WORKERS, at most jobs (fc_member_pool_workers) */
    fc_backend *be;           /* the caller's: the one worker's, and the kind of the others */
    int threads;              /* CPU threads of all workers together (be->threads when 0) */
    fc_status (*start)(void *ctx, size_t job);                     /* may be NULL */
    fc_status (*train)(void *ctx, size_t job, fc_backend *be);
    fc_status (*done)(void *ctx, size_t job, fc_status st);        /* may be NULL */
    void *ctx;
} fc_member_pool;

/* Workers for `jobs` trainings on be, given at most `asked` (0: as many as
 * help) and memory for `fits` of their plans at once: on the CPU one per
 * thread (a thread each: the products of a member's step scale almost
 * linearly, so nothing is lost, and on many cores a lot is gained), on a
 * GPU FC_POOL_GPU_WORKERS; never more than jobs or fits, never fewer
 * than 1. */
#define FC_POOL_GPU_WORKERS 8
size_t fc_member_pool_workers(const fc_backend *be, size_t jobs, size_t asked, size_t fits);

/* How many of n trainings fit in `limit` bytes at once: the most k such
 * that `shared` (what they share: the data, held parameters) plus the k
 * largest of own[0 .. n) (each training's own bytes) fits; at least 1,
 * since one at a time is the run's own checks' business. */
size_t fc_member_pool_fits(const size_t *own, size_t n, size_t shared, size_t limit);

/* CPU threads of worker w of n sharing `threads`: as even as can be. */
int fc_member_pool_worker_threads(int threads, size_t n, size_t w);

/* One line on stderr: "training 8 members 2 at a time, 1 thread each"
 * (or "... on cuda:0, a stream each"; "one at a time" with one worker;
 * jobs 0: a count not known, "training trials 2 at a time"). */
void fc_member_pool_say(const fc_backend *be, size_t jobs, size_t workers, int threads, const char *unit);

/* Runs every job; the first failure's status and message (a worker's,
 * carried to the calling thread), else FC_OK. */
fc_status fc_member_pool_run(const fc_member_pool *p);

#endif
