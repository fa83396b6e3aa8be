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
#include "backend/backend_ops.h"
#include "backend/cpu/cpu_backend.h"

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
    char impl_name[64];       /* the implementation oneDNN chose ("brg:avx2", "brg:avx512_core_amx") */
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

/* The entries the CPU fills with its own fc_cpu_<name> (FN in the cpu
 * column of backend_ops.def), declared from the list; they live in
 * cpu_matmul.c (gemm), cpu_linear.c (the dense layer; its workspace slots:
 * 0 oneDNN's scratchpad, 1-3 the hand-written bf16 kernels' blocks),
 * cpu_lowp.c (round_to), cpu_elementwise.c, cpu_attention.c (GELU and
 * attention), cpu_batch_norm.c, cpu_revin_patch.c, cpu_resample.c (pooling
 * and interpolation), cpu_reduce.c (losses and norms, deterministic for any
 * thread count), cpu_windows.c (training data, read in place) and
 * cpu_adam.c (Adam and the whole optimizer step). */
#define FC_BACKEND_OP(name, cpu, cuda, ret, params) FC_OP_IF_FN_##cpu(ret fc_cpu_##name params;)
#include "backend/backend_ops.def"
#undef FC_BACKEND_OP

/* cpu_matmul.c: the engine and the primitive cache. */
void fc_cpu_use_threads(const fc_backend *be);
fc_status fc_cpu_matmul_init(fc_cpu_impl *impl);
void fc_cpu_matmul_free(fc_cpu_impl *impl);
fc_status fc_cpu_matmul_get(fc_cpu_impl *impl, const fc_mm_key *key, fc_mm_entry **out);
fc_status fc_cpu_matmul_run(fc_cpu_impl *impl, fc_mm_entry *e, const void *src,
                            const void *weights, const float *bias, float *dst);

/* cpu_lowp.c: 1 when the low-precision buffers of prec hold bf16 (2-byte) values the
 * bf16 kernels read; 0 when they hold fp32 values: fp16 on every CPU, bf16
 * where no bf16 kernel runs (fc_cpu_bf16_native). */
int fc_cpu_prec_is_bf16(fc_precision prec);
/* dst[i] = src[i] rounded to fp16, carried in fp32 (F16C where the CPU has it). */
void fc_cpu_round_f16_span(float *dst, const float *src, size_t n);
/* cpu_bf16_choice.c: 1 when bf16 products run on 2-byte values here: a
 * bf16 kernel runs (oneDNN's need AVX-512, fcast's AVX512-BF16 or AMX)
 * and AMX is used or the measured rates favour a 16-bit kernel over fp32
 * (fc_cpu_bf16_pick). 0 otherwise (AMD Zen 3, Intel cores before
 * Skylake-SP, Intel cores without usable AMX where bf16 is the slower):
 * bf16 is then carried in fp32 as fp16 always is, values rounded to bf16
 * and multiplied by fp32 FMAs, exact products summed in fp32, so a bf16
 * run trains the model it trains elsewhere up to the order of the sums.
 * FCAST_BF16_CARRIED=1 takes that path anywhere. */
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
/* The block kernels (cpu_amx.c, cpu_avx512bf16.c): they compute, nothing
 * more; block is NULL where the compiler cannot build one. Whether one
 * runs on this CPU is for cpu_bf16_choice.c to find out. */
extern const fc_bf16_block_kernel fc_cpu_amx_kernel;
extern const fc_bf16_block_kernel fc_cpu_avx512bf16_kernel;
/* cpu_bf16_choice.c: the kernel bf16 products run on, or NULL (oneDNN's
 * then): AMX where its forked probe computed a known product exactly, else
 * AVX512-BF16 where its probe passed and it measured clearly faster than
 * oneDNN and fp32 (fc_cpu_bf16_pick). FCAST_BF16_KERNEL=amx|avx512bf16|onednn forces one (onednn, or
 * one that does not run here: none); FCAST_NO_AMX=1 leaves AMX out. */
const fc_bf16_block_kernel *fc_cpu_bf16_kernel(void);
/* cpu_bf16_choice.c: the path bf16 takes given the one-thread rates of
 * fp32 (oneDNN), oneDNN's bf16 and fcast's AVX512-BF16 kernel (0 where it
 * does not run): a 16-bit kernel only when it beats fp32 by
 * FC_BF16_MIN_GAIN, fcast's over oneDNN's only by FC_BF16_MARGIN (so that
 * close rates do not flip the choice, and the bits, from run to run). */
#define FC_BF16_MIN_GAIN 1.1
#define FC_BF16_MARGIN 1.3
typedef enum { FC_BF16_PATH_CARRIED, FC_BF16_PATH_ONEDNN, FC_BF16_PATH_HAND } fc_bf16_path;
fc_bf16_path fc_cpu_bf16_pick(double fp32, double onednn, double hand);
/* cpu_bf16_rates.c: the forward product of an N-HiTS-wide dense layer on
 * one thread, in GFLOP/s (0: not run), with oneDNN's implementation names. */
void fc_cpu_bf16_rates(const fc_bf16_block_kernel *hand, fc_bf16_rates *out);
/* C = A.B on kernel k (fc_cpu_bf16_kernel's), in the backend's blocks. */
fc_status fc_cpu_bf16_gemm(fc_backend *be, const fc_bf16_block_kernel *k, const fc_bf16_operand *a,
                           const fc_bf16_operand *b, size_t M, size_t N, size_t K, const fc_bf16_output *o);
/* The same with A already in its padded row-major block (Mp, Kp), Mp and Kp
 * M and K rounded up to 32 (fc_cpu_bf16_padded), zeros outside (M, K). */
fc_status fc_cpu_bf16_gemm_packed(fc_backend *be, const fc_bf16_block_kernel *k, const uint16_t *Ap,
                                  const fc_bf16_operand *b, size_t M, size_t N, size_t K, const fc_bf16_output *o);
/* The products without a backend, on `threads` threads (the choice's
 * check and timing): A packed into dst (Mp, Kp); B packed into Bp
 * (Kp x Np bf16 values) and multiplied. */
size_t fc_cpu_bf16_padded(size_t n);
void fc_cpu_bf16_pack_a(int threads, uint16_t *dst, const fc_bf16_operand *a, size_t M, size_t K, size_t Mp,
                        size_t Kp);
void fc_cpu_bf16_multiply(int threads, const fc_bf16_block_kernel *k, const uint16_t *Ap, uint16_t *Bp,
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

#endif
