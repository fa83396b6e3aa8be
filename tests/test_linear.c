/* The CPU backend's dense layer (be->linear_forward / linear_backward)
 * against independent truth: naive double-precision loops over the same
 * inputs (fp32), or over the inputs rounded by kernels/lowp.h (bf16, fp16:
 * the products of rounded values are exact, so only fp32 accumulation
 * separates the backend from the reference); the fused ReLU-mask + bias
 * gradient pass against a mask applied by hand (torch's threshold_backward)
 * followed by the activation-free backward; the low-precision copies
 * (x_low, dy_low) against the rounding bodies; the error paths; the
 * primitive cache against its counter; the bias gradient across thread
 * counts; and the process's thread count after the OpenMP and oneDNN work. */
#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "backend/cpu/cpu_internal.h"
#include "check.h"
#include "test_arrays.h"
#include "core/error.h"
#include "core/rng.h"
#include "kernels/lowp.h"

#define GUARD 64          /* bytes past every low buffer that must stay untouched */
#define GUARD_BYTE 0xab

static size_t count_bits_differ(const float *a, const float *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += fc_f32_bits(a[i]) != fc_f32_bits(b[i]);
    return d;
}

/* Count of elements with |got - want| > tol * scale[i] (scale: the sum of
 * |terms|, the natural error scale of a dot product), over every `step`-th
 * row of a (rows, cols) matrix: the naive references compute only those, so
 * the large shapes stay fast. */
static size_t count_bad(const float *got, const double *want, const double *scale, size_t rows,
                        size_t cols, size_t step, double tol, double *max_rel) {
    size_t bad = 0;
    *max_rel = 0;
    for (size_t r = 0; r < rows; r += step)
        for (size_t i = r * cols; i < (r + 1) * cols; i++) {
            double err = fabs((double)got[i] - want[i]) / (scale[i] > 1e-30 ? scale[i] : 1e-30);
            if (!(err <= tol)) bad++;
            if (err > *max_rel || err != err) *max_rel = err;
        }
    return bad;
}

/* ---- rounding of the references ---- */

typedef float (*round_fn)(float);
static float round_none(float x) { return x; }
static float round_bf16(float x) { return fc_round_bf16(x); }
static float round_f16(float x) { return fc_round_f16(x); }
static round_fn rounder(fc_precision p) {
    return p == FC_PREC_BF16 ? round_bf16 : p == FC_PREC_FP16 ? round_f16 : round_none;
}

/* torch.ops.aten.threshold_backward(dy, y, 0), written independently of
 * kernels/activation.h: zero where y <= 0, pass where y > 0 or y is NaN. */
static float hand_mask(float dy, float y) {
    if (isnan(y)) return dy;
    return y > 0.0f ? dy : 0.0f;
}

/* ---- low-precision buffers with a guard zone ---- */

static void *low_alloc(const fc_backend *be, fc_precision prec, size_t n) {
    size_t bytes = n * be->low_bytes(be, prec);
    unsigned char *p = malloc(bytes + GUARD);
    memset(p, GUARD_BYTE, bytes + GUARD);
    return p;
}

static int guard_intact(const fc_backend *be, fc_precision prec, const void *p, size_t n) {
    const unsigned char *g = (const unsigned char *)p + n * be->low_bytes(be, prec);
    for (size_t i = 0; i < GUARD; i++)
        if (g[i] != GUARD_BYTE) return 0;
    return 1;
}

/* Bytes of a bf16 low-precision value: 2, or 4 where bf16 is carried in
 * fp32 (a CPU without AVX-512: fc_cpu_bf16_native). */
static size_t bf16_bytes = 2;

/* Elements of the low buffer lo (n) that are not exactly src rounded to
 * prec: bf16 as 2-byte patterns (or rounded fp32 values where carried),
 * fp16 on CPU as fp32 values. */

static size_t low_mismatches(fc_precision prec, const void *lo, const float *src, size_t n) {
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (prec == FC_PREC_BF16 && bf16_bytes == 4) {
            float v;
            memcpy(&v, (const char *)lo + 4 * i, 4);
            bad += fc_f32_bits(v) != fc_f32_bits(fc_round_bf16(src[i]));
        } else if (prec == FC_PREC_BF16) {
            uint16_t h;
            memcpy(&h, (const char *)lo + 2 * i, 2);
            bad += h != fc_bf16_from_f32(src[i]);
        } else {
            float v;
            memcpy(&v, (const char *)lo + 4 * i, 4);
            bad += fc_f32_bits(v) != fc_f32_bits(fc_round_f16(src[i]));
        }
    }
    return bad;
}

/* ---- one layer's inputs ---- */

typedef struct {
    fc_linear_call c;
    float *x, *w, *b, *y;
    void *x_low, *w_low;
} layer;

static layer layer_make(fc_backend *be, size_t B, size_t I, size_t O, int bias, fc_activation act,
                        fc_precision prec, uint64_t seed) {
    layer L = {0};
    L.x = randu(B * I, seed, -1, 1);
    L.w = randu(O * I, seed + 1, -1, 1);
    L.b = bias ? randu(O, seed + 2, -1, 1) : NULL;
    L.y = filled(B * O, NAN);
    if (prec != FC_PREC_FP32) {
        L.x_low = low_alloc(be, prec, B * I);
        L.w_low = low_alloc(be, prec, O * I);
        be->round_to(be, L.w_low, L.w, O * I, prec);   /* the caller's duty */
    }
    L.c = (fc_linear_call){.B = B, .I = I, .O = O, .act = act, .prec = prec, .x = L.x,
                           .x_low = L.x_low, .w = L.w, .w_low = L.w_low, .b = L.b, .y = L.y};
    return L;
}

static void layer_free(layer *L) {
    free(L->x), free(L->w), free(L->b), free(L->y), free(L->x_low), free(L->w_low);
}

/* ---- forward ---- */

/* Every `step`-th row of y = act(rnd(x) . rnd(w)^T + b) in double, with the
 * sum of |terms| as the error scale. */
static void ref_linear(double *y, double *scale, const layer *L, int relu, size_t step,
                       round_fn rnd) {
    size_t B = L->c.B, I = L->c.I, O = L->c.O;
    for (size_t r = 0; r < B; r += step)
        for (size_t o = 0; o < O; o++) {
            double s = L->b ? L->b[o] : 0.0, a = L->b ? fabs(L->b[o]) : 0.0;
            for (size_t i = 0; i < I; i++) {
                double t = (double)rnd(L->x[r * I + i]) * rnd(L->w[o * I + i]);
                s += t, a += fabs(t);
            }
            y[r * O + o] = relu && s < 0 ? 0.0 : s;
            scale[r * O + o] = a;
        }
}

/* In low precision: x_low is exactly x rounded (guard intact), w_low what
 * round_to made of w, and y is far from the unrounded product (so the
 * rounding happened): the fp32 arithmetic stays within tol of the
 * unrounded reference everywhere, the rounded inputs leave it in 25-55% of
 * the elements here (relative to sum |terms|, where term errors cancel). */
static void check_forward_low(fc_backend *be, const layer *L, const double *scale, size_t step,
                              double tol) {
    size_t B = L->c.B, I = L->c.I, O = L->c.O;
    fc_precision p = L->c.prec;
    CHECK_MSG(low_mismatches(p, L->x_low, L->x, B * I) == 0, "%s x_low is not x rounded",
              fc_precision_name(p));
    CHECK_MSG(guard_intact(be, p, L->x_low, B * I), "%s forward wrote past x_low",
              fc_precision_name(p));
    CHECK_MSG(low_mismatches(p, L->w_low, L->w, O * I) == 0, "%s round_to(w) is not w rounded",
              fc_precision_name(p));
    double *ref32 = calloc(B * O, sizeof *ref32), *s32 = calloc(B * O, sizeof *s32), mr;
    ref_linear(ref32, s32, L, L->c.act == FC_ACT_RELU, step, round_none);
    size_t far = count_bad(L->y, ref32, scale, B, O, step, tol, &mr), rows = (B + step - 1) / step;
    CHECK_MSG(far > rows * O / 10, "%s forward is farther than %g from the fp32 result in only "
              "%zu of %zu (max rel %g): no rounding?",
              fc_precision_name(p), tol, far, rows * O, mr);
    free(ref32), free(s32);
}

static void check_forward(fc_backend *be, fc_precision prec, size_t B, size_t I, size_t O, int bias,
                          fc_activation act, size_t step, double tol) {
    layer L = layer_make(be, B, I, O, bias, act, prec, 1 + 10 * (uint64_t)prec);
    double *ref = calloc(B * O, sizeof *ref), *scale = calloc(B * O, sizeof *scale), mr;
    CHECK(be->linear_forward(be, &L.c) == FC_OK);
    ref_linear(ref, scale, &L, act == FC_ACT_RELU, step, rounder(prec));
    size_t bad = count_bad(L.y, ref, scale, B, O, step, tol, &mr);
    CHECK_MSG(bad == 0, "%s linear_forward B=%zu I=%zu O=%zu bias=%d act=%d: %zu bad, max rel %g",
              fc_precision_name(prec), B, I, O, bias, (int)act, bad, mr);
    if (prec != FC_PREC_FP32) check_forward_low(be, &L, scale, step, tol);
    if (act == FC_ACT_RELU) {
        size_t zeros = 0;
        for (size_t i = 0; i < B * O; i++) zeros += L.y[i] == 0.0f;
        CHECK_MSG(zeros > 0 && zeros < B * O, "ReLU must clip some but not all (%zu)", zeros);
    }
    layer_free(&L);
    free(ref), free(scale);
}

/* ---- backward ---- */

typedef struct {
    double *dx, *dxs, *dw, *dws, *db, *dbs;
} ref_grads;

/* dx = rnd(g) . rnd(w), dw = dw0 + rnd(g)^T . rnd(x), db = db0 + sum g, with
 * g the masked dy (every `step`-th row of dx and dw). */
static void ref_linear_backward(ref_grads *R, const float *g, const float *x, const float *w,
                                const float *dw0, const float *db0, size_t B, size_t I, size_t O,
                                size_t step, round_fn rnd) {
    for (size_t r = 0; r < B; r += step)
        for (size_t i = 0; i < I; i++) {
            double s = 0, a = 0;
            for (size_t o = 0; o < O; o++) {
                double t = (double)rnd(g[r * O + o]) * rnd(w[o * I + i]);
                s += t, a += fabs(t);
            }
            R->dx[r * I + i] = s, R->dxs[r * I + i] = a;
        }
    for (size_t o = 0; o < O; o++) {
        for (size_t i = 0; i < I && o % step == 0; i++) {
            double s = dw0[o * I + i], a = fabs(s);
            for (size_t r = 0; r < B; r++) {
                double t = (double)rnd(g[r * O + o]) * rnd(x[r * I + i]);
                s += t, a += fabs(t);
            }
            R->dw[o * I + i] = s, R->dws[o * I + i] = a;
        }
        double s = db0[o], a = fabs(s);
        for (size_t r = 0; r < B; r++) s += g[r * O + o], a += fabs(g[r * O + o]);
        R->db[o] = s, R->dbs[o] = a;
    }
}

static ref_grads ref_alloc(size_t B, size_t I, size_t O) {
    return (ref_grads){calloc(B * I, 8), calloc(B * I, 8), calloc(O * I, 8), calloc(O * I, 8),
                       calloc(O, 8), calloc(O, 8)};
}

static void ref_free(ref_grads *R) {
    free(R->dx), free(R->dxs), free(R->dw), free(R->dws), free(R->db), free(R->dbs);
}

/* The call's dy is overwritten with the mask applied, and dy_low holds it
 * rounded (guard intact). */
static void check_dy_out(fc_backend *be, const layer *L, const float *dy, const float *masked,
                         const void *dy_low) {
    size_t n = L->c.B * L->c.O;
    fc_precision p = L->c.prec;
    CHECK_MSG(count_bits_differ(dy, masked, n) == 0, "%s act=%d: dy is not the masked gradient",
              fc_precision_name(p), (int)L->c.act);
    if (p == FC_PREC_FP32) return;
    CHECK_MSG(low_mismatches(p, dy_low, masked, n) == 0, "%s dy_low is not the masked dy rounded",
              fc_precision_name(p));
    CHECK_MSG(guard_intact(be, p, dy_low, n), "%s backward wrote past dy_low",
              fc_precision_name(p));
}

static void check_backward(fc_backend *be, fc_precision prec, size_t B, size_t I, size_t O,
                           fc_activation act, size_t step, double tol) {
    const char *pn = fc_precision_name(prec);
    layer L = layer_make(be, B, I, O, 1, act, prec, 100 + 10 * (uint64_t)prec);
    CHECK(be->linear_forward(be, &L.c) == FC_OK);   /* y for the mask, x_low for dw */
    float *dy = randu(B * O, 4, -1, 1), *masked = malloc(B * O * sizeof *masked);
    for (size_t i = 0; i < B * O; i++)
        masked[i] = act == FC_ACT_RELU ? hand_mask(dy[i], L.y[i]) : dy[i];
    float *dw0 = randu(O * I, 8, -1, 1), *db0 = randu(O, 9, -1, 1), *x0 = copy_of(L.x, B * I);
    float *dw = copy_of(dw0, O * I), *db = copy_of(db0, O), *dx = filled(B * I, NAN);
    void *dy_low = prec == FC_PREC_FP32 ? NULL : low_alloc(be, prec, B * O);
    /* Low precision: backward must read x through x_low (forward's copy). */
    if (prec != FC_PREC_FP32)
        for (size_t i = 0; i < B * I; i++) L.x[i] = 1000.0f;
    fc_linear_call bc = L.c;
    if (act == FC_ACT_NONE) bc.y = NULL;   /* as the MLP's last layer: no mask, no y */
    CHECK(be->linear_backward(be, &bc, dy, dy_low, dx, dw, db) == FC_OK);
    check_dy_out(be, &L, dy, masked, dy_low);
    ref_grads R = ref_alloc(B, I, O);
    ref_linear_backward(&R, masked, x0, L.w, dw0, db0, B, I, O, step, rounder(prec));
    double mr;
    size_t bad = count_bad(dx, R.dx, R.dxs, B, I, step, tol, &mr);
    CHECK_MSG(bad == 0, "%s dx B=%zu I=%zu O=%zu act=%d: %zu bad, max rel %g", pn, B, I, O,
              (int)act, bad, mr);
    bad = count_bad(dw, R.dw, R.dws, O, I, step, tol, &mr);
    CHECK_MSG(bad == 0, "%s dw (+=) B=%zu I=%zu O=%zu act=%d: %zu bad, max rel %g", pn, B, I, O,
              (int)act, bad, mr);
    bad = count_bad(db, R.db, R.dbs, 1, O, 1, tol, &mr);
    CHECK_MSG(bad == 0, "%s db (+=) B=%zu O=%zu act=%d: %zu bad, max rel %g", pn, B, O, (int)act,
              bad, mr);
    /* A second call accumulates dw again; dx NULL and db NULL are skipped. */
    float *db1 = copy_of(db, O), *dx1 = copy_of(dx, B * I);
    CHECK(be->linear_backward(be, &bc, dy, dy_low, NULL, dw, NULL) == FC_OK);
    for (size_t i = 0; i < O * I; i++) R.dw[i] += R.dw[i] - dw0[i], R.dws[i] *= 2;
    bad = count_bad(dw, R.dw, R.dws, O, I, step, tol, &mr);
    CHECK_MSG(bad == 0, "%s dw twice: %zu bad, max rel %g", pn, bad, mr);
    CHECK(count_bits_differ(db, db1, O) == 0 && count_bits_differ(dx, dx1, B * I) == 0);
    ref_free(&R);
    layer_free(&L);
    free(dy), free(masked), free(dw0), free(db0), free(x0), free(dw), free(db), free(dx);
    free(dy_low), free(db1), free(dx1);
}

/* ---- fused mask + bias gradient vs the unfused sequence ---- */

/* Backward with act=RELU (the mask fused into the bias-gradient pass) and
 * the same backward with act=NONE on a dy masked by hand must agree: the
 * same matmuls run on the same masked values, and db sums the same values
 * in the same order, so every output is bit-identical. y gets a NaN, a -0,
 * a negative and a tiny positive by hand (a NaN output passes the gradient,
 * as torch's threshold_backward). */
static void check_fused(fc_backend *be, fc_precision prec, size_t B, size_t I, size_t O) {
    const char *pn = fc_precision_name(prec);
    layer L = layer_make(be, B, I, O, 1, FC_ACT_RELU, prec, 300 + (uint64_t)prec);
    CHECK(be->linear_forward(be, &L.c) == FC_OK);
    L.y[0] = NAN, L.y[1] = -0.0f, L.y[2] = -1.0f, L.y[3] = 1e-30f, L.y[O + 5] = NAN;
    float *dyA = randu(B * O, 5, -1, 1), *dyB = copy_of(dyA, B * O);
    for (size_t i = 0; i < B * O; i++) dyB[i] = hand_mask(dyB[i], L.y[i]);
    float *dw0 = randu(O * I, 6, -1, 1), *db0 = randu(O, 7, -1, 1);
    float *dwA = copy_of(dw0, O * I), *dwB = copy_of(dw0, O * I), *dbA = copy_of(db0, O);
    float *dbB = copy_of(db0, O), *dxA = filled(B * I, NAN), *dxB = filled(B * I, NAN);
    void *lowA = prec ? low_alloc(be, prec, B * O) : NULL;
    void *lowB = prec ? low_alloc(be, prec, B * O) : NULL;
    float *masked = copy_of(dyB, B * O);
    CHECK(be->linear_backward(be, &L.c, dyA, lowA, dxA, dwA, dbA) == FC_OK);
    fc_linear_call plain = L.c;
    plain.act = FC_ACT_NONE;
    CHECK(be->linear_backward(be, &plain, dyB, lowB, dxB, dwB, dbB) == FC_OK);
    CHECK_MSG(count_bits_differ(dyA, masked, B * O) == 0,
              "%s fused: dy written back is not the hand mask", pn);
    CHECK_MSG(dyA[0] != 0.0f && dyA[1] == 0.0f && dyA[2] == 0.0f && dyA[3] != 0.0f &&
                  dyA[O + 5] != 0.0f,
              "%s fused: the NaN / -0 / negative / tiny cases of y", pn);
    CHECK_MSG(count_bits_differ(dxA, dxB, B * I) == 0, "%s fused vs unfused: dx differs", pn);
    CHECK_MSG(count_bits_differ(dwA, dwB, O * I) == 0, "%s fused vs unfused: dw differs", pn);
    CHECK_MSG(count_bits_differ(dbA, dbB, O) == 0, "%s fused vs unfused: db differs", pn);
    if (prec)
        CHECK_MSG(memcmp(lowA, lowB, B * O * be->low_bytes(be, prec)) == 0, "%s: dy_low differs", pn);
    /* and db against the double sum of the hand-masked dy */
    size_t bad = 0;
    for (size_t o = 0; o < O; o++) {
        double s = db0[o], a = fabs(s);
        for (size_t r = 0; r < B; r++) s += masked[r * O + o], a += fabs(masked[r * O + o]);
        bad += !(fabs(dbA[o] - s) <= 1e-6 * a);
    }
    CHECK_MSG(bad == 0, "%s fused db vs double reference: %zu bad", pn, bad);
    layer_free(&L);
    free(dyA), free(dyB), free(dw0), free(db0), free(dwA), free(dwB), free(dbA), free(dbB);
    free(dxA), free(dxB), free(lowA), free(lowB), free(masked);
}

/* ---- fp16 overflow: what loss scaling relies on ---- */

/* dy = 70000 is past fp16's 65504: its rounded copy is inf, so the fp16
 * products give infinite dw (that row) and dx (that sample), which the
 * optimizer's finite check catches; bf16 and fp32 stay finite. */
static void check_overflow(fc_backend *be, fc_precision prec) {
    enum { B = 4, I = 3, O = 5 };
    layer L = layer_make(be, B, I, O, 1, FC_ACT_NONE, prec, 400);
    for (size_t i = 0; i < B * I; i++) L.x[i] = 0.25f + 0.125f * (float)i;   /* no zeros: inf * 0 */
    CHECK(be->linear_forward(be, &L.c) == FC_OK);
    float dy[B * O], dx[B * I], dw[O * I] = {0}, db[O] = {0};
    for (size_t i = 0; i < B * O; i++) dy[i] = 0.5f - 0.05f * (float)i;
    dy[1 * O + 2] = 70000.0f;
    void *dy_low = prec ? low_alloc(be, prec, B * O) : NULL;
    CHECK(be->linear_backward(be, &L.c, dy, dy_low, dx, dw, db) == FC_OK);
    size_t inf_dw = 0, inf_dx = 0, other = 0;
    for (size_t o = 0; o < O; o++)
        for (size_t i = 0; i < I; i++) {
            int nf = !isfinite(dw[o * I + i]);
            if (o == 2) inf_dw += isinf(dw[o * I + i]) != 0;   /* isinf: -1 for -inf */
            else other += nf;
        }
    for (size_t r = 0; r < B; r++)
        for (size_t i = 0; i < I; i++) {
            if (r == 1) inf_dx += isinf(dx[r * I + i]) != 0;
            else other += !isfinite(dx[r * I + i]);
        }
    for (size_t o = 0; o < O; o++) other += !isfinite(db[o]);   /* db is fp32 in every precision */
    if (prec == FC_PREC_FP16) {
        CHECK_MSG(inf_dw == I && inf_dx == I && other == 0,
                  "fp16 dy=70000: %zu/%d inf in dw's row, %zu/%d in dx's row, %zu other non-finite",
                  inf_dw, I, inf_dx, I, other);
        CHECK(isinf(((float *)dy_low)[1 * O + 2]));
    } else {
        CHECK_MSG(inf_dw == 0 && inf_dx == 0 && other == 0, "%s dy=70000 must stay finite",
                  fc_precision_name(prec));
    }
    CHECK(db[2] > 69999.0f && db[2] < 70001.0f);
    layer_free(&L);
    free(dy_low);
}

/* ---- errors ---- */

/* Each refusal is checked on a fresh message (fc_error_clear), so a stale
 * one cannot satisfy CHECK_CONTAINS. */
#define REFUSED(call, needle)                                                  \
    do {                                                                       \
        fc_error_clear();                                                      \
        CHECK((call) == FC_ERR_INVALID);                                       \
        CHECK_CONTAINS(fc_last_error(), needle);                               \
    } while (0)

static void test_errors(fc_backend *be) {
    layer L = layer_make(be, 3, 4, 2, 1, FC_ACT_RELU, FC_PREC_BF16, 500);
    float dy[6] = {0}, dx[12], dw[8] = {0}, db[2] = {0};
    uint16_t dy_low[6];
    fc_linear_call c = L.c;
    c.B = 0;
    REFUSED(be->linear_forward(be, &c), "B=0");
    REFUSED(be->linear_backward(be, &c, dy, dy_low, dx, dw, db), "B=0");
    c = L.c, c.I = 0;
    REFUSED(be->linear_forward(be, &c), "I=0");
    c = L.c, c.x_low = NULL;
    REFUSED(be->linear_forward(be, &c), "x_low");
    REFUSED(be->linear_backward(be, &c, dy, dy_low, dx, dw, db), "x_low");
    c = L.c, c.w_low = NULL;
    REFUSED(be->linear_forward(be, &c), "w_low");
    c = L.c, c.prec = FC_PREC_FP16;
    REFUSED(be->linear_backward(be, &c, dy, NULL, dx, dw, db), "dy_low");
    c = L.c, c.act = (fc_activation)7;
    REFUSED(be->linear_forward(be, &c), "activation");
    c = L.c, c.prec = (fc_precision)5;
    REFUSED(be->linear_forward(be, &c), "precision");
    /* nothing was written by the refused calls */
    CHECK(isnan(L.y[0]) && isnan(L.y[5]) && dw[0] == 0.0f && db[1] == 0.0f);
    CHECK(guard_intact(be, FC_PREC_BF16, L.x_low, 0));   /* x_low untouched from its start */
    layer_free(&L);
}

/* ---- primitive cache ---- */

/* One primitive per new (kind, shape, act, bias, bf16-or-not) of forward;
 * backward's two matmuls do not depend on act or bias; fp16 on CPU runs
 * fp32 products (of fp16 values), so it shares fp32's primitives. */
static void test_primitive_cache(fc_backend *be) {
    enum { B = 3, I = 11, O = 2 };
    layer L = layer_make(be, B, I, O, 1, FC_ACT_RELU, FC_PREC_FP32, 600);
    float dy[B * O] = {0}, dx[B * I], dw[O * I] = {0}, db[O] = {0};
    float dy_low[B * O];   /* big enough for both bf16 and fp16 on CPU */
    float x_low[B * I + 8], w_low[O * I];   /* as large as bf16 carried in fp32 needs */
    float x16[B * I], w16[O * I];
    size_t n0 = fc_backend_cpu_primitives_created(be);
#define CREATED() (fc_backend_cpu_primitives_created(be) - n0)
    fc_linear_call c = L.c;
    CHECK(be->linear_forward(be, &c) == FC_OK && CREATED() == 1);
    CHECK(be->linear_forward(be, &c) == FC_OK && CREATED() == 1);
    c.b = NULL;
    CHECK(be->linear_forward(be, &c) == FC_OK && CREATED() == 2);
    c = L.c, c.act = FC_ACT_NONE;
    CHECK(be->linear_forward(be, &c) == FC_OK && CREATED() == 3);
    CHECK(be->linear_backward(be, &c, dy, NULL, dx, dw, db) == FC_OK && CREATED() == 5);
    c = L.c;   /* ReLU, bias: same backward matmuls */
    CHECK(be->linear_backward(be, &c, dy, NULL, dx, dw, db) == FC_OK && CREATED() == 5);
    CHECK(be->linear_backward(be, &c, dy, NULL, NULL, dw, NULL) == FC_OK && CREATED() == 5);
    for (int rep = 0; rep < 3; rep++) {
        CHECK(be->linear_forward(be, &c) == FC_OK);
        CHECK(be->linear_backward(be, &c, dy, NULL, dx, dw, db) == FC_OK);
    }
    CHECK_MSG(CREATED() == 5, "steady state created %zu primitives", CREATED() - 5);
    /* bf16 builds oneDNN primitives of its own, unless it runs on fcast's
     * kernels (cpu_bf16_gemm.c), which need none */
    size_t bf16_fwd = strcmp(fc_backend_cpu_bf16_kernel_name(), "oneDNN") ? 0 : 1, bf16_all = 3 * bf16_fwd;
    /* (carried in fp32, bf16 runs the fp32 primitives: none of its own either) */
    c.prec = FC_PREC_BF16, c.x_low = x_low, c.w_low = w_low;
    be->round_to(be, w_low, L.w, O * I, FC_PREC_BF16);
    CHECK(be->linear_forward(be, &c) == FC_OK && CREATED() == 5 + bf16_fwd);
    CHECK(be->linear_backward(be, &c, dy, dy_low, dx, dw, db) == FC_OK && CREATED() == 5 + bf16_all);
    CHECK(be->linear_forward(be, &c) == FC_OK && CREATED() == 5 + bf16_all);
    c.prec = FC_PREC_FP16, c.x_low = x16, c.w_low = w16;
    be->round_to(be, w16, L.w, O * I, FC_PREC_FP16);
    CHECK(be->linear_forward(be, &c) == FC_OK && CREATED() == 5 + bf16_all);
    CHECK(be->linear_backward(be, &c, dy, dy_low, dx, dw, db) == FC_OK && CREATED() == 5 + bf16_all);
    c = L.c, c.B = B - 1;   /* a new batch size is a new shape */
    CHECK(be->linear_forward(be, &c) == FC_OK && CREATED() == 6 + bf16_all);
    c.B = 0;
    CHECK(be->linear_forward(be, &c) == FC_ERR_INVALID && CREATED() == 6 + bf16_all);
#undef CREATED
    layer_free(&L);
}

/* ---- determinism of the bias gradient ---- */

/* db is a column sum owned by one task per 64 columns, summed in row
 * order: the same bits for any thread count (B*O large enough for the
 * parallel loop). */
static void check_db_deterministic(fc_backend *be2, fc_backend *be1, fc_precision prec,
                                   fc_activation act) {
    enum { B = 300, I = 8, O = 200 };
    layer L = layer_make(be2, B, I, O, 1, act, prec, 700);
    CHECK(be2->linear_forward(be2, &L.c) == FC_OK);
    float *dy2 = randu(B * O, 41, -1, 1), *dy1 = copy_of(dy2, B * O);
    float *dw = filled(O * I, 0), *db2 = filled(O, 0), *db1 = filled(O, 0);
    void *low = prec ? low_alloc(be2, prec, B * O) : NULL;
    CHECK(be2->linear_backward(be2, &L.c, dy2, low, NULL, dw, db2) == FC_OK);
    CHECK(be1->linear_backward(be1, &L.c, dy1, low, NULL, dw, db1) == FC_OK);
    size_t diff = count_bits_differ(db2, db1, O);
    CHECK_MSG(diff == 0, "%s act=%d: db differs across thread counts in %zu columns",
              fc_precision_name(prec), (int)act, diff);
    CHECK(count_bits_differ(dy2, dy1, B * O) == 0);
    layer_free(&L);
    free(dy2), free(dy1), free(dw), free(db2), free(db1), free(low);
}

/* ---- threads ---- */

static size_t process_threads(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* A NaN reaching a fused ReLU comes out as 0 on every kernel path
 * (oneDNN's max(x, 0); the AMX write-out follows it), so results do not
 * depend on which kernels a machine runs. */
static void nan_through_relu(fc_backend *be) {
    for (int p = 0; p < FC_PREC_COUNT; p++) {
        float x[2 * 32], w[32 * 32], b[32] = {0}, y[2 * 32];
        uint16_t xl16[2 * 32], wl16[32 * 32];
        float xl32[2 * 32], wl32[32 * 32];
        for (int i = 0; i < 2 * 32; i++) x[i] = i % 3 ? 1.0f : NAN;
        for (int i = 0; i < 32 * 32; i++) w[i] = 0.5f;
        fc_linear_call c = {.B = 2, .I = 32, .O = 32, .act = FC_ACT_RELU, .prec = (fc_precision)p,
                            .x = x, .w = w, .b = b, .y = y};
        if (p == FC_PREC_BF16) c.x_low = xl16, c.w_low = wl16;
        if (p == FC_PREC_FP16) c.x_low = xl32, c.w_low = wl32;
        if (p != FC_PREC_FP32) be->round_to(be, (void *)c.w_low, w, 32 * 32, (fc_precision)p);
        CHECK(be->linear_forward(be, &c) == FC_OK);
        int zeros = 0;
        for (int i = 0; i < 2 * 32; i++) zeros += y[i] == 0.0f;
        CHECK_MSG(zeros == 2 * 32, "%s: %d of 64 NaN pre-activations became 0 after ReLU",
                  fc_precision_name((fc_precision)p), zeros);
    }
}

/* The bf16 kernel is the one FCAST_BF16_KERNEL asks for where it runs;
 * unasked, AMX where it runs, else what fc_cpu_bf16_pick makes of the
 * measured rates: carried in fp32 unless a 16-bit kernel beats fp32,
 * fcast's AVX512-BF16 kernel only when it beats oneDNN's by 1.3x. */
static void bf16_kernel_choice(void) {
    const char *want = getenv("FCAST_BF16_KERNEL"), *got = fc_backend_cpu_bf16_kernel_name();
    fc_bf16_choice m = fc_backend_cpu_bf16_choice();
    const fc_bf16_rates *r = &m.rates;
    printf("bf16 products: %s (%s; fcast's AMX kernel: %s)\n", got, m.reason, m.amx);
    if (m.measured) printf("  one thread: fp32 %.0f, oneDNN bf16 %.0f, fcast's AVX512-BF16 %.0f GFLOP/s\n", r->fp32, r->onednn, r->hand);
#if defined(__x86_64__)
    int has_bf16 = __builtin_cpu_supports("avx512bf16"), has_avx512 = __builtin_cpu_supports("avx512f");
#else
    int has_bf16 = 0, has_avx512 = 0;
#endif
    const char *carried = getenv("FCAST_BF16_CARRIED");
    int asked_carried = carried && !strcmp(carried, "1");
    if (asked_carried || !has_avx512) {   /* no bf16 kernel runs, whatever is asked */
        CHECK_MSG(!fc_cpu_bf16_native() && !strcmp(got, FC_BF16_KERNEL_CARRIED) && !m.measured, "got %s", got);
    } else if (want && !strcmp(want, "onednn")) {
        CHECK(!strcmp(got, "oneDNN") && !m.measured);
    } else if (want && !strcmp(want, "avx512bf16")) {
        CHECK_MSG(!strcmp(got, has_bf16 ? "fcast's AVX512-BF16" : "oneDNN"), "asked avx512bf16, got %s", got);
    } else if (!fc_backend_cpu_uses_amx()) {
        CHECK_MSG(m.measured, "the bf16 choice was not measured");
        static const char *names[] = {FC_BF16_KERNEL_CARRIED, "oneDNN", "fcast's AVX512-BF16"};
        const char *expect = names[fc_cpu_bf16_pick(r->fp32, r->onednn, has_bf16 ? r->hand : 0)];
        CHECK_MSG(!strcmp(got, expect), "%s after fp32 %.0f, oneDNN %.0f, fcast %.0f GFLOP/s", got, r->fp32,
                  r->onednn, r->hand);
        CHECK(fc_cpu_bf16_native() == (strcmp(got, FC_BF16_KERNEL_CARRIED) != 0));
    }
}

/* The rule itself, on the rates measured on the machines it was made for
 * (one thread, GFLOP/s: fp32, oneDNN bf16, fcast's AVX512-BF16). */
static void bf16_pick_rule(void) {
    CHECK(fc_cpu_bf16_pick(125, 78, 64) == FC_BF16_PATH_CARRIED);    /* Intel Xeon without usable AMX */
    CHECK(fc_cpu_bf16_pick(105, 205, 185) == FC_BF16_PATH_ONEDNN);   /* AMD Zen 4 */
    CHECK(fc_cpu_bf16_pick(100, 60, 130) == FC_BF16_PATH_HAND);      /* fcast's 2.2x oneDNN's, 1.3x fp32 */
    CHECK(fc_cpu_bf16_pick(100, 105, 0) == FC_BF16_PATH_CARRIED);    /* within the 1.1x margin of fp32 */
    CHECK(fc_cpu_bf16_pick(100, 115, 140) == FC_BF16_PATH_ONEDNN);   /* fcast's not 1.3x oneDNN's */
    CHECK(fc_cpu_bf16_pick(0, 0, 0) == FC_BF16_PATH_CARRIED);
}

int main(void) {
    fc_backend *be = NULL, *be1 = NULL;
    CHECK(fc_backend_cpu_create(2, &be) == FC_OK && be != NULL);
    CHECK(fc_backend_cpu_create(1, &be1) == FC_OK && be1 != NULL);
    if (!be || !be1) return CHECK_DONE();
    /* which bf16 path the checks below exercise on this machine */
    bf16_kernel_choice();
    bf16_pick_rule();
    bf16_bytes = be->low_bytes(be, FC_PREC_BF16);
    CHECK(be->low_bytes(be, FC_PREC_FP32) == 0 && bf16_bytes == (fc_cpu_bf16_native() ? 2 : sizeof(float)) &&
          be->low_bytes(be, FC_PREC_FP16) == sizeof(float));
    /* a. forward, fp32: odd shape every variant, and the N-HiTS shape */
    for (int act = 0; act < 2; act++)
        for (int bias = 0; bias < 2; bias++)
            check_forward(be, FC_PREC_FP32, 7, 13, 5, bias, (fc_activation)act, 1, 1e-5);
    check_forward(be, FC_PREC_FP32, 1024, 512, 512, 1, FC_ACT_RELU, 8, 1e-5);
    /* b. backward, fp32 (with and without the ReLU mask) */
    check_backward(be, FC_PREC_FP32, 7, 13, 5, FC_ACT_NONE, 1, 1e-5);
    check_backward(be, FC_PREC_FP32, 7, 13, 5, FC_ACT_RELU, 1, 1e-5);
    check_backward(be, FC_PREC_FP32, 1024, 512, 512, FC_ACT_NONE, 8, 1e-5);
    /* c. fused vs unfused (two strips of 64 columns; the parallel size) */
    for (int p = 0; p < FC_PREC_COUNT; p++) {
        check_fused(be, (fc_precision)p, 37, 29, 70);
        check_fused(be, (fc_precision)p, 520, 33, 70);
    }
    /* d. bf16 and fp16 against references on the rounded inputs */
    for (int p = FC_PREC_BF16; p <= FC_PREC_FP16; p++) {
        for (int act = 0; act < 2; act++) {
            check_forward(be, (fc_precision)p, 7, 13, 5, 1, (fc_activation)act, 1, 1e-5);
            check_forward(be, (fc_precision)p, 67, 130, 97, act, (fc_activation)act, 1, 1e-5);
            check_backward(be, (fc_precision)p, 7, 13, 5, (fc_activation)act, 1, 1e-5);
            check_backward(be, (fc_precision)p, 67, 130, 97, (fc_activation)act, 1, 1e-5);
        }
        check_forward(be, (fc_precision)p, 1024, 512, 512, 1, FC_ACT_RELU, 8, 1e-5);
        check_backward(be, (fc_precision)p, 1024, 512, 512, FC_ACT_RELU, 8, 1e-5);
    }
    for (int p = 0; p < FC_PREC_COUNT; p++) check_overflow(be, (fc_precision)p);
    /* e, f, g */
    test_errors(be);
    nan_through_relu(be);
    test_primitive_cache(be);
    for (int p = 0; p < FC_PREC_COUNT; p++)
        for (int act = 0; act < 2; act++)
            check_db_deterministic(be, be1, (fc_precision)p, (fc_activation)act);
    /* h. oneDNN runs on the same OpenMP pool as our loops: two threads at most */
    size_t threads = process_threads();
    CHECK_MSG(threads >= 1 && threads <= 2, "%zu threads after a 2-thread backend's work", threads);
    printf("threads in the process after the 2-thread work: %zu\n", threads);
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    return CHECK_DONE();
}
