/* A job's gradient mean where the gradients live (dist/dist_grads.h), on
 * the CPU backend and on a stand-in GPU: the CPU backend's table with
 * host_visible 0 and group entries that record their calls and average
 * over MPI, as NCCL's would over the GPUs. What runs on a real GPU (NCCL
 * itself) is `make test-gpu`'s; what is checked here is fcast's side:
 *  - alone: nothing is reduced and no group is joined;
 *  - in a job (cli_mpi runs this program under `mpirun -np 2`), rank r's
 *    gradients (r + 1) * (1, 2, 3, ...) average to 1.5 * (1, 2, 3, ...)
 *    exactly, on the CPU (MPI's all-reduce and the rank-order sum) and on
 *    the stand-in (its group_mean, and the host copy of the rank-order
 *    sum, which does not call group_mean and runs outside a graph);
 *  - the stand-in joins once, every rank with rank 0's id, as `rank` of
 *    `ranks`; not for the rank-order sum, which needs no group (nor
 *    NCCL); a new backend after the joined one is destroyed joins anew;
 *  - ranks on different kinds of device are refused on every rank. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "core/error.h"
#include "dist/dist.h"
#include "dist/dist_grads.h"

enum { N = 1000 };

static struct {
    int ids, joins, means, rank, ranks;
    unsigned char id[FC_GROUP_ID_MAX];
    size_t len;
} G;

static fc_status standin_group_id(fc_backend *be, void *id, size_t cap, size_t *len) {
    (void)be;
    G.ids++;
    snprintf(id, cap, "stand-in group made by rank %d", fc_dist_rank());
    *len = 40;
    return FC_OK;
}

static fc_status standin_group_join(fc_backend *be, const void *id, size_t len, int rank, int ranks) {
    (void)be;
    G.joins++;
    memcpy(G.id, id, len);
    G.len = len, G.rank = rank, G.ranks = ranks;
    return FC_OK;
}

static fc_status standin_group_mean(fc_backend *be, float *x, size_t n) {
    (void)be;
    G.means++;
    return fc_dist_mean_floats(x, n, 0);   /* the stand-in's memory is the host's */
}

static fc_backend *standin_gpu(void) {
    fc_backend *cpu = NULL, *be = malloc(sizeof *be);
    CHECK(be && fc_backend_cpu_create(1, &cpu) == FC_OK);
    *be = *cpu;
    free(cpu);   /* its table is copied; impl and threads now belong to the copy */
    be->name = "stand-in gpu";
    be->host_visible = 0;
    be->group_id = standin_group_id, be->group_join = standin_group_join, be->group_mean = standin_group_mean;
    return be;
}

static void fill(float *g) {
    for (size_t i = 0; i < N; i++) g[i] = (float)((fc_dist_rank() + 1) * (int)(i + 1));
}

static int is_mean(const float *g) {
    float mean_factor = fc_dist_size() == 1 ? 1.0f : 0.5f * (float)(fc_dist_size() + 1);
    for (size_t i = 0; i < N; i++)
        if (g[i] != mean_factor * (float)(i + 1)) return 0;
    return 1;
}

static void mean_on(fc_backend *be, int fixed_order, int on_host_expected) {
    float *g = be->alloc(be, N * sizeof *g);
    fc_dist_grads d;
    CHECK(fc_dist_grads_init(&d, be, N, fixed_order) == FC_OK);
    CHECK(fc_dist_grads_on_host(&d) == on_host_expected);
    fill(g);
    CHECK(fc_dist_grads_mean(&d, g) == FC_OK);
    CHECK_MSG(is_mean(g), "%s, fixed order %d: not the mean of the ranks' gradients", be->name, fixed_order);
    fc_dist_grads_free(&d);
    be->release(be, g);
}

static void job(void) {
    int ranks = fc_dist_size(), job = ranks > 1;
    fc_backend *cpu = NULL;
    CHECK(fc_backend_cpu_create(1, &cpu) == FC_OK);
    mean_on(cpu, 0, 0);
    mean_on(cpu, 1, 0);
    fc_backend *gpu = standin_gpu();
    mean_on(gpu, 1, job);
    CHECK_MSG(G.means == 0 && G.joins == 0 && G.ids == 0, "the rank-order sum used the group");
    mean_on(gpu, 0, 0);
    CHECK(G.means == job);   /* alone: nothing to average */
    mean_on(gpu, 0, 0);
    CHECK_MSG(G.joins == job && G.ids == (job && fc_dist_rank() == 0), "joins %d, ids %d", G.joins, G.ids);
    if (job) {
        CHECK(G.rank == fc_dist_rank() && G.ranks == ranks && G.len == 40);
        CHECK_MSG(!strcmp((char *)G.id, "stand-in group made by rank 0"), "rank %d joined '%s'", fc_dist_rank(),
                  (char *)G.id);
        /* rank 0 on another stand-in GPU, the others on the CPU: refused everywhere */
        fc_backend *other = fc_dist_rank() == 0 ? standin_gpu() : NULL;
        fc_status st = fc_dist_device_join(other ? other : cpu, 1);
        CHECK_MSG(st == FC_ERR_INVALID && strstr(fc_last_error(), "different devices"), "mixed devices: %s",
                  fc_last_error());
        if (other) fc_backend_destroy(&other);
    }
    fc_backend_destroy(&gpu);
    gpu = standin_gpu();   /* the joined backend is gone: a new one joins anew */
    mean_on(gpu, 0, 0);
    CHECK_MSG(G.joins == 2 * job, "joins %d after a new backend", G.joins);
    fc_backend_destroy(&gpu);
    fc_backend_destroy(&cpu);
}

int main(void) {
    CHECK(fc_dist_start() == FC_OK);
    job();
    if (fc_dist_size() > 1) printf("rank %d of %d: ", fc_dist_rank(), fc_dist_size());
    return CHECK_DONE();
}
