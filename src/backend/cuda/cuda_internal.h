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

/* ---- cuda_nccl.cu (the GPUs of a job) ---- */
void fc_cuda_group_fill_table(fc_backend *be);
void fc_cuda_group_leave(fc_backend *be);

/* ---- cuda_graph.cu ---- */
void fc_cuda_graph_fill_table(fc_backend *be);

/* ---- cuda_dense.cu (cuBLASLt) ---- */
fc_status fc_cuda_dense_init(fc_backend *be);
void fc_cuda_dense_free(fc_backend *be);
void fc_cuda_round_to(fc_backend *be, void *dst, const float *src, size_t n, fc_precision prec);
fc_status fc_cuda_linear_workspace(fc_backend *be, const fc_linear_call *shape, size_t ws[FC_WS_SLOTS]);
fc_status fc_cuda_linear_forward(fc_backend *be, const fc_linear_call *c);
fc_status fc_cuda_linear_backward(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low, float *dx,
                                  float *dw, float *db);
fc_status fc_cuda_gemm(fc_backend *be, int trans_a, int trans_b, size_t M, size_t N, size_t K, float alpha,
                       const float *A, size_t lda, const float *Bm, size_t ldb, float beta, float *C, size_t ldc);

/* ---- cuda_elementwise.cu (kernels/ bodies) ---- */
void fc_cuda_fill(fc_backend *be, float *x, float value, size_t n);
void fc_cuda_scale(fc_backend *be, float *x, float s, size_t n);
void fc_cuda_flip_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t L);
void fc_cuda_axpby_rows(fc_backend *be, float *y, size_t ldy, float alpha, const float *x, size_t ldx,
                        float beta, size_t B, size_t C);
void fc_cuda_mul_rows(fc_backend *be, float *y, size_t ldy, const float *m, size_t ldm, size_t B, size_t C);
void fc_cuda_broadcast_col(fc_backend *be, float *y, const float *x, size_t ldx, size_t col, size_t B, size_t C);
void fc_cuda_sum_rows_into_col(fc_backend *be, float *x, size_t ldx, size_t col, const float *dy, size_t B,
                               size_t C);
void fc_cuda_transpose_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t A,
                            size_t C);
void fc_cuda_lstm_cell_forward(fc_backend *be, float *gates, size_t ldg, const float *c_prev, float *c, size_t ldc,
                               float *h, size_t ldh, size_t B, size_t H);
void fc_cuda_lstm_cell_backward(fc_backend *be, float *dgates, size_t lddg, const float *gates, size_t ldg,
                                const float *c_prev, const float *c, size_t ldc, const float *dh, size_t ldh,
                                float *dc, size_t lddc, size_t B, size_t H);
void fc_cuda_layer_norm_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, const float *gamma,
                                const float *beta, float *mean, float *rstd, size_t B, size_t D, float eps);
void fc_cuda_layer_norm_backward(fc_backend *be, float *dx, size_t lddx, const float *dy, size_t lddy, const float *x,
                                 size_t ldx, const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                 float *dbeta, size_t B, size_t D);
void fc_cuda_dropout(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t C, float p,
                     uint64_t seed, uint64_t offset);
/* cuda_attention.cu: GELU and attention (kernels/gelu.h, kernels/attention.h) */
void fc_cuda_gelu_forward(fc_backend *be, float *y, const float *x, size_t n);
void fc_cuda_gelu_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t n);
void fc_cuda_attention_forward(fc_backend *be, float *out, size_t ldo, float *scores, float *probs,
                               const float *prev, const float *q, const float *k, const float *v, size_t ldq,
                               size_t B, size_t P, size_t H, size_t E, float scale, float p, uint64_t seed,
                               uint64_t offset);
void fc_cuda_attention_backward(fc_backend *be, float *dq, float *dk, float *dv, size_t lddq, float *dscores,
                                const float *probs, const float *q, const float *k, const float *v, size_t ldq,
                                const float *dout, size_t ldo, size_t B, size_t P, size_t H, size_t E,
                                float scale, float p, uint64_t seed, uint64_t offset);
/* cuda_batch_norm.cu (kernels/batch_norm.h) */
void fc_cuda_batch_norm_forward(fc_backend *be, float *y, const float *x, size_t N, size_t C, const float *gamma,
                                const float *beta, float *running_mean, float *running_var, float *batches,
                                float *mean, float *rstd, int training, float momentum, float eps);
void fc_cuda_batch_norm_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t N, size_t C,
                                 const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                 float *dbeta);
/* cuda_revin_patch.cu (kernels/revin_patch.h) */
void fc_cuda_revin_patch_forward(fc_backend *be, float *patches, float *stats, const float *x, size_t ldx, size_t B,
                                 size_t L, size_t patch_len, size_t stride, size_t P, int revin, int subtract_last,
                                 const float *affine, float eps);
void fc_cuda_revin_patch_backward(fc_backend *be, float *daffine, const float *dpatches, const float *stats,
                                  const float *x, size_t ldx, size_t B, size_t L, size_t patch_len, size_t stride,
                                  size_t P, const float *affine);
void fc_cuda_revin_denorm_forward(fc_backend *be, float *y, const float *stats, size_t B, size_t n,
                                  const float *affine, float eps);
void fc_cuda_revin_denorm_backward(fc_backend *be, float *dz, const float *dy, const float *y, const float *stats,
                                   size_t B, size_t n, const float *affine, float *daffine, float eps);
void fc_cuda_maxpool1d_forward(fc_backend *be, float *y, int32_t *argmax, const float *x, size_t B, size_t L,
                               size_t k);
void fc_cuda_maxpool1d_backward(fc_backend *be, float *dx, const float *dy, const int32_t *argmax, size_t B,
                                size_t L, size_t k);
void fc_cuda_interp_linear_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B,
                                   size_t n_in, size_t n_out);
void fc_cuda_interp_linear_backward(fc_backend *be, float *dx, size_t ldx, const float *dy, size_t ldy,
                                    size_t B, size_t n_in, size_t n_out);

/* ---- cuda_reduce.cu (fixed-order reductions) and cuda_adam.cu ---- */
void fc_cuda_sum_squares(fc_backend *be, double *out, const float *x, size_t n);
void fc_cuda_masked_loss(fc_backend *be, double *d_loss, int first, double divisor, float *grad,
                         float grad_scale, const fc_loss_call *c);
void fc_cuda_adam_step(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n, float lr,
                       float beta1, float beta2, float eps, int64_t step);
/* Queues the fixed-order sum of squares of x (n) as partials in
 * impl->d_partials, *blocks of them, added in order by whoever reads them. */
fc_status fc_cuda_sum_squares_partials(fc_backend *be, const float *x, size_t n, size_t *blocks);
void fc_cuda_optimizer_step(fc_backend *be, float *p, float *g, float *m, float *v, size_t n,
                            const struct fc_step_in *in, struct fc_step_out *out);

/* ---- cuda_windows.cu (training data on the device, kernels/window_load.h) ---- */
size_t fc_cuda_data_bytes(const fc_backend *be, const struct fc_window_data *host, size_t cap, size_t stages,
                          size_t work, size_t *per_window);
fc_status fc_cuda_data_upload(fc_backend *be, const struct fc_window_data *host, size_t cap, size_t stages,
                              size_t work, void **data);
fc_status fc_cuda_data_stage(fc_backend *be, void *data, const struct fc_window_pos *w, size_t n);
fc_status fc_cuda_data_gather(fc_backend *be, void *data, size_t first, size_t n, const struct fc_window_batch *out);
fc_status fc_cuda_data_scale(fc_backend *be, void *data, size_t n, const struct fc_window_batch *out);
void fc_cuda_data_release(fc_backend *be, void *data);

#endif
