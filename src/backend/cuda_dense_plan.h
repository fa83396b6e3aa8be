/* Host arithmetic of the CUDA backend's dense layers (cuda/cuda_dense.cu),
 * in plain C so that the CPU tests check it (test_cuda_dense_plan): how a
 * row-major product becomes cuBLASLt's column-major one, the key of the
 * algorithm cache, the alignment of operands and the size of cuBLASLt's
 * workspace per GPU generation. Compiled into fcast and libfcast-cuda.so.
 *
 * The transpose trick: a row-major (r, c) matrix with leading dimension ld
 * is, read column-major, its transpose (c, r) with the same ld. So the
 * row-major C (M,N) = op(A) (M,K) . op(B) (K,N) is the column-major
 *   C^T (N,M) = op(B)^T (N,K) . op(A)^T (K,M)
 * and cuBLASLt runs m = N, n = M, k = K with its A the row-major B and its
 * B the row-major A, each with the same transpose flag as before. No data
 * moves and no CUBLASLT_ORDER_ROW layout is needed (row-order layouts are
 * not supported by every algorithm and epilogue). */
#ifndef FC_BACKEND_CUDA_DENSE_PLAN_H
#define FC_BACKEND_CUDA_DENSE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "backend/backend.h"

typedef enum {
    FC_LT_LINEAR_FORWARD = 0,   /* y (B,O) = x (B,I) . w (O,I)^T:  cuBLASLt A = w,  B = x  */
    FC_LT_LINEAR_GRAD_INPUT,    /* dx (B,I) = dy (B,O) . w (O,I):  cuBLASLt A = w,  B = dy */
    FC_LT_LINEAR_GRAD_WEIGHT,   /* dw (O,I) += dy^T . x (B,I):     cuBLASLt A = x,  B = dy */
    FC_LT_GEMM                  /* be->gemm:                       cuBLASLt A = Bm, B = A  */
} fc_lt_kind;

/* What cuBLASLt adds after the product: the bias vector has m entries (one
 * per row of cuBLASLt's D, i.e. per output feature O). */
typedef enum { FC_LT_EPI_NONE = 0, FC_LT_EPI_BIAS = 1, FC_LT_EPI_RELU = 2, FC_LT_EPI_RELU_BIAS = 3 } fc_lt_epilogue;

/* One product as cuBLASLt sees it, column-major:
 *   D (m,n) = alpha * op(A) (m,k) . op(B) (k,n) + beta * C,  C and D one buffer (ldc).
 * It is also the key of the algorithm cache: every field is int64_t, so the
 * struct has no padding and two keys are equal field by field. */
typedef struct {
    int64_t kind;               /* fc_lt_kind: for messages, and kept apart in the cache */
    int64_t trans_a, trans_b;   /* 1: op(X) = X^T */
    int64_t m, n, k;
    int64_t lda, ldb, ldc;
    int64_t prec;               /* fc_precision of A and B; C, D, bias and scalars are fp32 */
    int64_t tf32;               /* fp32 products may use TF32 (only with FC_PREC_FP32) */
    int64_t epilogue;           /* fc_lt_epilogue */
    int64_t align;              /* bytes every operand address is a multiple of (1 .. FC_LT_MAX_ALIGN) */
} fc_lt_problem;

/* cuBLASLt's default (and largest useful) alignment preference. */
#define FC_LT_MAX_ALIGN 256

/* The workspace cuBLASLt may use per product: NVIDIA's recommendation
 * (cuBLAS guide, cublasSetWorkspace) is 32 MiB on Hopper and 4 MiB before;
 * newer generations get Hopper's. */
size_t fc_lt_workspace_bytes(int cc_major);

/* The backward pass over dy (cuda_dense.cu) cuts a layer's B rows into
 * chunks, one row of blocks of the grid per chunk, so that a layer with few
 * output columns still spreads over the GPU; the bias gradient is then the
 * chunks' column sums added in chunk order (fixed by B: the same bits every
 * run). Chunks hold at least FC_DY_MIN_CHUNK_ROWS rows, at most
 * FC_DY_MAX_CHUNKS of them, none empty; the last may be shorter. */
#define FC_DY_MIN_CHUNK_ROWS 64
#define FC_DY_MAX_CHUNKS 32
typedef struct {
    size_t chunks;   /* 0 when B == 0 */
    size_t rows;     /* rows per chunk */
} fc_dy_split;
fc_dy_split fc_dy_split_of(size_t B);
/* Bytes of the chunks' column sums (doubles) of a layer of B rows and O columns. */
size_t fc_dy_partials_bytes(size_t B, size_t O);

/* The largest power of two, at most FC_LT_MAX_ALIGN, that divides p's
 * address (FC_LT_MAX_ALIGN for NULL: an absent operand constrains nothing). */
int64_t fc_lt_alignment(const void *p);

/* Row-major C (M,N) = op(A) . op(B) with leading dimensions, as cuBLASLt's
 * problem (kind FC_LT_GEMM, fp32, no epilogue, alignment FC_LT_MAX_ALIGN;
 * the caller sets what differs). */
fc_lt_problem fc_lt_gemm_problem(int trans_a, int trans_b, size_t M, size_t N, size_t K, size_t lda, size_t ldb,
                                 size_t ldc);

/* The three products of a dense layer (B,I,O), contiguous row-major
 * operands; epilogue NONE, precision fp32, alignment FC_LT_MAX_ALIGN. */
fc_lt_problem fc_lt_linear_problem(fc_lt_kind kind, size_t B, size_t I, size_t O);

/* The forward epilogue of a layer with activation act and a bias or not. */
fc_lt_epilogue fc_lt_forward_epilogue(fc_activation act, int has_bias);

/* The stored shapes (before op) of cuBLASLt's A and B: what
 * cublasLtMatrixLayoutCreate is given with lda / ldb. */
void fc_lt_shape_a(const fc_lt_problem *p, uint64_t *rows, uint64_t *cols);
void fc_lt_shape_b(const fc_lt_problem *p, uint64_t *rows, uint64_t *cols);

/* 1 when two problems are the same cache key. */
int fc_lt_same(const fc_lt_problem *a, const fc_lt_problem *b);

/* One line for error messages in the caller's terms, e.g.
 * "bf16 linear forward (B=256 I=64 O=512, bias+ReLU; cuBLASLt m=512 n=256 k=64 T/N, 256-byte aligned)". */
void fc_lt_describe(const fc_lt_problem *p, char *buf, size_t cap);

#endif
