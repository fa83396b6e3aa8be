/* Host arithmetic of the CUDA dense layers (see cuda_dense_plan.h). No
 * calls into the rest of fcast: libfcast-cuda.so links this file alone. */
#include <stdio.h>

#include "backend/cuda_dense_plan.h"

size_t fc_lt_workspace_bytes(int cc_major) {
    return (size_t)(cc_major >= 9 ? 32 : 4) << 20;
}

fc_dy_split fc_dy_split_of(size_t B) {
    fc_dy_split s = {0, 0};
    if (B == 0) return s;
    size_t want = B / FC_DY_MIN_CHUNK_ROWS;   /* rounded down: chunks keep their minimum of rows */
    size_t chunks = want < 1 ? 1 : want < FC_DY_MAX_CHUNKS ? want : FC_DY_MAX_CHUNKS;
    s.rows = B / chunks + (B % chunks != 0);
    s.chunks = B / s.rows + (B % s.rows != 0);   /* rounding rows up may leave the last chunks empty: drop them */
    return s;
}

size_t fc_dy_partials_bytes(size_t B, size_t O) { return fc_dy_split_of(B).chunks * O * sizeof(double); }

int64_t fc_lt_alignment(const void *p) {
    uintptr_t a = (uintptr_t)p;
    if (a == 0) return FC_LT_MAX_ALIGN;
    uintptr_t low = a & (~a + 1);   /* the lowest set bit: the largest power of two dividing a */
    return low < FC_LT_MAX_ALIGN ? (int64_t)low : FC_LT_MAX_ALIGN;
}

fc_lt_problem fc_lt_gemm_problem(int trans_a, int trans_b, size_t M, size_t N, size_t K, size_t lda, size_t ldb,
                                 size_t ldc) {
    fc_lt_problem p = {0};
    p.kind = FC_LT_GEMM;
    p.trans_a = trans_b != 0;   /* cuBLASLt's A is the row-major B ... */
    p.trans_b = trans_a != 0;   /* ... and its B the row-major A */
    p.m = (int64_t)N;
    p.n = (int64_t)M;
    p.k = (int64_t)K;
    p.lda = (int64_t)ldb;
    p.ldb = (int64_t)lda;
    p.ldc = (int64_t)ldc;
    p.prec = FC_PREC_FP32;
    p.epilogue = FC_LT_EPI_NONE;
    p.align = FC_LT_MAX_ALIGN;
    return p;
}

/* Each layer product as the row-major gemm it is (backend.h's contract):
 *   forward      y (B,O)  = x (B,I) . w^T        gemm(N, T, B, O, I; x I, w I;  y O)
 *   grad input   dx (B,I) = dy (B,O) . w (O,I)    gemm(N, N, B, I, O; dy O, w I; dx I)
 *   grad weight  dw (O,I) = dy^T (O,B) . x (B,I)  gemm(T, N, O, I, B; dy O, x I; dw I) */
fc_lt_problem fc_lt_linear_problem(fc_lt_kind kind, size_t B, size_t I, size_t O) {
    fc_lt_problem p;
    switch (kind) {
    case FC_LT_LINEAR_FORWARD: p = fc_lt_gemm_problem(0, 1, B, O, I, I, I, O); break;
    case FC_LT_LINEAR_GRAD_INPUT: p = fc_lt_gemm_problem(0, 0, B, I, O, O, I, I); break;
    default: p = fc_lt_gemm_problem(1, 0, O, I, B, O, I, I); break;
    }
    p.kind = kind;
    return p;
}

fc_lt_epilogue fc_lt_forward_epilogue(fc_activation act, int has_bias) {
    if (act == FC_ACT_RELU) return has_bias ? FC_LT_EPI_RELU_BIAS : FC_LT_EPI_RELU;
    return has_bias ? FC_LT_EPI_BIAS : FC_LT_EPI_NONE;
}

/* op(A) is (m,k): stored (m,k) when not transposed, (k,m) when it is. */
void fc_lt_shape_a(const fc_lt_problem *p, uint64_t *rows, uint64_t *cols) {
    *rows = (uint64_t)(p->trans_a ? p->k : p->m);
    *cols = (uint64_t)(p->trans_a ? p->m : p->k);
}

/* op(B) is (k,n): stored (k,n) or (n,k). */
void fc_lt_shape_b(const fc_lt_problem *p, uint64_t *rows, uint64_t *cols) {
    *rows = (uint64_t)(p->trans_b ? p->n : p->k);
    *cols = (uint64_t)(p->trans_b ? p->k : p->n);
}

int fc_lt_same(const fc_lt_problem *a, const fc_lt_problem *b) {
    return a->kind == b->kind && a->trans_a == b->trans_a && a->trans_b == b->trans_b && a->m == b->m &&
           a->n == b->n && a->k == b->k && a->lda == b->lda && a->ldb == b->ldb && a->ldc == b->ldc &&
           a->prec == b->prec && a->tf32 == b->tf32 && a->epilogue == b->epilogue && a->align == b->align;
}

/* Own names: this file may not call precision.c (not in the CUDA library). */
static const char *prec_name(int64_t prec, int64_t tf32) {
    if (prec == FC_PREC_BF16) return "bf16";
    if (prec == FC_PREC_FP16) return "fp16";
    return tf32 ? "fp32 (TF32)" : "fp32";
}

static const char *epilogue_name(int64_t e) {
    static const char *names[] = {"no epilogue", "bias", "ReLU", "bias+ReLU"};
    return e >= 0 && e <= FC_LT_EPI_RELU_BIAS ? names[e] : "unknown epilogue";
}

/* The caller's own terms: B, I, O for a layer, M, N, K for a gemm. */
static void describe_caller(const fc_lt_problem *p, char *buf, size_t cap) {
    long long m = (long long)p->m, n = (long long)p->n, k = (long long)p->k;
    switch (p->kind) {
    case FC_LT_LINEAR_FORWARD:
        snprintf(buf, cap, "linear forward (B=%lld I=%lld O=%lld", n, k, m);
        break;
    case FC_LT_LINEAR_GRAD_INPUT:
        snprintf(buf, cap, "linear backward, input gradient (B=%lld I=%lld O=%lld", n, m, k);
        break;
    case FC_LT_LINEAR_GRAD_WEIGHT:
        snprintf(buf, cap, "linear backward, weight gradient (B=%lld I=%lld O=%lld", k, m, n);
        break;
    default:
        snprintf(buf, cap, "gemm (M=%lld N=%lld K=%lld lda=%lld ldb=%lld ldc=%lld", n, m, k, (long long)p->ldb,
                 (long long)p->lda, (long long)p->ldc);
        break;
    }
}

void fc_lt_describe(const fc_lt_problem *p, char *buf, size_t cap) {
    char who[160];
    describe_caller(p, who, sizeof who);
    snprintf(buf, cap, "%s %s, %s; cuBLASLt m=%lld n=%lld k=%lld %c/%c, %lld-byte aligned)",
             prec_name(p->prec, p->tf32), who, epilogue_name(p->epilogue), (long long)p->m, (long long)p->n,
             (long long)p->k, p->trans_a ? 'T' : 'N', p->trans_b ? 'T' : 'N', (long long)p->align);
}
