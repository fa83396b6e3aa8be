/* The CPU backend against independent truth (the dense layer has its own
 * test, test_linear.c): GEMM against naive double-precision loops, pooling against
 * a naive reference, interpolation and Adam against numbers produced by
 * PyTorch (pasted below with the script that made them), losses against
 * hand-computed values, and the primitive cache against its counter. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "check.h"
#include "kernels/adam.h"
#include "test_arrays.h"
#include "core/rng.h"

static void check_gemm(fc_backend *be, int ta, int tb, size_t M, size_t N, size_t K) {
    size_t lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 2, ldc = N + 5;
    size_t arows = ta ? K : M, brows = tb ? N : K;
    float *A = randu(arows * lda, 11, -1, 1), *Bm = randu(brows * ldb, 12, -1, 1);
    float *C = randu(M * ldc, 13, -1, 1), *C0 = malloc(M * ldc * sizeof *C0);
    for (size_t i = 0; i < M * ldc; i++) C0[i] = C[i];
    float alpha = 0.7f, beta = -0.3f;
    CHECK(be->gemm(be, ta, tb, M, N, K, alpha, A, lda, Bm, ldb, beta, C, ldc) == FC_OK);
    size_t bad = 0, pad_changed = 0;
    for (size_t i = 0; i < M; i++) {
        for (size_t j = 0; j < N; j++) {
            double s = 0, a = 0;
            for (size_t k = 0; k < K; k++) {
                double av = ta ? A[k * lda + i] : A[i * lda + k];
                double bv = tb ? Bm[j * ldb + k] : Bm[k * ldb + j];
                s += av * bv, a += fabs(av * bv);
            }
            double want = alpha * s + beta * C0[i * ldc + j];
            double tol = 1e-5 * (fabs(alpha) * a + fabs(beta * C0[i * ldc + j])) + 1e-7;
            bad += !(fabs(C[i * ldc + j] - want) <= tol);
        }
        for (size_t j = N; j < ldc; j++) pad_changed += C[i * ldc + j] != C0[i * ldc + j];
    }
    CHECK_MSG(bad == 0, "gemm ta=%d tb=%d M=%zu N=%zu K=%zu: %zu bad", ta, tb, M, N, K, bad);
    CHECK_MSG(pad_changed == 0, "gemm wrote %zu elements beyond N in C's rows", pad_changed);
    free(A), free(Bm), free(C), free(C0);
}

static void test_gemm(fc_backend *be) {
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++) {
            check_gemm(be, ta, tb, 7, 5, 13);
            check_gemm(be, ta, tb, 65, 33, 130);
        }
    /* beta = 0 must not read C (BLAS convention): NaN in C is overwritten. */
    float A[6] = {1, 2, 3, 4, 5, 6}, Bm[6] = {1, 0, 0, 1, 1, 1}, C[4] = {NAN, NAN, NAN, NAN};
    CHECK(be->gemm(be, 0, 0, 2, 2, 3, 1.0f, A, 3, Bm, 2, 0.0f, C, 2) == FC_OK);
    CHECK_CLOSE(C[0], 4, 0, 1e-6); /* [1 2 3] . [[1 0] [0 1] [1 1]] = [4 5] */
    CHECK_CLOSE(C[1], 5, 0, 1e-6);
    CHECK_CLOSE(C[2], 10, 0, 1e-6);
    CHECK_CLOSE(C[3], 11, 0, 1e-6);
    /* K = 0: C = beta * C (oneDNN's sgemm alone would leave C as it is). */
    CHECK(be->gemm(be, 0, 0, 2, 2, 0, 1.0f, A, 1, Bm, 2, 0.5f, C, 2) == FC_OK);
    CHECK(C[0] == 2 && C[3] == 5.5f);
    CHECK(be->gemm(be, 0, 0, 2, 2, 3, 1.0f, A, 2, Bm, 2, 0.0f, C, 2) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "lda = 2");
}

/* ---- pooling ---- */

/* Naive reference: max of each window of k with the first maximum's index. */
static void ref_maxpool_row(const float *x, size_t L, size_t k, float *y, int32_t *idx) {
    for (size_t j = 0; j * k < L; j++) {
        y[j] = x[j * k];
        idx[j] = (int32_t)(j * k);
        for (size_t i = j * k + 1; i < L && i < (j + 1) * k; i++)
            if (x[i] > y[j]) y[j] = x[i], idx[j] = (int32_t)i;
    }
}

static void check_maxpool(fc_backend *be, size_t B, size_t L, size_t k) {
    size_t n_out = (L + k - 1) / k;
    float *x = randu(B * L, 21 + L + k, -1, 1), *y = filled(B * n_out, NAN);
    float *ry = malloc(n_out * sizeof *ry), *dy = randu(B * n_out, 22, -1, 1);
    float *dx = filled(B * L, NAN);
    int32_t *idx = malloc(B * n_out * sizeof *idx), *ridx = malloc(n_out * sizeof *ridx);
    x[0] = x[1] = 5.0f; /* a tie: the first index wins */
    be->maxpool1d_forward(be, y, idx, x, B, L, k);
    be->maxpool1d_backward(be, dx, dy, idx, B, L, k);
    size_t bad = 0;
    for (size_t r = 0; r < B; r++) {
        ref_maxpool_row(x + r * L, L, k, ry, ridx);
        for (size_t j = 0; j < n_out; j++)
            bad += y[r * n_out + j] != ry[j] || idx[r * n_out + j] != ridx[j];
        for (size_t i = 0; i < L; i++) {
            float want = 0.0f;
            for (size_t j = 0; j < n_out; j++)
                if ((size_t)ridx[j] == i) want = dy[r * n_out + j];
            bad += dx[r * L + i] != want;
        }
    }
    CHECK_MSG(bad == 0, "maxpool B=%zu L=%zu k=%zu: %zu mismatches", B, L, k, bad);
    free(x), free(y), free(ry), free(dy), free(dx), free(idx), free(ridx);
}

static void test_maxpool(fc_backend *be) {
    check_maxpool(be, 3, 10, 3);   /* last window holds 1 element */
    check_maxpool(be, 3, 11, 3);   /* last window holds 2 */
    check_maxpool(be, 2, 9, 3);    /* exact */
    check_maxpool(be, 2, 7, 1);    /* identity */
    check_maxpool(be, 2, 3, 5);    /* one partial window */
    check_maxpool(be, 1024, 96, 2); /* large enough for the parallel path */
    /* NaN propagates and, as in torch's kernel, the last NaN's index is kept;
     * -inf everywhere keeps the window's first index. */
    float x[8] = {1, NAN, 3, NAN, -INFINITY, -INFINITY, -INFINITY, 2}, y[3];
    int32_t idx[3];
    be->maxpool1d_forward(be, y, idx, x, 1, 8, 4);
    CHECK(isnan(y[0]) && idx[0] == 3);
    CHECK(y[1] == 2.0f && idx[1] == 7);
    be->maxpool1d_forward(be, y, idx, x + 4, 1, 3, 3);
    CHECK(y[0] == -INFINITY && idx[0] == 0);
}

/* ---- interpolation ---- */

/* Produced once with torch 2.x:
 *   t = torch.tensor([[x]], requires_grad=True)
 *   y = F.interpolate(t, size=n_out, mode="linear", align_corners=False)
 *   y.backward(0.25 * torch.arange(1, n_out + 1).reshape(1, 1, n_out))
 * printing y and t.grad with %.9g. */
typedef struct {
    size_t n_in, n_out;
    float x[8], y[12], dx[8];
} interp_case;

static const interp_case interp_cases[] = {
    {3, 12, {1, -2, 4},
     {1, 1, 0.625f, -0.125f, -0.875f, -1.625f, -1.25f, 0.25f, 1.75f, 3.25f, 4, 4},
     {2.6875f, 6.5f, 10.3125f}},
    {1, 5, {3.5f}, {3.5f, 3.5f, 3.5f, 3.5f, 3.5f}, {3.75f}},
    {4, 4, {1, 2.5f, -3, 7}, {1, 2.5f, -3, 7}, {0.25f, 0.5f, 0.75f, 1}},
    {5, 7, {0.5f, -1, 2, 3, -4},
     {0.5f, -0.357142806f, -0.142856836f, 2, 2.71428585f, -2.38418579e-07f, -4},
     {0.464285702f, 0.821428537f, 1.57142854f, 1.75000012f, 2.39285707f}},
    {7, 3, {1, 2, 3, 4, 5, 6, 7}, {1.66666663f, 4, 6.33333302f},
     {0.0833333433f, 0.166666657f, 0, 0.5f, 0, 0.500000238f, 0.249999762f}},
};

static void check_interp(fc_backend *be, const interp_case *c) {
    enum { LD = 16, B = 2 };
    float x[B * LD], y[B * LD], dy[B * LD], dx[B * LD];
    for (size_t r = 0; r < B; r++) {
        for (size_t i = 0; i < LD; i++) x[r * LD + i] = dx[r * LD + i] = y[r * LD + i] = 99.0f;
        for (size_t i = 0; i < c->n_in; i++) x[r * LD + i] = c->x[i] * (float)(r + 1);
        for (size_t j = 0; j < c->n_out; j++) dy[r * LD + j] = 0.25f * (float)(j + 1);
    }
    be->interp_linear_forward(be, y, LD, x, LD, B, c->n_in, c->n_out);
    be->interp_linear_backward(be, dx, LD, dy, LD, B, c->n_in, c->n_out);
    for (size_t r = 0; r < B; r++) {
        for (size_t j = 0; j < c->n_out; j++)
            CHECK_CLOSE(y[r * LD + j], c->y[j] * (float)(r + 1), 1e-7, 1e-6);
        for (size_t i = 0; i < c->n_in; i++) CHECK_CLOSE(dx[r * LD + i], c->dx[i], 1e-7, 1e-6);
        CHECK(y[r * LD + c->n_out] == 99.0f && dx[r * LD + c->n_in] == 99.0f);
    }
}

/* ---- losses ---- */

static void test_masked_loss(fc_backend *be) {
    /* d = yhat - y = {1, 0, -2, 3}; mask sum 2.5.
     * MAE: (1*1 + 1*0 + 0.5*2 + 0*3) / 2.5 = 0.8; grad = sign(d) mask / 2.5.
     * MSE: (1 + 0 + 0.5*4 + 0) / 2.5 = 1.2;       grad = 2 d mask / 2.5. */
    float yhat[4] = {1, 2, 3, 4}, y[4] = {0, 2, 5, 1}, mask[4] = {1, 1, 0.5f, 0}, g[4];
    double loss = -1;
    fc_backend_masked_loss(be, &loss, g, 2.0f, yhat, y, mask, 4, 0);
    CHECK_CLOSE(loss, 0.8, 1e-12, 1e-7);
    float mae_grad[4] = {0.8f, 0.0f, -0.4f, 0.0f}; /* x grad_scale 2 */
    for (int i = 0; i < 4; i++) CHECK_CLOSE(g[i], mae_grad[i], 1e-7, 1e-6);
    fc_backend_masked_loss(be, &loss, g, 1.0f, yhat, y, mask, 4, 1);
    CHECK_CLOSE(loss, 1.2, 1e-12, 1e-7);
    float mse_grad[4] = {0.8f, 0.0f, -0.8f, 0.0f};
    for (int i = 0; i < 4; i++) CHECK_CLOSE(g[i], mse_grad[i], 1e-7, 1e-6);
    /* No observed point: loss 0 and gradient 0 (neuralforecast's _divide_no_nan). */
    float none[4] = {0, 0, 0, 0}, gn[4] = {NAN, NAN, NAN, NAN};
    fc_backend_masked_loss(be, &loss, gn, 1.0f, yhat, y, none, 4, 0);
    CHECK(loss == 0.0 && gn[0] == 0.0f && gn[3] == 0.0f);
    fc_backend_masked_loss(be, &loss, NULL, 1.0f, yhat, y, mask, 4, 0); /* no gradient asked */
    CHECK_CLOSE(loss, 0.8, 1e-12, 1e-7);
}

/* Large inputs take the blocked parallel path; check against a double loop
 * and that a 1-thread backend gives the same bits. */
static void test_reductions_large(fc_backend *be, fc_backend *be1) {
    size_t n = 1000003;
    float *yhat = randu(n, 31, -2, 2), *y = randu(n, 32, -2, 2), *mask = randu(n, 33, 0, 1);
    double want = 0, msum = 0, ss = 0, loss, loss1, sq, sq1;
    for (size_t i = 0; i < n; i++) {
        double d = (double)yhat[i] - y[i];
        want += mask[i] * d * d, msum += mask[i], ss += (double)yhat[i] * yhat[i];
    }
    fc_backend_masked_loss(be, &loss, NULL, 1.0f, yhat, y, mask, n, 1);
    fc_backend_masked_loss(be1, &loss1, NULL, 1.0f, yhat, y, mask, n, 1);
    CHECK_CLOSE(loss, want / msum, 0, 1e-6);
    CHECK_MSG(loss == loss1, "masked_loss differs across thread counts: %.17g vs %.17g", loss, loss1);
    be->sum_squares(be, &sq, yhat, n);
    be1->sum_squares(be1, &sq1, yhat, n);
    CHECK_CLOSE(sq, ss, 0, 1e-12);
    CHECK(sq == sq1);
    free(yhat), free(y), free(mask);
}

/* ---- Adam ---- */

/* Produced once with torch 2.x (torch.optim.Adam, CPU, defaults otherwise):
 *   p = nn.Parameter(torch.tensor(p0)); opt = Adam([p], lr, betas, eps)
 *   for g in (g1, g2): p.grad = torch.tensor(g); opt.step(); print p, exp_avg, exp_avg_sq
 * with %.9g, p0 = {0.5, -1, 2, 0.00099}, g1 = {0.1, -0.2, 0, 1.3},
 * g2 = {0.3, 0.05, -1.5, -0.25}. p0[3] nearly cancels with the first update,
 * which makes a 1-ulp error in the step size visible.
 * Config A: lr=1e-3, betas=(0.9, 0.999), eps=1e-8.
 * Config B: lr=0.05, betas=(0.5, 0.9), eps=1e-6 (the w >= 0.5 lerp form).
 * Our element body reproduces torch's CPU arithmetic, so equality is exact. */
typedef struct {
    float lr, b1, b2, eps;
    float p1[4], p2[4], m2[4], v2[4];
} adam_case;

static const adam_case adam_cases[] = {
    {0.001f, 0.9f, 0.999f, 1e-08f,
     {0.499000013f, -0.999000013f, 2.0f, -9.99984331e-06f},
     {0.498082221f, -0.998530567f, 2.0007441f, -0.000527393539f},
     {0.0390000045f, -0.0130000012f, -0.150000006f, 0.0919999927f},
     {9.99900076e-05f, 4.24600039e-05f, 0.0022499999f, 0.00175080996f}},
    {0.05f, 0.5f, 0.9f, 1e-06f,
     {0.450000495f, -0.950000226f, 2.0f, -0.0490099639f},
     {0.398890704f, -0.938291967f, 2.04594684f, -0.0636151135f},
     {0.175000012f, -0.0250000022f, -0.75f, 0.199999988f},
     {0.00990000088f, 0.00385000021f, 0.225000009f, 0.158349976f}},
};

static void check_adam(fc_backend *be, const adam_case *c) {
    float p[4] = {0.5f, -1.0f, 2.0f, 0.00099f}, m[4] = {0}, v[4] = {0};
    float g1[4] = {0.1f, -0.2f, 0.0f, 1.3f}, g2[4] = {0.3f, 0.05f, -1.5f, -0.25f};
    be->adam_step(be, p, g1, m, v, 4, c->lr, c->b1, c->b2, c->eps, 0.0f, 0, 1);
    for (int i = 0; i < 4; i++) CHECK_MSG(p[i] == c->p1[i], "step 1 p[%d] %.9g vs torch %.9g", i, p[i], c->p1[i]);
    be->adam_step(be, p, g2, m, v, 4, c->lr, c->b1, c->b2, c->eps, 0.0f, 0, 2);
    for (int i = 0; i < 4; i++) {
        CHECK_MSG(p[i] == c->p2[i], "step 2 p[%d] %.9g vs torch %.9g", i, p[i], c->p2[i]);
        CHECK_MSG(m[i] == c->m2[i], "step 2 m[%d] %.9g vs torch %.9g", i, m[i], c->m2[i]);
        CHECK_MSG(v[i] == c->v2[i], "step 2 v[%d] %.9g vs torch %.9g", i, v[i], c->v2[i]);
    }
}

/* With weight decay: python/make_adam_fixtures.py's rows (torch 2.15,
 * torch.optim.AdamW and Adam with weight_decay, CPU): three steps from
 * adam_case's p0 with its g1, g2 and g3 below; p after each step, m and v
 * after the last. Equality is exact, as without decay. */
typedef struct {
    float lr, b1, b2, eps, wd;
    int kind;   /* fc_optimizer_kind */
    float p[3][4], m3[4], v3[4];
} adam_decay_case;

static const adam_decay_case adam_decay_cases[] = {
    {0.001f, 0.9f, 0.999f, 1e-08f, 0.01f, FC_OPTIMIZER_ADAMW,
     {{0.498995006f, -0.998989999f, 1.99997997f, -1.00097386e-05f},
      {0.498072207f, -0.99851054f, 2.00070405f, -0.000527403317f},
      {0.498357505f, -0.998137653f, 2.00107503f, -0.000936958473f}},
     {-0.034899991f, -0.0117000006f, -0.0950000063f, 0.0847999901f},
     {0.000589890056f, 4.2417545e-05f, 0.00240774988f, 0.00174945919f}},
    {0.05f, 0.9f, 0.999f, 1e-08f, 0.1f, FC_OPTIMIZER_ADAMW,
     {{0.44749999f, -0.944999993f, 1.99000001f, -0.0490149483f},
      {0.399373442f, -0.916801631f, 2.01725674f, -0.0746395588f},
      {0.411890447f, -0.894072592f, 2.02672553f, -0.0947443843f}},
     {-0.034899991f, -0.0117000006f, -0.0950000063f, 0.0847999901f},
     {0.000589890056f, 4.2417545e-05f, 0.00240774988f, 0.00174945919f}},
    {0.05f, 0.5f, 0.9f, 1e-06f, 0.1f, FC_OPTIMIZER_ADAM,
     {{0.450000346f, -0.950000167f, 1.95000029f, -0.0490099601f},
      {0.39829129f, -0.918905675f, 1.99198484f, -0.0634256601f},
      {0.426555991f, -0.888017058f, 1.99209678f, -0.0717403442f}},
     {-0.225085407f, -0.094695285f, -0.00165075064f, 0.105615832f},
     {0.0561173074f, 0.00831663795f, 0.192416131f, 0.14277719f}},
};

static void check_adam_decay(fc_backend *be, const adam_decay_case *c) {
    float p[4] = {0.5f, -1.0f, 2.0f, 0.00099f}, m[4] = {0}, v[4] = {0};
    const float g[3][4] = {{0.1f, -0.2f, 0.0f, 1.3f}, {0.3f, 0.05f, -1.5f, -0.25f}, {-0.7f, 0.0f, 0.4f, 0.02f}};
    for (int t = 0; t < 3; t++) {
        be->adam_step(be, p, g[t], m, v, 4, c->lr, c->b1, c->b2, c->eps, c->wd, c->kind, t + 1);
        for (int i = 0; i < 4; i++)
            CHECK_MSG(p[i] == c->p[t][i], "%s wd %g step %d p[%d] %.9g vs torch %.9g",
                      c->kind == FC_OPTIMIZER_ADAMW ? "AdamW" : "Adam", (double)c->wd, t + 1, i, p[i], c->p[t][i]);
    }
    for (int i = 0; i < 4; i++) {
        CHECK_MSG(m[i] == c->m3[i], "step 3 m[%d] %.9g vs torch %.9g", i, m[i], c->m3[i]);
        CHECK_MSG(v[i] == c->v3[i], "step 3 v[%d] %.9g vs torch %.9g", i, v[i], c->v3[i]);
    }
}

/* ---- small element-wise entries ---- */

static void test_elementwise(fc_backend *be) {
    float x[2 * 5] = {1, 2, 3, 9, 9, 4, 5, 6, 9, 9}, f[2 * 4];
    be->flip_rows(be, f, 4, x, 5, 2, 3);
    CHECK(f[0] == 3 && f[1] == 2 && f[2] == 1 && f[4] == 6 && f[5] == 5 && f[6] == 4);
    be->flip_rows(be, x, 5, x, 5, 2, 4); /* in place */
    CHECK(x[0] == 9 && x[1] == 3 && x[3] == 1 && x[4] == 9 && x[5] == 9 && x[8] == 4);
    float ya[2 * 3] = {1, 2, 9, 3, 4, 9}, xa[2 * 2] = {10, 20, 30, 40};
    be->axpby_rows(be, ya, 3, 0.5f, xa, 2, 2.0f, 2, 2);
    CHECK(ya[0] == 7 && ya[1] == 14 && ya[2] == 9 && ya[3] == 21 && ya[4] == 28);
    float yn[2] = {NAN, NAN};
    be->axpby_rows(be, yn, 2, 2.0f, xa, 2, 0.0f, 1, 2); /* beta 0 ignores y */
    CHECK(yn[0] == 20 && yn[1] == 40);
    float ym[4] = {1, 2, 3, 4}, mm[6] = {2, 0, 9, -1, 3, 9};
    be->mul_rows(be, ym, 2, mm, 3, 2, 2);
    CHECK(ym[0] == 2 && ym[1] == 0 && ym[2] == -3 && ym[3] == 12);
    float src[2 * 3] = {1, 7, 2, 3, -4, 5}, yb[2 * 4];
    be->broadcast_col(be, yb, src, 3, 1, 2, 4);
    CHECK(yb[0] == 7 && yb[3] == 7 && yb[4] == -4 && yb[7] == -4);
    float acc[2 * 3] = {0, 1, 0, 0, 2, 0}, d[2 * 2] = {1, 2, 3, 4};
    be->sum_rows_into_col(be, acc, 3, 1, d, 2, 2);
    CHECK(acc[1] == 4 && acc[4] == 9 && acc[0] == 0 && acc[5] == 0);
    float s[3] = {1, -2, 3};
    be->scale(be, s, -0.5f, 3);
    CHECK(s[0] == -0.5f && s[1] == 1.0f && s[2] == -1.5f);
    double ssq;
    be->sum_squares(be, &ssq, s, 3);
    CHECK_CLOSE(ssq, 3.5, 0, 1e-12);
    be->fill(be, s, 2.5f, 3);
    CHECK(s[0] == 2.5f && s[2] == 2.5f);
}

static void test_memory(fc_backend *be) {
    float *p = be->alloc(be, 1000 * sizeof(float)), host[3] = {1, 2, 3}, back[3];
    CHECK(p != NULL && ((uintptr_t)p & 63) == 0);
    be->to_device(be, p, host, sizeof host);
    be->to_host(be, back, p, sizeof back);
    be->sync(be);
    CHECK(back[0] == 1 && back[2] == 3);
    be->release(be, p);
#ifndef __SANITIZE_ADDRESS__ /* ASan aborts on impossible sizes instead of returning NULL */
    CHECK(be->alloc(be, SIZE_MAX / 2) == NULL);
    CHECK_CONTAINS(fc_last_error(), "bytes");
#endif
}

int main(void) {
    fc_backend *be = NULL, *be1 = NULL;
    CHECK(fc_backend_cpu_create(-1, &be) == FC_ERR_INVALID && be == NULL);
    CHECK_CONTAINS(fc_last_error(), "threads = -1");
    CHECK(fc_backend_cpu_create(0, &be) == FC_OK && be != NULL);
    CHECK(fc_backend_cpu_create(1, &be1) == FC_OK && be1 != NULL);
    if (!be || !be1) return CHECK_DONE();
    CHECK(be->threads >= 1 && be1->threads == 1);
    test_memory(be);
    test_gemm(be);
    test_maxpool(be);
    for (size_t i = 0; i < sizeof interp_cases / sizeof *interp_cases; i++)
        check_interp(be, &interp_cases[i]);
    test_masked_loss(be);
    test_reductions_large(be, be1);
    for (size_t i = 0; i < sizeof adam_cases / sizeof *adam_cases; i++) check_adam(be, &adam_cases[i]);
    for (size_t i = 0; i < sizeof adam_decay_cases / sizeof *adam_decay_cases; i++)
        check_adam_decay(be, &adam_decay_cases[i]);
    test_elementwise(be);
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    CHECK(be == NULL);
    return CHECK_DONE();
}
