/* A job's gradients averaged where they live (see dist_grads.h). */
#include <string.h>

#include "core/error.h"
#include "dist/dist.h"
#include "dist/dist_grads.h"

static fc_backend *g_joined;   /* the backend in the job's GPU group (one per process) */

static int on_gpu(const fc_backend *be) { return !be->host_visible; }

/* Rank 0's group id, or its failure, sent to every rank. */
static fc_status share_group_id(fc_backend *be, unsigned char id[FC_GROUP_ID_MAX], size_t *len) {
    struct { int ok; unsigned len; unsigned char id[FC_GROUP_ID_MAX]; } msg = {0};
    size_t n = 0;
    fc_status st = FC_OK;
    if (fc_dist_rank() == 0) {
        st = be->group_id ? be->group_id(be, msg.id, sizeof msg.id, &n)
                          : fc_error(FC_ERR_BACKEND, "this CUDA backend was built without NCCL (no nccl.h): "
                                     "its GPUs cannot reduce gradients between ranks");
        msg.ok = st == FC_OK, msg.len = (unsigned)n;
    }
    FC_TRY(fc_dist_broadcast(&msg, sizeof msg));
    if (!msg.ok) return st != FC_OK ? st : fc_error(FC_ERR_BACKEND, "rank 0 could not start the GPUs' group "
                                                    "(see its message)");
    memcpy(id, msg.id, sizeof msg.id);
    *len = msg.len;
    return FC_OK;
}

/* be == g_joined is the same on every rank: the ranks join together and
 * forget together (their backends end at the same point of the run). */
fc_status fc_dist_device_join(fc_backend *be, int group) {
    if (fc_dist_size() < 2 || be == g_joined) return FC_OK;
    int gpu = on_gpu(be);
    if (fc_dist_any(gpu) && fc_dist_any(!gpu))
        return fc_error(FC_ERR_INVALID, "the ranks of this job run on different devices (rank %d on %s): give every "
                        "rank a GPU (one rank per GPU) or --device cpu", fc_dist_rank(), be->name);
    if (!gpu || !group) return FC_OK;
    if (g_joined) return fc_error(FC_ERR_INVALID, "this process has joined its job's GPU group with another backend");
    unsigned char id[FC_GROUP_ID_MAX];
    size_t len = 0;
    FC_TRY(share_group_id(be, id, &len));
    if (!be->group_join) return fc_error(FC_ERR_BACKEND, "the %s backend cannot join a group of GPUs", be->name);
    FC_TRY(be->group_join(be, id, len, fc_dist_rank(), fc_dist_size()));
    g_joined = be;
    fc_backend_set_destroy_hook(fc_dist_device_forget);   /* the backend layer cannot call us */
    return FC_OK;
}

void fc_dist_device_forget(const fc_backend *be) {
    if (be == g_joined) g_joined = NULL;
}

fc_status fc_dist_grads_init(fc_dist_grads *g, fc_backend *be, size_t n, int fixed_order) {
    *g = (fc_dist_grads){be, n, fixed_order, NULL};
    FC_TRY(fc_dist_device_join(be, !fixed_order));
    if (fixed_order && on_gpu(be) && fc_dist_size() > 1 && !(g->host = be->host_alloc(be, (n ? n : 1) * sizeof(float))))
        return FC_ERR_MEMORY;
    return FC_OK;
}

fc_status fc_dist_grads_mean(fc_dist_grads *g, float *grads) {
    fc_backend *be = g->be;
    if (fc_dist_size() < 2) return FC_OK;
    if (!on_gpu(be)) return fc_dist_mean_floats(grads, g->n, g->fixed_order);
    if (!g->fixed_order) return be->group_mean(be, grads, g->n);
    be->to_host(be, g->host, grads, g->n * sizeof(float));   /* waits for the backward */
    FC_TRY(be->status(be));
    FC_TRY(fc_dist_mean_floats(g->host, g->n, 1));
    be->to_device(be, grads, g->host, g->n * sizeof(float));
    return FC_OK;
}

int fc_dist_grads_on_host(const fc_dist_grads *g) { return g->host != NULL; }

void fc_dist_grads_free(fc_dist_grads *g) {
    if (g->host) g->be->host_release(g->be, g->host);
    memset(g, 0, sizeof *g);
}
