/* The GPUs of a data-parallel job (backend.h, group_*): NCCL's all-reduce
 * on the backend's stream, as PyTorch DDP and llm.c reduce gradients.
 * NCCL is loaded with dlopen at the first group call, not linked: the
 * library then loads (and a single-GPU run works) on a machine without
 * NCCL, and a job that needs it says so in one line. Only the five NCCL
 * calls below are used; their types come from nccl.h of the toolkit this
 * library is built with. GPU-only: checked by `make test-gpu` on a machine
 * with two GPUs (tests/gpu_mpi.sh), compiled in CI. Built where the
 * toolkit has no nccl.h, the entries stay NULL and a job on GPUs is
 * refused with the reason (dist/dist_grads.c). */
#include "backend/cuda/cuda_internal.h"

#if __has_include(<nccl.h>)
#include <dlfcn.h>
#include <nccl.h>
#include <stdio.h>
#include <string.h>

static_assert(sizeof(ncclUniqueId) <= FC_GROUP_ID_MAX, "an NCCL id fits the group id of backend.h");

typedef struct {
    ncclResult_t (*get_version)(int *);
    ncclResult_t (*get_unique_id)(ncclUniqueId *);
    ncclResult_t (*comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
    ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t);
    ncclResult_t (*comm_destroy)(ncclComm_t);
    const char *(*error_string)(ncclResult_t);
} nccl_calls;

enum { NCCL_AVG_SINCE = 21000 };   /* ncclAvg came with NCCL 2.10 */

static nccl_calls g_nccl;
static int g_loaded;   /* set once, by the training's thread: a process joins one group */

static fc_status load_nccl(void) {
    if (g_loaded) return FC_OK;
    void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return fc_error(FC_ERR_BACKEND, "NCCL, which reduces gradients between GPUs, cannot be loaded (%s): "
                              "install it (Debian/Ubuntu with NVIDIA's repository: libnccl2)", dlerror());
    nccl_calls n;
    n.get_version = (ncclResult_t(*)(int *))dlsym(lib, "ncclGetVersion");
    n.get_unique_id = (ncclResult_t(*)(ncclUniqueId *))dlsym(lib, "ncclGetUniqueId");
    n.comm_init_rank = (ncclResult_t(*)(ncclComm_t *, int, ncclUniqueId, int))dlsym(lib, "ncclCommInitRank");
    n.all_reduce = (ncclResult_t(*)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                    cudaStream_t))dlsym(lib, "ncclAllReduce");
    n.comm_destroy = (ncclResult_t(*)(ncclComm_t))dlsym(lib, "ncclCommDestroy");
    n.error_string = (const char *(*)(ncclResult_t))dlsym(lib, "ncclGetErrorString");
    if (!n.get_version || !n.get_unique_id || !n.comm_init_rank || !n.all_reduce || !n.comm_destroy ||
        !n.error_string) {
        dlclose(lib);
        return fc_error(FC_ERR_BACKEND, "libnccl.so.2 lacks a call fcast uses (ncclGetVersion, ncclGetUniqueId, "
                        "ncclCommInitRank, ncclAllReduce, ncclCommDestroy, ncclGetErrorString)");
    }
    int version = 0;
    if (n.get_version(&version) != ncclSuccess || version < NCCL_AVG_SINCE) {
        dlclose(lib);
        return fc_error(FC_ERR_BACKEND, "NCCL %d is older than 2.10, the first with the averaging all-reduce", version);
    }
    g_nccl = n;
    g_loaded = 1;
    return FC_OK;
}

static fc_status nccl_failed(const char *call, ncclResult_t rc) {
    return fc_error(FC_ERR_BACKEND, "NCCL: %s failed: %s", call, g_nccl.error_string(rc));
}

static fc_status cuda_group_id(fc_backend *be, void *id, size_t cap, size_t *len) {
    (void)be;
    FC_TRY(load_nccl());
    if (cap < sizeof(ncclUniqueId)) return fc_error(FC_ERR_INVALID, "group id: %zu bytes are too few", cap);
    ncclUniqueId u;
    ncclResult_t rc = g_nccl.get_unique_id(&u);
    if (rc != ncclSuccess) return nccl_failed("ncclGetUniqueId", rc);
    memcpy(id, &u, sizeof u);
    *len = sizeof u;
    return FC_OK;
}

static fc_status cuda_group_join(fc_backend *be, const void *id, size_t len, int rank, int ranks) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    FC_TRY(load_nccl());
    if (impl->nccl) return fc_error(FC_ERR_INVALID, "this GPU has joined a group already");
    if (len != sizeof(ncclUniqueId)) return fc_error(FC_ERR_INVALID, "group id of %zu bytes is not NCCL's", len);
    ncclUniqueId u;
    memcpy(&u, id, sizeof u);
    FC_TRY(FC_CUDA(cudaSetDevice(impl->device)));   /* the communicator is this device's */
    ncclComm_t comm;
    ncclResult_t rc = g_nccl.comm_init_rank(&comm, ranks, u, rank);
    if (rc != ncclSuccess) return nccl_failed("ncclCommInitRank", rc);
    impl->nccl = comm;
    return FC_OK;
}

static fc_status cuda_group_mean(fc_backend *be, float *x, size_t n) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    if (!impl->nccl) return fc_error(FC_ERR_INVALID, "group_mean before group_join");
    ncclResult_t rc = g_nccl.all_reduce(x, x, n, ncclFloat32, ncclAvg, (ncclComm_t)impl->nccl, impl->stream);
    return rc == ncclSuccess ? FC_OK : nccl_failed("ncclAllReduce", rc);
}

void fc_cuda_group_leave(fc_backend *be) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    if (impl->nccl && g_loaded) g_nccl.comm_destroy((ncclComm_t)impl->nccl);
    impl->nccl = NULL;
}

void fc_cuda_group_fill_table(fc_backend *be) {
    be->group_id = cuda_group_id;
    be->group_join = cuda_group_join;
    be->group_mean = cuda_group_mean;
}

#else   /* no nccl.h at build time */

void fc_cuda_group_leave(fc_backend *be) { (void)be; }
void fc_cuda_group_fill_table(fc_backend *be) { (void)be; }

#endif
