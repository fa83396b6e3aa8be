/* A job's gradients averaged where they live (docs/distributed.md): on
 * the CPU through MPI (dist.h); on GPUs by NCCL, in a group the ranks'
 * backends join once (rank 0 makes the group's id and MPI broadcasts it,
 * the bootstrap llm.c uses), so the reduction stays on the device and
 * inside the step's graph. With --deterministic-reduce on GPUs the
 * gradients are copied to the host and summed there in rank order
 * instead (NCCL's order follows its rings, not the ranks): slower, and the
 * step then runs as plain calls. */
#ifndef FC_DIST_DIST_GRADS_H
#define FC_DIST_DIST_GRADS_H

#include "backend/backend.h"

typedef struct {
    fc_backend *be;
    size_t n;
    int fixed_order;   /* --deterministic-reduce */
    float *host;       /* a GPU's gradients on the host, for the rank-order sum */
} fc_dist_grads;

/* Checks that every rank of the job runs on one kind of device (auto fell
 * back to the CPU on one: refused on every rank, or sharded outputs would
 * mix the devices' bits), then, for a GPU when `group` (NCCL's reduction
 * is used: not for --deterministic-reduce, which sums on the host), joins
 * be to the job's group of GPUs, once per backend. Every rank calls it at
 * the same point. Call it before the run's arena takes the GPU's memory:
 * NCCL allocates its own. Alone: nothing. */
fc_status fc_dist_device_join(fc_backend *be, int group);
/* be is being destroyed: its group ends with it (fc_backend_destroy's
 * hook, set when a backend joins). */
void fc_dist_device_forget(const fc_backend *be);

/* Ready to average n gradients on be (joining its group if not yet). */
fc_status fc_dist_grads_init(fc_dist_grads *g, fc_backend *be, size_t n, int fixed_order);
/* grads (n, on the backend) replaced by their mean over the ranks (alone:
 * unchanged). */
fc_status fc_dist_grads_mean(fc_dist_grads *g, float *grads);
/* 1 when the mean runs host code between the step's kernels: a GPU's
 * rank-order sum, which a captured graph would not replay. */
int fc_dist_grads_on_host(const fc_dist_grads *g);
void fc_dist_grads_free(fc_dist_grads *g);

#endif
