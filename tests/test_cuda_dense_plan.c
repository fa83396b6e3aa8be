/* Host arithmetic of the CUDA dense layers (backend/cuda_dense_plan.c),
 * checked without a GPU. The truth for the row-major -> column-major
 * mapping is a naive implementation of cuBLASLt's documented semantics
 * (column-major D = alpha op(A) op(B) + beta C with leading dimensions) run
 * on the mapped problem, against the row-major definitions of backend.h
 * computed directly: if the transposes or leading dimensions were wrong,
 * the two would disagree. Values are small integers, so every sum is exact
 * and the comparisons are bit for bit. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda_dense_plan.h"
#include "check.h"

/* cuBLASLt's matmul on host memory: column-major, ld per operand, bias of
 * m entries added to each column, then ReLU. */
static void lt_reference(const fc_lt_problem *p, const float *A, const float *B, float *D, const float *bias,
                         float alpha, float beta) {
    for (int64_t j = 0; j < p->n; j++)
        for (int64_t i = 0; i < p->m; i++) {
            double s = 0;
            for (int64_t l = 0; l < p->k; l++) {
                float a = p->trans_a ? A[l + i * p->lda] : A[i + l * p->lda];
                float b = p->trans_b ? B[j + l * p->ldb] : B[l + j * p->ldb];
                s += (double)a * b;
            }
            float *d = &D[i + j * p->ldc];
            float v = (float)(alpha * s + (beta != 0.0f ? beta * *d : 0.0));
            if (p->epilogue == FC_LT_EPI_BIAS || p->epilogue == FC_LT_EPI_RELU_BIAS) v += bias[i];
            if ((p->epilogue == FC_LT_EPI_RELU || p->epilogue == FC_LT_EPI_RELU_BIAS) && !(v > 0.0f)) v = 0.0f;
            *d = v;
        }
}

/* The stored operands fit their buffers and cuBLASLt's layout rule ld >= rows. */
static void check_layouts(const fc_lt_problem *p, size_t a_len, size_t b_len, size_t c_len) {
    uint64_t r, c;
    fc_lt_shape_a(p, &r, &c);
    CHECK_MSG((int64_t)r <= p->lda && (c - 1) * (uint64_t)p->lda + r <= a_len, "A (%llu,%llu) lda %lld in %zu",
              (unsigned long long)r, (unsigned long long)c, (long long)p->lda, a_len);
    fc_lt_shape_b(p, &r, &c);
    CHECK_MSG((int64_t)r <= p->ldb && (c - 1) * (uint64_t)p->ldb + r <= b_len, "B (%llu,%llu) ldb %lld in %zu",
              (unsigned long long)r, (unsigned long long)c, (long long)p->ldb, b_len);
    CHECK(p->m <= p->ldc && (size_t)((p->n - 1) * p->ldc + p->m) <= c_len);
}

static float *ints(size_t n, unsigned seed) {
    float *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = (float)((int)((i * 7 + seed * 13) % 11) - 5);
    return x;
}

static int same_floats(const float *a, const float *b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

/* y = act(x w^T + b) through the forward problem. */
static void test_linear_forward(size_t B, size_t I, size_t O, fc_activation act) {
    float *x = ints(B * I, 1), *w = ints(O * I, 2), *b = ints(O, 3);
    float *y = calloc(B * O, sizeof *y), *want = calloc(B * O, sizeof *want);
    fc_lt_problem p = fc_lt_linear_problem(FC_LT_LINEAR_FORWARD, B, I, O);
    p.epilogue = fc_lt_forward_epilogue(act, 1);
    check_layouts(&p, O * I, B * I, B * O);
    lt_reference(&p, w, x, y, b, 1.0f, 0.0f);   /* cuBLASLt A = w, B = x */
    for (size_t r = 0; r < B; r++)
        for (size_t o = 0; o < O; o++) {
            double s = b[o];
            for (size_t i = 0; i < I; i++) s += (double)x[r * I + i] * w[o * I + i];
            want[r * O + o] = act == FC_ACT_RELU && s <= 0 ? 0.0f : (float)s;
        }
    CHECK_MSG(same_floats(y, want, B * O), "forward B=%zu I=%zu O=%zu act=%d", B, I, O, (int)act);
    free(x), free(w), free(b), free(y), free(want);
}

/* dx = dy w (overwritten) and dw += dy^T x (accumulated) through the two backward problems. */
static void test_linear_backward(size_t B, size_t I, size_t O) {
    float *dy = ints(B * O, 4), *w = ints(O * I, 5), *x = ints(B * I, 6);
    float *dx = ints(B * I, 7), *dw = ints(O * I, 8), *dw0 = ints(O * I, 8);
    float *want_dx = calloc(B * I, sizeof *want_dx), *want_dw = calloc(O * I, sizeof *want_dw);
    fc_lt_problem gi = fc_lt_linear_problem(FC_LT_LINEAR_GRAD_INPUT, B, I, O);
    fc_lt_problem gw = fc_lt_linear_problem(FC_LT_LINEAR_GRAD_WEIGHT, B, I, O);
    check_layouts(&gi, O * I, B * O, B * I);
    check_layouts(&gw, B * I, B * O, O * I);
    lt_reference(&gi, w, dy, dx, NULL, 1.0f, 0.0f);   /* A = w, B = dy */
    lt_reference(&gw, x, dy, dw, NULL, 1.0f, 1.0f);   /* A = x, B = dy, beta 1 */
    for (size_t r = 0; r < B; r++)
        for (size_t i = 0; i < I; i++) {
            double s = 0;
            for (size_t o = 0; o < O; o++) s += (double)dy[r * O + o] * w[o * I + i];
            want_dx[r * I + i] = (float)s;
        }
    for (size_t o = 0; o < O; o++)
        for (size_t i = 0; i < I; i++) {
            double s = dw0[o * I + i];
            for (size_t r = 0; r < B; r++) s += (double)dy[r * O + o] * x[r * I + i];
            want_dw[o * I + i] = (float)s;
        }
    CHECK_MSG(same_floats(dx, want_dx, B * I), "dx B=%zu I=%zu O=%zu", B, I, O);
    CHECK_MSG(same_floats(dw, want_dw, O * I), "dw B=%zu I=%zu O=%zu", B, I, O);
    free(dy), free(w), free(x), free(dx), free(dw), free(dw0), free(want_dx), free(want_dw);
}

/* Row-major C = alpha op(A) op(B) + beta C with padded leading dimensions;
 * the padding must stay untouched. */
static void test_gemm(int ta, int tb, size_t M, size_t N, size_t K) {
    size_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 2, ldc = N + 5;
    size_t a_rows = ta ? K : M, b_rows = tb ? N : K;
    float *A = ints(a_rows * lda, 9), *Bm = ints(b_rows * ldb, 10), *C = ints(M * ldc, 11);
    float *want = malloc(M * ldc * sizeof *want);
    memcpy(want, C, M * ldc * sizeof *want);
    for (size_t i = 0; i < M; i++)
        for (size_t j = 0; j < N; j++) {
            double s = 0;
            for (size_t l = 0; l < K; l++)
                s += (double)(ta ? A[l * lda + i] : A[i * lda + l]) * (tb ? Bm[j * ldb + l] : Bm[l * ldb + j]);
            want[i * ldc + j] = (float)(2.0 * s + 0.5 * C[i * ldc + j]);
        }
    fc_lt_problem p = fc_lt_gemm_problem(ta, tb, M, N, K, lda, ldb, ldc);
    check_layouts(&p, b_rows * ldb, a_rows * lda, M * ldc);
    lt_reference(&p, Bm, A, C, NULL, 2.0f, 0.5f);   /* cuBLASLt A = Bm, B = A */
    CHECK_MSG(same_floats(C, want, M * ldc), "gemm %c%c M=%zu N=%zu K=%zu", ta ? 'T' : 'N', tb ? 'T' : 'N', M,
              N, K);
    free(A), free(Bm), free(C), free(want);
}

static void test_workspace_and_alignment(void) {
    CHECK(fc_lt_workspace_bytes(8) == (size_t)4 << 20);
    CHECK(fc_lt_workspace_bytes(9) == (size_t)32 << 20);    /* Hopper */
    CHECK(fc_lt_workspace_bytes(10) == (size_t)32 << 20);
    CHECK(fc_lt_alignment(NULL) == FC_LT_MAX_ALIGN);
    CHECK(fc_lt_alignment((void *)(uintptr_t)0x10000) == 256);
    CHECK(fc_lt_alignment((void *)(uintptr_t)0x10100) == 256);
    CHECK(fc_lt_alignment((void *)(uintptr_t)0x10080) == 128);
    CHECK(fc_lt_alignment((void *)(uintptr_t)0x10004) == 4);
    CHECK(fc_lt_alignment((void *)(uintptr_t)0x10002) == 2);
    CHECK(fc_lt_alignment((void *)(uintptr_t)0x10001) == 1);
}

static void test_keys_and_messages(void) {
    fc_lt_problem a = fc_lt_linear_problem(FC_LT_LINEAR_FORWARD, 256, 64, 512), b = a;
    CHECK(fc_lt_same(&a, &b));
    int64_t *fields[] = {&b.kind, &b.trans_a, &b.trans_b, &b.m, &b.n, &b.k, &b.lda,
                         &b.ldb, &b.ldc, &b.prec, &b.tf32, &b.epilogue, &b.align};
    for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
        b = a;
        *fields[f] += 1;
        CHECK_MSG(!fc_lt_same(&a, &b), "field %zu ignored by the key", f);
    }
    char msg[256];
    a.prec = FC_PREC_BF16;
    a.epilogue = FC_LT_EPI_RELU_BIAS;
    fc_lt_describe(&a, msg, sizeof msg);
    CHECK_CONTAINS(msg, "bf16 linear forward (B=256 I=64 O=512");
    CHECK_CONTAINS(msg, "bias+ReLU");
    CHECK_CONTAINS(msg, "m=512 n=256 k=64 T/N");
    fc_lt_problem g = fc_lt_linear_problem(FC_LT_LINEAR_GRAD_WEIGHT, 256, 64, 512);
    fc_lt_describe(&g, msg, sizeof msg);
    CHECK_CONTAINS(msg, "weight gradient (B=256 I=64 O=512");
    g = fc_lt_gemm_problem(0, 1, 7, 5, 3, 3, 3, 5);
    g.tf32 = 1;
    fc_lt_describe(&g, msg, sizeof msg);
    CHECK_CONTAINS(msg, "fp32 (TF32) gemm (M=7 N=5 K=3 lda=3 ldb=3 ldc=5");
    CHECK(fc_lt_forward_epilogue(FC_ACT_NONE, 0) == FC_LT_EPI_NONE);
    CHECK(fc_lt_forward_epilogue(FC_ACT_NONE, 1) == FC_LT_EPI_BIAS);
    CHECK(fc_lt_forward_epilogue(FC_ACT_RELU, 0) == FC_LT_EPI_RELU);
}

/* The backward's row chunks tile [0, B): none empty, at most
 * FC_DY_MAX_CHUNKS, each of at least FC_DY_MIN_CHUNK_ROWS rows unless B is
 * smaller, and the partials' room follows. */
static void test_dy_split(void) {
    size_t sizes[] = {0, 1, 63, 64, 65, 127, 128, 1000, 1023, 1024, 2047, 2049, 4096, 100003, (size_t)1 << 40};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        size_t B = sizes[i];
        fc_dy_split s = fc_dy_split_of(B);
        if (B == 0) {
            CHECK(s.chunks == 0 && fc_dy_partials_bytes(0, 7) == 0);
            continue;
        }
        CHECK_MSG(s.chunks >= 1 && s.chunks <= FC_DY_MAX_CHUNKS, "B=%zu: %zu chunks", B, s.chunks);
        CHECK_MSG((s.chunks - 1) * s.rows < B && B <= s.chunks * s.rows, "B=%zu: %zu x %zu rows", B, s.chunks, s.rows);
        CHECK_MSG(s.rows >= FC_DY_MIN_CHUNK_ROWS || s.chunks == 1, "B=%zu: chunks of %zu rows", B, s.rows);
        CHECK(fc_dy_partials_bytes(B, 512) == s.chunks * 512 * sizeof(double));
    }
    CHECK(fc_dy_split_of(1024).chunks == 16);   /* a default batch: 16 rows of blocks */
}

int main(void) {
    test_dy_split();
    size_t shapes[][3] = {{1, 1, 1}, {5, 3, 2}, {2, 7, 9}, {16, 1, 4}, {3, 8, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
        test_linear_forward(shapes[s][0], shapes[s][1], shapes[s][2], FC_ACT_NONE);
        test_linear_forward(shapes[s][0], shapes[s][1], shapes[s][2], FC_ACT_RELU);
        test_linear_backward(shapes[s][0], shapes[s][1], shapes[s][2]);
    }
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            test_gemm(ta, tb, 4, 3, 5);
            test_gemm(ta, tb, 1, 6, 2);
            test_gemm(ta, tb, 7, 1, 1);
        }
    test_workspace_and_alignment();
    test_keys_and_messages();
    return CHECK_DONE();
}
