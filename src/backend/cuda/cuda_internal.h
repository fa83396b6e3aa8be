/* Internal to the CUDA backend (libfcast-cuda.so): its state and the entries
 * each file fills in the table of backend.h. Every kernel, copy and matrix
 * product of one backend runs on impl->stream, in issue order, so the
 * table's calls need no synchronisation between them; only calls that hand
 * a value to the host (to_host, reductions, sync) wait. */
#ifndef FC_BACKEND_CUDA_INTERNAL_H
#define FC_BACKEND_CUDA_INTERNAL_H

#include <cuda_runtime.h>

extern "C" {
#include "backend/arena_books.h"
#include "backend/backend.h"
#include "backend/backend_ops.h"
#include "backend/launch_geometry.h"
#include "core/error.h"
}

/* Oldest GPU fcast runs on: Ampere (sm_80), for bf16 tensor cores and
 * cuBLASLt's bf16 epilogues. The library is built for sm_80, 86, 89, 90
 * plus PTX, which newer GPUs compile at load. */
#define FC_CUDA_MIN_MAJOR 8

/* The memory plan's allowance for what the GPU holds outside fcast's
 * buffers: the CUDA context (its module images and per-SM local memory;
 * a few hundred MB on Ampere and Hopper with lazy loading) and cuBLASLt's
 * handle. An estimate until measured on a GPU: tests/gpu_parity.sh checks
 * NVML's reading against the plan that counts it. */
#define FC_CUDA_CONTEXT_ALLOWANCE ((size_t)512 << 20)

/* Buffers handed out by the arena start on this boundary: what cudaMalloc
 * guarantees, and what cuBLASLt's vectorised loads like best. */
#define FC_CUDA_ALIGN 256   /* memory_plan.h FC_PLAN_ARENA_ALIGN counts padding up to this */

typedef struct fc_cuda_dense fc_cuda_dense;   /* cuda_dense.cu: cuBLASLt handle, algorithm cache */

typedef struct {
    int device;
    int cc_major, cc_minor, sm_count;
    char name[256];
    cudaStream_t stream;                /* every kernel, copy and product runs here */
    void *ws[FC_WS_SLOTS];              /* dense-layer workspace, grown to the largest request */
    size_t ws_bytes[FC_WS_SLOTS];
    char *arena;                        /* the run's arena, or NULL (cuda_backend.c) */
    fc_arena_books books;
    double *d_partials;                 /* reduction partials on the device: 2 * FC_REDUCE_MAX_BLOCKS */
    double *h_partials;                 /* their pinned host copy */
    float *d_coef;                      /* masked_loss's gradient coefficient, on the device */
    fc_status failed;                   /* first error of an entry that returns no status (sticky) */
    int capturing;                      /* inside capture_begin ... capture_end (cuda_graph.cu) */
    fc_cuda_dense *dense;
    void *nccl;                         /* the job's NCCL communicator (cuda_nccl.cu), or NULL */
} fc_cuda_impl;

static inline fc_cuda_impl *fc_cuda_impl_of(fc_backend *be) { return (fc_cuda_impl *)be->impl; }
static inline cudaStream_t fc_cuda_stream(fc_backend *be) { return fc_cuda_impl_of(be)->stream; }

/* Grid-stride loops: `for (size_t i = fc_first_index(); i < n; i += fc_grid_stride())`
 * covers any n with the grid of fc_cuda_grid(n) (launch_geometry.h). */
static __device__ inline size_t fc_first_index() { return (size_t)blockIdx.x * blockDim.x + threadIdx.x; }
static __device__ inline size_t fc_grid_stride() { return (size_t)gridDim.x * blockDim.x; }
static inline fc_launch fc_cuda_grid(size_t n) { return fc_launch_1d(n, FC_LAUNCH_BLOCK, FC_LAUNCH_MAX_GRID); }

/* A CUDA runtime call's result: FC_OK, or the error reported through the
 * caller's fc_error naming the call, the file and line and CUDA's words
 * (FC_ERR_MEMORY for cudaErrorMemoryAllocation, FC_ERR_BACKEND otherwise). */
fc_status fc_cuda_check(cudaError_t err, const char *call, const char *file, int line);
#define FC_CUDA(call) fc_cuda_check((call), #call, __FILE__, __LINE__)
/* After a <<<>>> launch: a bad configuration shows at once, a fault later. */
#define FC_CUDA_LAUNCHED(kernel) fc_cuda_check(cudaGetLastError(), "launch of " kernel, __FILE__, __LINE__)

/* Entries that return no status record their first failure here; sync and
 * the entries that return a status report it from then on. */
void fc_cuda_note_failure(fc_backend *be, fc_status st);
fc_status fc_cuda_failure(fc_backend *be);

/* The quant files' device buffers (cuda_quant.cu): cudaMalloc with a
 * message naming the buffer and the GPU, cudaFree keeping a failure for
 * the next entry; and NaN into n doubles on the backend's stream. */
fc_status fc_cuda_quant_alloc(fc_backend *be, void **p, size_t bytes, const char *what);
void fc_cuda_quant_free(fc_backend *be, void *p);
fc_status fc_cuda_fill_nan(fc_backend *be, double *y, size_t n);

/* The entries the GPU fills with its own fc_cuda_<name> (FN in the cuda
 * column of backend_ops.def), declared from the list; they live in
 * cuda_dense.cu (cuBLASLt: gemm, the dense layer, round_to),
 * cuda_elementwise.cu (kernels/ bodies), cuda_attention.cu (GELU and
 * attention), cuda_batch_norm.cu, cuda_revin_patch.cu, cuda_reduce.cu
 * (fixed-order reductions), cuda_adam.cu, cuda_windows.cu (training data on
 * the device), cuda_graph.cu (graphs) and cuda_quant.cu. */
#define FC_BACKEND_OP(name, cpu, cuda, ret, params) FC_OP_IF_FN_##cuda(ret fc_cuda_##name params;)
#include "backend/backend_ops.def"
#undef FC_BACKEND_OP

/* ---- cuda_nccl.cu (the GPUs of a job) ---- */
void fc_cuda_group_fill_table(fc_backend *be);
void fc_cuda_group_leave(fc_backend *be);

/* ---- cuda_dense.cu (cuBLASLt) ---- */
fc_status fc_cuda_dense_init(fc_backend *be);
void fc_cuda_dense_free(fc_backend *be);

/* ---- cuda_elementwise.cu (kernels/ bodies) ---- */
/* cuda_attention.cu: GELU and attention (kernels/gelu.h, kernels/attention.h) */
/* cuda_batch_norm.cu (kernels/batch_norm.h) */
/* cuda_revin_patch.cu (kernels/revin_patch.h) */

/* ---- cuda_reduce.cu (fixed-order reductions) and cuda_adam.cu ---- */
/* Queues the fixed-order sum of squares of x (n) as partials in
 * impl->d_partials, *blocks of them, added in order by whoever reads them. */
fc_status fc_cuda_sum_squares_partials(fc_backend *be, const float *x, size_t n, size_t *blocks);

/* ---- cuda_windows.cu (training data on the device, kernels/window_load.h) ---- */

#endif
