/* Internals of the CPU backend, shared by its files (not for callers).
 *
 * Matrix products go through oneDNN matmul primitives, created once per
 * shape and cached here; everything else is an OpenMP loop over the shared
 * bodies of kernels/. The backend is single-caller: one thread drives it
 * (the loops inside fan out to `threads` OpenMP threads). */
#ifndef FC_BACKEND_CPU_CPU_INTERNAL_H
#define FC_BACKEND_CPU_CPU_INTERNAL_H

#include <oneapi/dnnl/dnnl.h>
#include <stddef.h>
#include <stdint.h>
#include "backend/arena_books.h"
#include "backend/backend.h"

/* Below this many elements an OpenMP region costs more than it saves. */
#define FC_CPU_PAR_MIN ((size_t)1 << 15)

/* What a cached matmul computes (see cpu_linear.c for the layouts). */
typedef enum {
    FC_MM_LINEAR_FORWARD = 0,   /* y = act(x . w^T + b)   */
    FC_MM_LINEAR_GRAD_INPUT,    /* dx = dy . w            */
    FC_MM_LINEAR_GRAD_WEIGHT    /* dw += dy^T . x         */
} fc_mm_kind;

typedef struct {
    fc_mm_kind kind;
    int64_t B, I, O;
    int act;        /* fc_activation, forward only */
    int has_bias;   /* forward only */
    int low;        /* 1: bf16 inputs (fp32 accumulation and output); 0: fp32 */
} fc_mm_key;

/* One cached primitive with its memory objects; the data handles are set at
 * each call, so executing allocates nothing of ours. */
typedef struct {
    fc_mm_key key;
    dnnl_primitive_t prim;
    dnnl_memory_t src, weights, bias, dst, scratch;  /* bias, scratch may be NULL */
    size_t scratch_bytes;     /* its user scratchpad */
} fc_mm_entry;

typedef struct {
    dnnl_engine_t engine;
    dnnl_stream_t stream;
    fc_mm_entry **cache;      /* linear search: a model has a handful of shapes */
    size_t cache_len, cache_cap;
    size_t primitives_created;
    void *scratch;            /* user scratchpad shared by all primitives */
    size_t scratch_bytes;
    char *arena;              /* the run's arena (cpu_backend.c), or NULL */
    fc_arena_books books;     /* its offsets (backend/arena_books.h) */
    void *bf16_a, *bf16_b, *bf16_t;   /* padded operand blocks of cpu_bf16_gemm.c (grow only) */
    size_t bf16_a_bytes, bf16_b_bytes, bf16_t_bytes;
} fc_cpu_impl;

static inline fc_cpu_impl *fc_cpu_impl_of(fc_backend *be) { return (fc_cpu_impl *)be->impl; }

/* cpu_matmul.c: the engine, the primitive cache and the GEMM entry. */
void fc_cpu_use_threads(const fc_backend *be);
fc_status fc_cpu_matmul_init(fc_cpu_impl *impl);
void fc_cpu_matmul_free(fc_cpu_impl *impl);
fc_status fc_cpu_matmul_get(fc_cpu_impl *impl, const fc_mm_key *key, fc_mm_entry **out);
fc_status fc_cpu_matmul_run(fc_cpu_impl *impl, fc_mm_entry *e, const void *src,
                            const void *weights, const float *bias, float *dst);
fc_status fc_cpu_gemm(fc_backend *be, int trans_a, int trans_b, size_t M, size_t N, size_t K,
                      float alpha, const float *A, size_t lda, const float *Bm, size_t ldb,
                      float beta, float *C, size_t ldc);

/* cpu_linear.c */
fc_status fc_cpu_linear_forward(fc_backend *be, const fc_linear_call *c);
fc_status fc_cpu_linear_backward(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low,
                                 float *dx, float *dw, float *db);
/* Slots: 0 oneDNN scratchpad, 1-3 the hand-written bf16 kernels' blocks. */
fc_status fc_cpu_linear_workspace(fc_backend *be, const fc_linear_call *shape, size_t ws[FC_WS_SLOTS]);

/* cpu_lowp.c: rounding to bf16 / fp16 (kernels/lowp.h bodies) */
void fc_cpu_round_to(fc_backend *be, void *dst, const float *src, size_t n, fc_precision prec);
/* 1 when the low-precision buffers of prec hold bf16 (2-byte) values the
 * bf16 kernels read; 0 when they hold fp32 values: fp16 on every CPU, bf16
 * where no bf16 kernel runs (fc_cpu_bf16_native). */
int fc_cpu_prec_is_bf16(fc_precision prec);
/* cpu_bf16_choice.c: 1 when bf16 products run on 2-byte values here
 * (oneDNN builds a bf16 matmul: it needs AVX-512, which fcast's own bf16
 * kernels need too). 0 on CPUs with AVX2 at most (AMD Zen 3, Intel before
 * Skylake-SP): bf16 is then carried in fp32 as fp16 always is, values
 * rounded to bf16 and multiplied by fp32 FMAs, exact products summed in
 * fp32, so a bf16 run trains the model it trains elsewhere up to the
 * order of the sums. FCAST_BF16_CARRIED=1 takes that path anywhere. */
int fc_cpu_bf16_native(void);

/* cpu_bf16_gemm.c: bf16 products written by hand, on AMX tiles or
 * AVX512-BF16, where they beat oneDNN's (see there).
 * A bf16 operand X (rows, cols) read as X[r][c] = p[r * row_stride + c * col_stride]. */
typedef struct {
    const uint16_t *p;
    size_t row_stride, col_stride;
} fc_bf16_operand;
/* C (M,N) fp32 with leading dimension ldc: C = [C +] A.B [+ bias (N)], then ReLU if relu. */
typedef struct {
    float *c;
    size_t ldc;
    int accumulate;
    const float *bias;
    int relu;
} fc_bf16_output;
/* A block kernel: out (32, 32) fp32 = packed A rows [m0, m0+32) . packed B
 * column blocks nb0 and nb0+1 (16 columns each), over Kp (a multiple of
 * 32); thread_begin / thread_end (or NULL) bracket a thread's blocks. */
typedef struct {
    const char *name;
    void (*thread_begin)(void);
    void (*thread_end)(void);
    void (*block)(const uint16_t *Ap, const uint16_t *Bp, size_t Kp, size_t m0, size_t nb0, float *out);
} fc_bf16_block_kernel;
#define FC_BF16_KERNEL_AMX "fcast's AMX"
#define FC_BF16_KERNEL_AVX512BF16 "fcast's AVX512-BF16"
/* cpu_bf16_choice.c: the kernel bf16 products run on, or NULL (oneDNN's
 * then): AMX where its forked probe computed a known product exactly, else
 * AVX512-BF16 where its probe passed and it measured clearly faster than
 * oneDNN. FCAST_BF16_KERNEL=amx|avx512bf16|onednn forces one (onednn, or
 * one that does not run here: none); FCAST_NO_AMX=1 leaves AMX out. */
const fc_bf16_block_kernel *fc_cpu_bf16_kernel(void);
const fc_bf16_block_kernel *fc_cpu_amx_kernel(void);          /* cpu_amx.c: NULL where AMX does not run */
const fc_bf16_block_kernel *fc_cpu_avx512bf16_kernel(void);   /* cpu_avx512bf16.c: likewise */
/* 0 when kernel k computes a 40x36 by 36x40 product of small integers
 * exactly (run it in a forked child: a kernel the CPU refuses kills it). */
int fc_cpu_bf16_kernel_check(const fc_bf16_block_kernel *k);
fc_status fc_cpu_bf16_gemm(fc_backend *be, const fc_bf16_operand *a, const fc_bf16_operand *b, size_t M, size_t N,
                           size_t K, const fc_bf16_output *o);
fc_status fc_cpu_bf16_gemm_on(fc_backend *be, const fc_bf16_block_kernel *k, const fc_bf16_operand *a,
                              const fc_bf16_operand *b, size_t M, size_t N, size_t K, const fc_bf16_output *o);
/* The same with A already in its padded row-major block (Mp, Kp), Mp and Kp
 * M and K rounded up to 32, zeros outside (M, K); _with on kernel k. */
fc_status fc_cpu_bf16_gemm_packed(fc_backend *be, const uint16_t *Ap, const fc_bf16_operand *b, size_t M, size_t N,
                                  size_t K, const fc_bf16_output *o);
fc_status fc_cpu_bf16_gemm_with(fc_backend *be, const fc_bf16_block_kernel *k, const uint16_t *Ap,
                                const fc_bf16_operand *b, size_t M, size_t N, size_t K, const fc_bf16_output *o);
/* A block for a caller that writes A itself (the backward pass writes dy
 * transposed while it rounds it); *ld is the padded K. fc_cpu_bf16_pad_block
 * zeroes what lies outside (M, K) once it is written. */
fc_status fc_cpu_bf16_transposed_block(fc_backend *be, size_t M, size_t K, uint16_t **block, size_t *ld);
void fc_cpu_bf16_pad_block(uint16_t *block, size_t M, size_t K);
/* Bytes of the three blocks (A, B, dy^T) a dense layer (B,I,O) needs. */
void fc_cpu_bf16_workspace(size_t B, size_t I, size_t O, size_t ws[3]);
void fc_cpu_bf16_free(fc_cpu_impl *impl);

/* cpu_probe.c: runs check() in a forked child with a deadline; 1 when it
 * returned 0, 0 when it failed, crashed or ran out of time. */
int fc_cpu_probe_in_child(int (*check)(void), int timeout_ms);

/* cpu_isa.c: keeps oneDNN off instruction sets the kernel has not enabled */
void fc_cpu_isa_guard(void);

/* cpu_elementwise.c */
void fc_cpu_fill(fc_backend *be, float *x, float value, size_t n);
void fc_cpu_scale(fc_backend *be, float *x, float s, size_t n);
void fc_cpu_flip_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx,
                      size_t B, size_t L);
void fc_cpu_axpby_rows(fc_backend *be, float *y, size_t ldy, float alpha, const float *x,
                       size_t ldx, float beta, size_t B, size_t C);
void fc_cpu_mul_rows(fc_backend *be, float *y, size_t ldy, const float *m, size_t ldm,
                     size_t B, size_t C);
void fc_cpu_broadcast_col(fc_backend *be, float *y, const float *x, size_t ldx, size_t col,
                          size_t B, size_t C);
void fc_cpu_sum_rows_into_col(fc_backend *be, float *x, size_t ldx, size_t col,
                              const float *dy, size_t B, size_t C);
void fc_cpu_transpose_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx,
                           size_t B, size_t A, size_t C);
void fc_cpu_lstm_cell_forward(fc_backend *be, float *gates, size_t ldg, const float *c_prev, float *c, size_t ldc,
                              float *h, size_t ldh, size_t B, size_t H);
void fc_cpu_lstm_cell_backward(fc_backend *be, float *dgates, size_t lddg, const float *gates, size_t ldg,
                               const float *c_prev, const float *c, size_t ldc, const float *dh, size_t ldh,
                               float *dc, size_t lddc, size_t B, size_t H);
void fc_cpu_layer_norm_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, const float *gamma,
                               const float *beta, float *mean, float *rstd, size_t B, size_t D, float eps);
void fc_cpu_layer_norm_backward(fc_backend *be, float *dx, size_t lddx, const float *dy, size_t lddy, const float *x,
                                size_t ldx, const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                float *dbeta, size_t B, size_t D);
void fc_cpu_dropout(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t C, float p,
                    uint64_t seed, uint64_t offset);

/* cpu_attention.c: GELU and attention (kernels/gelu.h, kernels/attention.h) */
void fc_cpu_gelu_forward(fc_backend *be, float *y, const float *x, size_t n);
void fc_cpu_gelu_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t n);
void fc_cpu_attention_forward(fc_backend *be, float *out, size_t ldo, float *scores, float *probs, const float *prev,
                              const float *q, const float *k, const float *v, size_t ldq, size_t B, size_t P,
                              size_t H, size_t E, float scale, float p, uint64_t seed, uint64_t offset);
void fc_cpu_attention_backward(fc_backend *be, float *dq, float *dk, float *dv, size_t lddq, float *dscores,
                               const float *probs, const float *q, const float *k, const float *v, size_t ldq,
                               const float *dout, size_t ldo, size_t B, size_t P, size_t H, size_t E, float scale,
                               float p, uint64_t seed, uint64_t offset);

/* cpu_batch_norm.c (kernels/batch_norm.h) */
void fc_cpu_batch_norm_forward(fc_backend *be, float *y, const float *x, size_t N, size_t C, const float *gamma,
                               const float *beta, float *running_mean, float *running_var, float *batches,
                               float *mean, float *rstd, int training, float momentum, float eps);
void fc_cpu_batch_norm_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t N, size_t C,
                                const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                float *dbeta);

/* cpu_revin_patch.c (kernels/revin_patch.h) */
void fc_cpu_revin_patch_forward(fc_backend *be, float *patches, float *stats, const float *x, size_t ldx, size_t B,
                                size_t L, size_t patch_len, size_t stride, size_t P, int revin, int subtract_last,
                                const float *affine, float eps);
void fc_cpu_revin_patch_backward(fc_backend *be, float *daffine, const float *dpatches, const float *stats,
                                 const float *x, size_t ldx, size_t B, size_t L, size_t patch_len, size_t stride,
                                 size_t P, const float *affine);
void fc_cpu_revin_denorm_forward(fc_backend *be, float *y, const float *stats, size_t B, size_t n,
                                 const float *affine, float eps);
void fc_cpu_revin_denorm_backward(fc_backend *be, float *dz, const float *dy, const float *y, const float *stats,
                                  size_t B, size_t n, const float *affine, float *daffine, float eps);

/* cpu_resample.c: pooling and interpolation */
void fc_cpu_maxpool1d_forward(fc_backend *be, float *y, int32_t *argmax, const float *x,
                              size_t B, size_t L, size_t k);
void fc_cpu_maxpool1d_backward(fc_backend *be, float *dx, const float *dy,
                               const int32_t *argmax, size_t B, size_t L, size_t k);
void fc_cpu_interp_linear_forward(fc_backend *be, float *y, size_t ldy, const float *x,
                                  size_t ldx, size_t B, size_t n_in, size_t n_out);
void fc_cpu_interp_linear_backward(fc_backend *be, float *dx, size_t ldx, const float *dy,
                                   size_t ldy, size_t B, size_t n_in, size_t n_out);

/* cpu_reduce.c: losses and norms, deterministic for any thread count */
void fc_cpu_masked_loss(fc_backend *be, double *d_loss, int first, double divisor, float *grad, float grad_scale,
                        const fc_loss_call *c);
void fc_cpu_sum_squares(fc_backend *be, double *out, const float *x, size_t n);

/* cpu_windows.c: training data for the device path (reads the dataset in place) */
struct fc_window_data;
struct fc_window_pos;
struct fc_window_batch;
size_t fc_cpu_data_bytes(const fc_backend *be, const struct fc_window_data *host, size_t cap, size_t stages,
                         size_t work, size_t *per_window);
fc_status fc_cpu_data_upload(fc_backend *be, const struct fc_window_data *host, size_t cap, size_t stages, size_t work,
                             void **data);
fc_status fc_cpu_data_stage(fc_backend *be, void *data, const struct fc_window_pos *w, size_t n);
fc_status fc_cpu_data_gather(fc_backend *be, void *data, size_t first, size_t n, const struct fc_window_batch *out);
fc_status fc_cpu_data_scale(fc_backend *be, void *data, size_t n, const struct fc_window_batch *out);
void fc_cpu_data_release(fc_backend *be, void *data);

/* cpu_adam.c: Adam, and the whole optimizer step (kernels/optimizer_step.h) */
struct fc_step_in;
struct fc_step_out;
void fc_cpu_adam_step(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n,
                      float lr, float beta1, float beta2, float eps, int64_t step);
void fc_cpu_optimizer_step(fc_backend *be, float *p, float *g, float *m, float *v, size_t n,
                           const struct fc_step_in *in, struct fc_step_out *out);

#endif
