/* The op-parity test, after ggml's test-backend-ops: every computing entry
 * of the backend table (backend_ops.def: a new entry without rows here
 * fails, see tested_elsewhere) over one TABLE of shapes and precisions,
 * run on every backend this machine has (the CPU with all cores and with
 * one thread; CUDA when a GPU answers), against the plain-C references of
 * backend_ops_reference.h, within the tolerance stated in each row.
 *
 * Buffers go through be->alloc / to_device / to_host only (a device pointer
 * need not be host memory), so the same code checks a GPU. Every buffer
 * carries GUARD bytes of a sentinel on both sides that must come back
 * untouched, every input must come back unchanged, and outputs with strided
 * rows start with known contents that must survive in the gaps. Rows marked
 * SAME_BITS must also give the first backend's bits on every other backend
 * (bodies shared through kernels/, compared with a tolerance against the
 * independent reference). Prints one line per row and backend. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "backend/backend_ops.h"
#include "backend/launch_geometry.h"
#include "backend_ops_reference.h"
#include "check.h"
#include "core/error.h"
#include "kernels/lowp.h"
#include "test_arrays.h"
#include "train/forecaster.h"

/* ---- tolerances (each row names one; the measure is per op, see run_*) ---- */

/* Dot products, as |got - want| / sum |terms| against the double sum of the
 * same terms: fp32 accumulation of K terms errs by ~sqrt(K) 2^-24 of
 * sum |terms| for random signs (1e-6 at K = 257; K 2^-24 = 1.5e-5 only if
 * every rounding went one way), so 1e-5 has a wide margin and still sees
 * one wrong term. The bf16 / fp16 rows use it too: their references round
 * the inputs with kernels/lowp.h, a product of two rounded values is exact
 * in fp32 (8+8 or 11+11 significant bits <= 24), and fp32 accumulation is
 * all that is left. A backend that skipped the rounding errs by ~2^-9
 * (bf16) or ~2^-12 (fp16) of a term: those rows also require the result to
 * be FARTHER than this from the unrounded product somewhere. */
#define TOL_DOT 1e-5

/* Bit for bit: element-wise, per-row, pooling, interpolation and rounding
 * ops run the shared bodies of kernels/ on every backend, and their
 * references follow the op's defined float arithmetic (torch's where torch
 * defines it; BLAS's alpha x + beta y; a row sum in double rounded once),
 * so there is no rounding left to forgive. Any NaN matches any NaN. */
#define TOL_EXACT 0.0

/* Reductions accumulated in double (sum of squares, masked loss), as
 * |got - want| / want against a long double sum of the same float terms
 * (all >= 0): only the order and width of the additions differ, a few
 * 2^-53 per block of the split (the CPU shows <= 1.4e-14 up to n = 10^6);
 * an fp32 accumulator would be off by ~1e-7. */
#define TOL_SUM 1e-12
/* DistributionLoss: float likelihoods (lgammaf, log1pf) against a double
 * reference, and their gradients against its central differences. */
#define TOL_DIST 2e-6
/* IQLoss's head: its float sums against a double reference, and its
 * gradients against central differences of that reference. */
#define TOL_IQ 1e-5
#define TOL_IQ_GRAD 1e-4
#define TOL_DIST_GRAD 2e-4

/* Adam over ADAM_STEPS steps of float arithmetic against double, as
 * |got - want| / scale with the natural scale of each state (m: max |g|,
 * v: max g^2, p: |p| + lr + the sum of |updates|): the float body rounds
 * about a dozen times per step (two lerps, the float scalars, sqrt, two
 * divisions, the update), each 2^-24 of that scale: 5 x 12 x 2^-24 =
 * 3.6e-6. A wrong bias correction or step is ~lr = 1e-2 of the scale. */
#define TOL_ADAM 4e-6
#define ADAM_STEPS 5

/* MASE's loss: the window scale, a sum rounded to float, may be an ulp
 * off between a long double and a double sum; each point loss then moves
 * by ~2^-24 of itself. */
#define TOL_MASE (2 * 0x1p-24)

/* The masked loss's gradient, coef * mask * l' in float against double, as
 * |got - want| / |want|: three roundings of 2^-24 (coef, two products). */
#define TOL_GRAD (4 * 0x1p-24)

/* The LSTM cell (kernels/lstm_cell.h) against the double-precision cell of
 * backend_ops_reference.h, as |got - want| / scale with the scales stated
 * there. The float body rounds each step once (2^-24 relative) and calls
 * expf and tanhf, each within 2 ulp (4 2^-24) of the exact value in glibc
 * and in CUDA alike, but not the same functions: so the devices need not
 * agree bit for bit and the rows are not SAME_BITS. Summed along the
 * longest chain (backward's d pre_i: tanhf, its square, 1 - t^2, two
 * products, the sum with dc, four more products) the worst case is about
 * 17 2^-24 of the scale; 32 2^-24 = 1.9e-6 leaves room, and a wrong gate,
 * order or formula is off by far more. */
#define TOL_LSTM (32 * 0x1p-24)

/* Layer norm (kernels/layer_norm.h) against a long double reference, as
 * |got - want| / scale with the scales of backend_ops_reference.h. The
 * body sums in double and rounds to float once per output (mean, rstd, y,
 * dx; dgamma and dbeta twice: the column sum, then the accumulation), so
 * each output is within 2 2^-24 of its scale; 4 2^-24 leaves room, and a
 * wrong variance (unbiased), a missing term or a lost accumulation is off
 * by far more. Every operation is a correctly rounded IEEE one on both
 * devices, so the rows are also SAME_BITS. */
#define TOL_LN (4 * 0x1p-24)

/* GELU (kernels/gelu.h) against a long double x Phi(x), as |got - want| /
 * scale (backend_ops_reference.h: |y|, or |dy| (Phi + |x phi|), at least
 * 2^-126). The body evaluates Phi and phi in double (erfc, exp: a few ulp
 * of double) and rounds once to float, so each result is within 2^-24 of
 * its scale and a few 2^-53 besides; 2 2^-24 leaves room, and the tanh
 * approximation (1e-3 off) or a dropped x phi term is off by far more. Not
 * SAME_BITS: erfc and exp are libm's on the CPU and CUDA's on the GPU,
 * whose last double bits differ, which can move a rounding to float. */
#define TOL_GELU (2 * 0x1p-24)

/* Attention (kernels/attention.h) against a long double attention, as
 * |got - want| / scale with the scales of backend_ops_reference.h. The
 * body sums in double and rounds each output once: scores, probs and
 * dscores are within 2^-24 of their scales; out and dq, dk, dv also carry
 * their float inputs' roundings (the probabilities or dscores, the
 * dropout's division) through the sum, 3 2^-24 at most; 4 2^-24 leaves
 * room, and a missing scale, the softmax over the wrong axis, a missing
 * prev, dscores or dropout mask is off by far more. Every operation is an
 * IEEE one on both devices (its exp is written with them), so the rows are
 * also SAME_BITS. */
#define TOL_ATTN (4 * 0x1p-24)

/* Batch norm (kernels/batch_norm.h) and RevIN with its patches
 * (kernels/revin_patch.h) against long double references, as |got - want|
 * / scale with the scales of backend_ops_reference.h. The bodies sum in
 * double and round each output to float once (the mean, rstd, y, a
 * running statistic, dx, the patches, the stats, dz; d gamma, d beta and
 * d affine twice: the sum, then the accumulation), so each is within
 * 2 2^-24 of its scale; 4 2^-24 leaves room, and the unbiased variance in
 * the normalisation (N / (N - 1), ~1e-3 at these sizes), a forgotten eps,
 * the biased variance in running_var, a zero pad or a lost term is off by
 * far more. Every operation is a correctly rounded IEEE one on both
 * devices, in one fixed order, so the rows are also SAME_BITS. */
#define TOL_BN (4 * 0x1p-24)
#define TOL_REVIN (4 * 0x1p-24)

/* ---- device buffers with guards ---- */

#define GUARD 64          /* bytes on each side of every buffer: 16 floats */
#define GUARD_BYTE 0xA5   /* their sentinel */
#define MAX_BUFS 16
#define MAX_TMPS 64

typedef struct {
    const char *name;
    char *block;          /* on the device: GUARD bytes, the payload, GUARD bytes */
    size_t bytes;         /* the payload */
    const void *init;     /* host copy of what was uploaded */
    int input;            /* 1: must come back unchanged */
} dbuf;

/* One row run on one backend: its buffers, host scratch and verdict. */
typedef struct {
    fc_backend *be;
    dbuf buf[MAX_BUFS];
    int nbuf;
    void *tmp[MAX_TMPS];  /* host allocations, freed with the row */
    int ntmp;
    const char *out_name[MAX_BUFS];   /* outputs read back, in order (SAME_BITS) */
    const void *out[MAX_BUFS];
    size_t out_bytes[MAX_BUFS];
    int nout;
    char shape[72];
    double worst_ratio, worst_err, worst_tol;   /* the output closest to (or past) its tolerance */
    size_t bad;
    char first_bad[240];
} ctx;

static void *keep(ctx *c, void *p) {
    if (!p || c->ntmp == MAX_TMPS) {
        fprintf(stderr, "test_backend_ops: out of host scratch\n");
        exit(2);
    }
    return c->tmp[c->ntmp++] = p;
}

static float *rnd_f(ctx *c, size_t n, uint64_t seed, float lo, float hi) { return keep(c, randu(n, seed, lo, hi)); }
static float *val_f(ctx *c, size_t n, float v) { return keep(c, filled(n, v)); }
static double *dbl(ctx *c, size_t n) { return keep(c, calloc(n ? n : 1, sizeof(double))); }

static void *junk(ctx *c, size_t bytes) {
    void *p = keep(c, malloc(bytes ? bytes : 1));
    memset(p, 0x5A, bytes);
    return p;
}

static void fail(ctx *c, const char *fmt, ...) {
    c->bad++;
    if (c->first_bad[0]) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->first_bad, sizeof c->first_bad, fmt, ap);
    va_end(ap);
}

static void shape(ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->shape, sizeof c->shape, fmt, ap);
    va_end(ap);
}

/* Copies host (bytes) into a new guarded block; returns the payload's
 * device pointer. */
static void *upload(ctx *c, const char *name, const void *host, size_t bytes, int input) {
    if (c->nbuf == MAX_BUFS) {
        fprintf(stderr, "test_backend_ops: more than %d buffers in one row\n", MAX_BUFS);
        exit(2);
    }
    size_t whole = bytes + 2 * GUARD;
    unsigned char *h = keep(c, malloc(whole));
    memset(h, GUARD_BYTE, whole);
    if (bytes) memcpy(h + GUARD, host, bytes);
    char *d = c->be->alloc(c->be, whole);
    if (!d) {
        fprintf(stderr, "test_backend_ops: %s: cannot allocate %zu bytes: %s\n", c->be->name, whole, fc_last_error());
        exit(2);
    }
    c->be->to_device(c->be, d, h, whole);
    c->buf[c->nbuf++] = (dbuf){name, d, bytes, h + GUARD, input};
    return d + GUARD;
}

#define dev_in(c, name, host, n) upload(c, name, host, (n) * sizeof *(host), 1)
#define dev_out(c, name, host, n) upload(c, name, host, (n) * sizeof *(host), 0)

static unsigned char *read_block(ctx *c, const dbuf *b) {
    unsigned char *h = keep(c, malloc(b->bytes + 2 * GUARD));
    c->be->sync(c->be);
    c->be->to_host(c->be, h, b->block, b->bytes + 2 * GUARD);
    return h;
}

static dbuf *find(ctx *c, const void *dev) {
    for (int i = 0; i < c->nbuf; i++)
        if (c->buf[i].block + GUARD == (const char *)dev) return &c->buf[i];
    fprintf(stderr, "test_backend_ops: unknown device pointer\n");
    exit(2);
}

/* An output's payload read back to the host (freed with the row). */
static void *read_out(ctx *c, const void *dev) {
    dbuf *b = find(c, dev);
    unsigned char *payload = read_block(c, b) + GUARD;
    c->out_name[c->nout] = b->name;
    c->out[c->nout] = payload;
    c->out_bytes[c->nout++] = b->bytes;
    return payload;
}

/* Guards intact and inputs unchanged; releases every buffer. */
static void check_buffers(ctx *c) {
    for (int i = 0; i < c->nbuf; i++) {
        dbuf *b = &c->buf[i];
        const unsigned char *h = read_block(c, b);
        size_t before = 0, after = 0;
        for (size_t j = 0; j < GUARD; j++) {
            before += h[j] != GUARD_BYTE;
            after += h[GUARD + b->bytes + j] != GUARD_BYTE;
        }
        if (before || after)
            fail(c, "%s: %zu guard bytes before and %zu after it were written", b->name, before, after);
        if (b->input && b->bytes && memcmp(h + GUARD, b->init, b->bytes))
            fail(c, "input %s was modified", b->name);
        c->be->release(c->be, b->block);
    }
    c->nbuf = 0;
}

static void ctx_free(ctx *c) {
    for (int i = 0; i < c->ntmp; i++) free(c->tmp[i]);
    c->ntmp = 0;
}

/* ---- verdicts ---- */

static int same_value(float got, float want) {
    uint32_t a, b;
    memcpy(&a, &got, 4);
    memcpy(&b, &want, 4);
    return (isnan(got) && isnan(want)) || a == b;
}

/* Records one output's worst error against its tolerance. */
static void note(ctx *c, const char *what, double worst, double tol, size_t bad, size_t n, size_t first,
                 double got, double want) {
    double ratio = bad ? INFINITY : tol > 0 ? worst / tol : 0;
    if (ratio > c->worst_ratio) c->worst_ratio = ratio, c->worst_err = worst, c->worst_tol = tol;
    if (bad)
        fail(c, "%s: %zu of %zu elements off (worst %.3g, tol %.3g), first [%zu]: got %.9g want %.9g", what, bad, n,
             worst, tol, first, got, want);
}

/* got (n) against want (n): |got - want| / scale <= tol, and bit for bit
 * where tol is 0, scale is NULL or scale[i] is 0 (gaps of strided rows,
 * exact zeros). */
static void judge(ctx *c, const char *what, const float *got, const double *want, const double *scale, size_t n,
                  double tol) {
    size_t bad = 0, first = 0;
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        int exact = tol == 0 || !scale || scale[i] == 0;
        double err = fabs((double)got[i] - want[i]) / (exact ? 1.0 : scale[i]);
        int ok = exact ? same_value(got[i], (float)want[i]) : err <= tol;
        if (isnan(err)) err = ok ? 0 : INFINITY;
        if (!ok && bad++ == 0) first = i;
        if (err > worst) worst = err;
    }
    note(c, what, worst, tol, bad, n, first, n ? got[first] : 0, n ? want[first] : 0);
}

/* Exact comparison with a float reference. */
static void judge_f(ctx *c, const char *what, const float *got, const float *want, size_t n) {
    double *w = dbl(c, n);
    for (size_t i = 0; i < n; i++) w[i] = want[i];
    judge(c, what, got, w, NULL, n, TOL_EXACT);
}

static void judge_i(ctx *c, const char *what, const int32_t *got, const int32_t *want, size_t n) {
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < n; i++)
        if (got[i] != want[i] && bad++ == 0) first = i;
    note(c, what, bad ? INFINITY : 0, TOL_EXACT, bad, n, first, n ? got[first] : 0, n ? want[first] : 0);
}

/* A host double (loss, sum): relative to scale, exact when scale is 0. */
static void judge_scalar(ctx *c, const char *what, double got, double want, double scale, double tol) {
    int exact = scale == 0;
    double err = fabs(got - want) / (exact ? 1.0 : scale);
    int ok = exact ? got == want || (isnan(got) && isnan(want)) : err <= tol;
    if (isnan(err)) err = ok ? 0 : INFINITY;
    note(c, what, err, tol, !ok, 1, 0, got, want);
}

/* A low-precision buffer (backend layout, low_bytes) against src rounded by
 * the defined rounding (lowp.h). */
static void judge_low(ctx *c, const char *what, const void *dev, const float *src, size_t n, fc_precision p) {
    float *got = keep(c, malloc((n ? n : 1) * sizeof *got));
    ref_low_values(got, read_out(c, dev), n, c->be->low_bytes(c->be, p), p);
    double *want = dbl(c, n);
    for (size_t i = 0; i < n; i++) want[i] = ref_rnd(src[i], p);
    judge(c, what, got, want, NULL, n, TOL_EXACT);
}

/* In bf16 / fp16 the result must be FARTHER than tol from the product of
 * the unrounded inputs somewhere, or the backend skipped the rounding.
 * Checked on 64 elements or more, where some element surely shows it. */
static void rounding_visible(ctx *c, const char *what, const float *got, const double *unrounded,
                             const double *scale, size_t n, double tol) {
    if (n < 64) return;
    double far = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - unrounded[i]) / scale[i];
        far = e > far ? e : far;
    }
    if (!(far > tol))
        fail(c, "%s is within %g of the fp32 product everywhere (max %.3g): were the inputs rounded?", what, tol,
             far);
}

static void status(ctx *c, const char *call, fc_status st) {
    if (st != FC_OK) fail(c, "%s returned %d: %s", call, (int)st, fc_last_error());
}

/* ---- the rows ---- */

typedef struct op_case op_case;
typedef void (*op_run)(ctx *c, const op_case *k, uint64_t seed);

struct op_case {
    const char *op;
    op_run run;
    size_t m, n, k;       /* the shape; what each means is in the op's run_ function */
    size_t pad;           /* extra elements per row (strided rows: ld = width + pad) */
    fc_precision prec;
    unsigned opt;         /* the bits below */
    float alpha, beta;    /* the op's scalars (gemm, axpby, scale, fill value, grad scale) */
    double tol;           /* one of the TOL_ values */
};

enum {
    RELU = 1u << 0,       /* linear: ReLU (else no activation) */
    BIAS = 1u << 1,       /* linear_forward: with a bias */
    DX = 1u << 2,         /* linear_backward: dx asked for (else NULL) */
    DB = 1u << 3,         /* linear_backward: db asked for (else NULL) */
    TA = 1u << 4,         /* gemm: op(A) = A^T */
    TB = 1u << 5,         /* gemm: op(B) = B^T */
    NAN_OUT = 1u << 6,    /* gemm / axpby with beta 0: the output starts as NaN, which must not be read */
    MSE = 1u << 7,        /* masked_loss: MSE (else MAE) */
    NO_GRAD = 1u << 8,    /* masked_loss: grad NULL */
    NO_MASK = 1u << 9,    /* masked_loss: every point unobserved */
    SPECIAL = 1u << 10,   /* maxpool: ties, NaN and a window of -inf; lstm_cell: saturated gates;
                             layer_norm: a constant row and a row far from 0 */
    CONFIG_B = 1u << 11,  /* adam: the second set of hyper-parameters */
    SAME_BITS = 1u << 12, /* every backend must give the first backend's bits */
    NO_CPREV = 1u << 13,  /* lstm_cell: c_prev NULL (the first step) */
    IN_PLACE = 1u << 14,  /* the output is the input's buffer: lstm_cell_backward's dgates the gates,
                             layer_norm_forward's y the x, layer_norm_backward's dx the dy, dropout's y the x,
                             gelu's y the x and dx the dy, attention_forward's prev the scores */
    PREV = 1u << 15,      /* attention_forward: with prev (neuralforecast's residual scores) */
    PACKED = 1u << 16,    /* attention: q, k, v, out and their gradients in separate (B P, H E) matrices
                             (else column blocks of wider ones) */
    DECAY = 1u << 17      /* adam: with weight decay (AdamW's with the first hyper-parameters, Adam's L2 with
                             CONFIG_B's) */
};

/* More bits (the enum above continued). */
enum {
    EVAL = 1u << 17,      /* batch_norm_forward: eval mode (else training) */
    NO_REVIN = 1u << 18,  /* revin_patch_*: without the normalisation */
    LAST = 1u << 19,      /* revin_patch_*: subtract_last */
    AFFINE = 1u << 20     /* revin_*: with the affine parameters (else NULL) */
};

/* ---- dense layer ---- */

/* src (n) rounded by lowp.h into the backend's low-precision layout:
 * 2-byte patterns, or fp32 values (low_bytes 4). */
static void *low_copy(ctx *c, const float *src, size_t n, fc_precision p) {
    size_t bytes = c->be->low_bytes(c->be, p);
    unsigned char *out = keep(c, malloc(n * bytes + 1));
    for (size_t i = 0; i < n; i++) {
        float v = ref_rnd(src[i], p);
        uint16_t h = p == FC_PREC_BF16 ? fc_bf16_from_f32(src[i]) : fc_f16_from_f32(src[i]);
        memcpy(out + i * bytes, bytes == 4 ? (const void *)&v : (const void *)&h, bytes);
    }
    return out;
}

/* m = B, n = I, k = O. Outputs y (and x_low in low precision). */
static void run_linear_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, I = k->n, O = k->k, lb = c->be->low_bytes(c->be, k->prec);
    int relu = !!(k->opt & RELU), low = k->prec != FC_PREC_FP32;
    shape(c, "B%zu I%zu O%zu %s%s", B, I, O, relu ? "relu" : "none", k->opt & BIAS ? " bias" : "");
    float *x = rnd_f(c, B * I, seed, -1, 1), *w = rnd_f(c, O * I, seed + 1, -1, 1);
    float *b = k->opt & BIAS ? rnd_f(c, O, seed + 2, -1, 1) : NULL;
    fc_linear_call call = {.B = B, .I = I, .O = O, .act = relu ? FC_ACT_RELU : FC_ACT_NONE, .prec = k->prec};
    call.x = dev_in(c, "x", x, B * I);
    call.w = dev_in(c, "w", w, O * I);
    call.b = b ? dev_in(c, "b", b, O) : NULL;
    call.y = dev_out(c, "y", val_f(c, B * O, NAN), B * O);
    if (low) {
        call.x_low = upload(c, "x_low", junk(c, B * I * lb), B * I * lb, 0);
        call.w_low = upload(c, "w_low", low_copy(c, w, O * I, k->prec), O * I * lb, 1);
    }
    size_t ws[FC_WS_SLOTS];
    status(c, "linear_workspace", c->be->linear_workspace(c->be, &call, ws));
    status(c, "linear_forward", c->be->linear_forward(c->be, &call));
    float *y = read_out(c, call.y);
    double *want = dbl(c, B * O), *scale = dbl(c, B * O);
    ref_linear_forward(want, scale, x, w, b, B, I, O, relu, k->prec);
    judge(c, "y", y, want, scale, B * O, k->tol);
    if (!low) return;
    judge_low(c, "x_low", call.x_low, x, B * I, k->prec);
    ref_linear_forward(want, scale, x, w, b, B, I, O, relu, FC_PREC_FP32);
    rounding_visible(c, "y", y, want, scale, B * O, k->tol);
}

/* A forward output for the ReLU mask: random signs, and NaN, -0, a tiny
 * positive and +0 first (a NaN output passes the gradient, as torch). */
static float *relu_outputs(ctx *c, size_t n, uint64_t seed) {
    float *y = rnd_f(c, n, seed, -1, 1);
    const float special[] = {NAN, -0.0f, 1e-30f, 0.0f};
    for (size_t i = 0; i < n && i < 4; i++) y[i] = special[i];
    return y;
}

/* m = B, n = I, k = O. Outputs dy (masked), dy_low, dx (overwritten), dw
 * and db (accumulated). */
static void run_linear_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, I = k->n, O = k->k, lb = c->be->low_bytes(c->be, k->prec);
    int relu = !!(k->opt & RELU), low = k->prec != FC_PREC_FP32;
    shape(c, "B%zu I%zu O%zu %s%s%s", B, I, O, relu ? "relu" : "none", k->opt & DX ? " dx" : "",
          k->opt & DB ? " db" : "");
    float *x = rnd_f(c, B * I, seed, -1, 1), *w = rnd_f(c, O * I, seed + 1, -1, 1), *b = rnd_f(c, O, seed + 2, -1, 1);
    /* without an activation y is not read: all -1 would mask everything */
    float *y = relu ? relu_outputs(c, B * O, seed + 3) : val_f(c, B * O, -1.0f);
    float *dy = rnd_f(c, B * O, seed + 4, -1, 1), *dw0 = rnd_f(c, O * I, seed + 5, -1, 1);
    float *db0 = rnd_f(c, O, seed + 6, -1, 1);
    fc_linear_call call = {.B = B, .I = I, .O = O, .act = relu ? FC_ACT_RELU : FC_ACT_NONE, .prec = k->prec};
    /* in low precision backward reads x through x_low (backend.h): x itself is poison */
    call.x = dev_in(c, "x", low ? val_f(c, B * I, 1000.0f) : x, B * I);
    call.w = dev_in(c, "w", w, O * I);
    call.b = dev_in(c, "b", b, O);
    call.y = dev_in(c, "y", y, B * O);
    void *ddy_low = NULL;
    if (low) {
        call.x_low = upload(c, "x_low", low_copy(c, x, B * I, k->prec), B * I * lb, 1);
        call.w_low = upload(c, "w_low", low_copy(c, w, O * I, k->prec), O * I * lb, 1);
        ddy_low = upload(c, "dy_low", junk(c, B * O * lb), B * O * lb, 0);
    }
    float *ddy = dev_out(c, "dy", dy, B * O);
    float *ddx = k->opt & DX ? dev_out(c, "dx", val_f(c, B * I, NAN), B * I) : NULL;
    float *ddw = dev_out(c, "dw", dw0, O * I);
    float *ddb = k->opt & DB ? dev_out(c, "db", db0, O) : NULL;
    status(c, "linear_backward", c->be->linear_backward(c->be, &call, ddy, ddy_low, ddx, ddw, ddb));

    float *g = keep(c, malloc(B * O * sizeof *g));
    for (size_t i = 0; i < B * O; i++) g[i] = relu ? ref_relu_mask(dy[i], y[i]) : dy[i];
    size_t most = B * I > O * I ? B * I : O * I;
    double *want = dbl(c, most), *scale = dbl(c, most);
    judge_f(c, "dy", read_out(c, ddy), g, B * O);
    if (low) judge_low(c, "dy_low", ddy_low, g, B * O, k->prec);
    if (ddx) {
        ref_linear_dx(want, scale, g, w, B, I, O, k->prec);
        judge(c, "dx", read_out(c, ddx), want, scale, B * I, k->tol);
    }
    if (ddb) {
        ref_linear_db(want, scale, db0, g, B, O);
        judge(c, "db", read_out(c, ddb), want, scale, O, k->tol);
    }
    float *dw = read_out(c, ddw);
    ref_linear_dw(want, scale, dw0, g, x, B, I, O, k->prec);
    judge(c, "dw", dw, want, scale, O * I, k->tol);
    if (!low) return;
    ref_linear_dw(want, scale, dw0, g, x, B, I, O, FC_PREC_FP32);
    rounding_visible(c, "dw", dw, want, scale, O * I, k->tol);
}

/* m, n, k = M, N, K; lda, ldb, ldc past the stored widths by pad, 2 pad, pad. */
static void run_gemm(ctx *c, const op_case *k, uint64_t seed) {
    int ta = !!(k->opt & TA), tb = !!(k->opt & TB);
    size_t M = k->m, N = k->n, K = k->k;
    size_t aw = ta ? M : K, bw = tb ? K : N, arows = ta ? K : M, brows = tb ? N : K;
    size_t lda = (aw ? aw : 1) + k->pad, ldb = (bw ? bw : 1) + 2 * k->pad, ldc = N + k->pad;
    shape(c, "%c%c M%zu N%zu K%zu ld+%zu a=%g b=%g%s", ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, k->pad,
          (double)k->alpha, (double)k->beta, k->opt & NAN_OUT ? " C=NaN" : "");
    float *A = rnd_f(c, arows * lda, seed, -1, 1), *Bm = rnd_f(c, brows * ldb, seed + 1, -1, 1);
    float *C0 = k->opt & NAN_OUT ? val_f(c, M * ldc, NAN) : rnd_f(c, M * ldc, seed + 2, -1, 1);
    const float *dA = dev_in(c, "A", A, arows * lda), *dB = dev_in(c, "B", Bm, brows * ldb);
    float *dC = dev_out(c, "C", C0, M * ldc);
    status(c, "gemm", c->be->gemm(c->be, ta, tb, M, N, K, k->alpha, dA, lda, dB, ldb, k->beta, dC, ldc));
    double *want = dbl(c, M * ldc), *scale = dbl(c, M * ldc);
    ref_gemm(want, scale, ta, tb, M, N, K, k->alpha, A, lda, Bm, ldb, k->beta, C0, ldc);
    judge(c, "C", read_out(c, dC), want, scale, M * ldc, k->tol);
}

/* ---- rounding ---- */

/* Ties, the ends of each format's range, subnormals of both, zeros,
 * infinities and NaN; the rest of the input is random over many binades. */
static const float round_specials[] = {
    1.00390625f,  /* 1 + 2^-8: bf16 tie -> 1 (even) */
    1.01171875f,  /* 1 + 3 2^-8: bf16 tie -> 1 + 2^-6 (even) */
    1.00048828125f, /* 1 + 2^-11: fp16 tie -> 1 */
    -1.00146484375f, /* -(1 + 3 2^-11): fp16 tie -> -(1 + 2^-9) */
    65504.0f, 65519.0f, 65520.0f, -65536.0f,   /* fp16: max, below the tie, the tie -> inf, past it */
    0x1.fep127f, 0x1.ffp127f, -FLT_MAX,        /* bf16: max, the tie -> inf, fp32's max */
    0x1p-24f, 0x1p-25f, 0x1.8p-24f, 0x1p-14f, -0x1.ff8p-15f,  /* fp16 subnormals and the smallest normal */
    0x1p-133f, 0x1p-134f, 0x1.8p-133f, 1e-40f, /* bf16 subnormals (fp32 subnormal inputs) */
    0.0f, -0.0f, INFINITY, -INFINITY, NAN,
};

/* m = n (elements). Output: dst in the backend's layout (low_bytes). */
static void run_round_to(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m, lb = c->be->low_bytes(c->be, k->prec), nspec = sizeof round_specials / sizeof *round_specials;
    int bf16 = k->prec == FC_PREC_BF16, lo = bf16 ? -135 : -28, span = bf16 ? 263 : 46;
    shape(c, "n%zu", n);
    float *x = rnd_f(c, n, seed, -1, 1);
    for (size_t i = 0; i < n; i++) x[i] = i < nspec ? round_specials[i] : ldexpf(x[i], lo + (int)(i * 7919 % span));
    const float *dx = dev_in(c, "src", x, n);
    void *dst = upload(c, "dst", junk(c, n * lb), n * lb, 0);
    c->be->round_to(c->be, dst, dx, n, k->prec);
    float *got = keep(c, malloc((n ? n : 1) * sizeof *got));
    ref_low_values(got, read_out(c, dst), n, lb, k->prec);
    float *want = keep(c, malloc((n ? n : 1) * sizeof *want));
    for (size_t i = 0; i < n; i++) want[i] = ref_round(x[i], k->prec);
    judge_f(c, "dst", got, want, n);
}

/* ---- pooling ---- */

/* Random input, or (SPECIAL) five levels for many ties, NaN in some
 * windows and row 0's second window all -inf. */
static float *pool_input(ctx *c, size_t B, size_t L, size_t k, int special, uint64_t seed) {
    float *x = rnd_f(c, B * L, seed, -1, 1);
    if (!special) return x;
    for (size_t i = 0; i < B * L; i++) {
        x[i] = 0.5f * (float)((int)((x[i] + 1.0f) * 2.5f) - 2);
        if (i % 17 == 5 || i % 17 == 9) x[i] = NAN;
    }
    for (size_t i = k; i < 2 * k && i < L; i++) x[i] = -INFINITY;
    return x;
}

/* m = B, n = L, k = window. Outputs y and argmax. */
static void run_maxpool1d_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, L = k->n, K = k->k, n_out = (L + K - 1) / K;
    shape(c, "B%zu L%zu k%zu%s", B, L, K, k->opt & SPECIAL ? " ties,nan,-inf" : "");
    float *x = pool_input(c, B, L, K, !!(k->opt & SPECIAL), seed);
    int32_t *idx0 = keep(c, malloc(B * n_out * sizeof *idx0 + 4));
    for (size_t i = 0; i < B * n_out; i++) idx0[i] = -7;
    const float *dx = dev_in(c, "x", x, B * L);
    float *dy = dev_out(c, "y", val_f(c, B * n_out, 777.0f), B * n_out);
    int32_t *didx = dev_out(c, "argmax", idx0, B * n_out);
    c->be->maxpool1d_forward(c->be, dy, didx, dx, B, L, K);
    float *want = keep(c, malloc(B * n_out * sizeof *want + 4));
    int32_t *widx = keep(c, malloc(B * n_out * sizeof *widx + 4));
    for (size_t r = 0; r < B; r++) ref_maxpool_row(x + r * L, L, K, want + r * n_out, widx + r * n_out);
    judge_f(c, "y", read_out(c, dy), want, B * n_out);
    judge_i(c, "argmax", read_out(c, didx), widx, B * n_out);
}

/* m = B, n = L, k = window; argmax from the reference forward. Output dx. */
static void run_maxpool1d_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, L = k->n, K = k->k, n_out = (L + K - 1) / K;
    shape(c, "B%zu L%zu k%zu%s", B, L, K, k->opt & SPECIAL ? " ties,nan,-inf" : "");
    float *x = pool_input(c, B, L, K, !!(k->opt & SPECIAL), seed), *dy = rnd_f(c, B * n_out, seed + 1, -1, 1);
    dy[0] = -0.0f;   /* scattered onto 0.0f it lands as +0 */
    float *y = keep(c, malloc(B * n_out * sizeof *y + 4));
    int32_t *idx = keep(c, malloc(B * n_out * sizeof *idx + 4));
    for (size_t r = 0; r < B; r++) ref_maxpool_row(x + r * L, L, K, y + r * n_out, idx + r * n_out);
    const float *ddy = dev_in(c, "dy", dy, B * n_out);
    const int32_t *didx = dev_in(c, "argmax", idx, B * n_out);
    float *ddx = dev_out(c, "dx", val_f(c, B * L, NAN), B * L);
    c->be->maxpool1d_backward(c->be, ddx, ddy, didx, B, L, K);
    float *want = keep(c, malloc(B * L * sizeof *want + 4));
    for (size_t r = 0; r < B; r++) ref_maxpool_backward_row(want + r * L, L, dy + r * n_out, idx + r * n_out, n_out);
    judge_f(c, "dx", read_out(c, ddx), want, B * L);
}

/* ---- interpolation ---- */

/* m = B, n = n_in, k = n_out; ldx = n_in + pad, ldy = n_out + 2 pad. */
static void run_interp_linear_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, n_in = k->n, n_out = k->k, ldx = n_in + k->pad, ldy = n_out + 2 * k->pad;
    shape(c, "B%zu %zu->%zu ldx%zu ldy%zu", B, n_in, n_out, ldx, ldy);
    float *x = rnd_f(c, B * ldx, seed, -1, 1), *y0 = val_f(c, B * ldy, NAN);
    const float *dx = dev_in(c, "x", x, B * ldx);
    float *dy = dev_out(c, "y", y0, B * ldy);
    c->be->interp_linear_forward(c->be, dy, ldy, dx, ldx, B, n_in, n_out);
    float *want = val_f(c, B * ldy, NAN);
    for (size_t r = 0; r < B; r++) ref_interp_row(want + r * ldy, x + r * ldx, n_in, n_out);
    judge_f(c, "y", read_out(c, dy), want, B * ldy);
}

/* m = B, n = n_in, k = n_out; ldx = n_in + pad, ldy = n_out + 2 pad. */
static void run_interp_linear_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, n_in = k->n, n_out = k->k, ldx = n_in + k->pad, ldy = n_out + 2 * k->pad;
    shape(c, "B%zu %zu->%zu ldx%zu ldy%zu", B, n_in, n_out, ldx, ldy);
    float *dy = rnd_f(c, B * ldy, seed, -1, 1), *dx0 = val_f(c, B * ldx, NAN);
    dy[0] = -0.0f;   /* accumulated from 0.0f it lands as +0, even when n_in == n_out */
    const float *ddy = dev_in(c, "dy", dy, B * ldy);
    float *ddx = dev_out(c, "dx", dx0, B * ldx);
    c->be->interp_linear_backward(c->be, ddx, ldx, ddy, ldy, B, n_in, n_out);
    float *want = val_f(c, B * ldx, NAN);
    for (size_t r = 0; r < B; r++) ref_interp_row_backward(want + r * ldx, dy + r * ldy, n_in, n_out);
    judge_f(c, "dx", read_out(c, ddx), want, B * ldx);
}

/* m = B, n = n_in, k = n_out; ldx = n_in + pad, ldy = n_out + 2 pad. */
static void run_interp_nearest_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, n_in = k->n, n_out = k->k, ldx = n_in + k->pad, ldy = n_out + 2 * k->pad;
    shape(c, "B%zu %zu->%zu ldx%zu ldy%zu", B, n_in, n_out, ldx, ldy);
    float *x = rnd_f(c, B * ldx, seed, -1, 1), *y0 = val_f(c, B * ldy, NAN);
    const float *dx = dev_in(c, "x", x, B * ldx);
    float *dy = dev_out(c, "y", y0, B * ldy);
    c->be->interp_nearest_forward(c->be, dy, ldy, dx, ldx, B, n_in, n_out);
    float *want = val_f(c, B * ldy, NAN);
    for (size_t r = 0; r < B; r++) ref_nearest_row(want + r * ldy, x + r * ldx, n_in, n_out);
    judge_f(c, "y", read_out(c, dy), want, B * ldy);
}

/* m = B, n = n_in, k = n_out; ldx = n_in + pad, ldy = n_out + 2 pad. */
static void run_interp_nearest_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, n_in = k->n, n_out = k->k, ldx = n_in + k->pad, ldy = n_out + 2 * k->pad;
    shape(c, "B%zu %zu->%zu ldx%zu ldy%zu", B, n_in, n_out, ldx, ldy);
    float *dy = rnd_f(c, B * ldy, seed, -1, 1), *dx0 = val_f(c, B * ldx, NAN);
    const float *ddy = dev_in(c, "dy", dy, B * ldy);
    float *ddx = dev_out(c, "dx", dx0, B * ldx);
    c->be->interp_nearest_backward(c->be, ddx, ldx, ddy, ldy, B, n_in, n_out);
    float *want = val_f(c, B * ldx, NAN);
    for (size_t r = 0; r < B; r++) ref_nearest_row_backward(want + r * ldx, dy + r * ldy, n_in, n_out);
    judge_f(c, "dx", read_out(c, ddx), want, B * ldx);
}

/* m = B, n = n_in, k = n_out; ldx = n_in + pad, ldy = n_out + 2 pad. */
static void run_interp_cubic_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, n_in = k->n, n_out = k->k, ldx = n_in + k->pad, ldy = n_out + 2 * k->pad;
    shape(c, "B%zu %zu->%zu ldx%zu ldy%zu", B, n_in, n_out, ldx, ldy);
    float *x = rnd_f(c, B * ldx, seed, -1, 1), *y0 = val_f(c, B * ldy, NAN);
    const float *dx = dev_in(c, "x", x, B * ldx);
    float *dy = dev_out(c, "y", y0, B * ldy);
    c->be->interp_cubic_forward(c->be, dy, ldy, dx, ldx, B, n_in, n_out);
    float *want = val_f(c, B * ldy, NAN);
    for (size_t r = 0; r < B; r++) ref_cubic_row(want + r * ldy, x + r * ldx, n_in, n_out);
    judge_f(c, "y", read_out(c, dy), want, B * ldy);
}

/* m = B, n = n_in, k = n_out; ldx = n_in + pad, ldy = n_out + 2 pad. */
static void run_interp_cubic_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, n_in = k->n, n_out = k->k, ldx = n_in + k->pad, ldy = n_out + 2 * k->pad;
    shape(c, "B%zu %zu->%zu ldx%zu ldy%zu", B, n_in, n_out, ldx, ldy);
    float *dy = rnd_f(c, B * ldy, seed, -1, 1), *dx0 = val_f(c, B * ldx, NAN);
    const float *ddy = dev_in(c, "dy", dy, B * ldy);
    float *ddx = dev_out(c, "dx", dx0, B * ldx);
    c->be->interp_cubic_backward(c->be, ddx, ldx, ddy, ldy, B, n_in, n_out);
    float *want = val_f(c, B * ldx, NAN);
    for (size_t r = 0; r < B; r++) ref_cubic_row_backward(want + r * ldx, dy + r * ldy, n_in, n_out);
    judge_f(c, "dx", read_out(c, ddx), want, B * ldx);
}

/* ---- strided rows ---- */

/* m = B, n = L; ldx = L + pad, ldy = L + 2 pad. */
static void run_flip_rows(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, L = k->n, ldx = L + k->pad, ldy = L + 2 * k->pad;
    shape(c, "B%zu L%zu ldx%zu ldy%zu", B, L, ldx, ldy);
    float *x = rnd_f(c, B * ldx, seed, -1, 1), *want = val_f(c, B * ldy, NAN);
    const float *dx = dev_in(c, "x", x, B * ldx);
    float *dy = dev_out(c, "y", want, B * ldy);
    c->be->flip_rows(c->be, dy, ldy, dx, ldx, B, L);
    for (size_t r = 0; r < B; r++)
        for (size_t i = 0; i < L; i++) want[r * ldy + i] = x[r * ldx + L - 1 - i];
    judge_f(c, "y", read_out(c, dy), want, B * ldy);
}

/* m = B, n = C; ldy = C + pad, ldx = C + 2 pad. y = alpha x + beta y, and
 * beta 0 does not read y (kernels/rows.h: BLAS's convention). */
static void run_axpby_rows(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, C = k->n, ldy = C + k->pad, ldx = C + 2 * k->pad;
    float a = k->alpha, b = k->beta;
    shape(c, "B%zu C%zu ldy%zu ldx%zu a=%g b=%g%s", B, C, ldy, ldx, (double)a, (double)b,
          k->opt & NAN_OUT ? " y=NaN" : "");
    float *x = rnd_f(c, B * ldx, seed, -1, 1);
    float *y0 = k->opt & NAN_OUT ? val_f(c, B * ldy, NAN) : rnd_f(c, B * ldy, seed + 1, -1, 1);
    const float *dx = dev_in(c, "x", x, B * ldx);
    float *dy = dev_out(c, "y", y0, B * ldy);
    c->be->axpby_rows(c->be, dy, ldy, a, dx, ldx, b, B, C);
    float *want = keep(c, malloc(B * ldy * sizeof *want + 4));
    memcpy(want, y0, B * ldy * sizeof *want);
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < C; j++) {
            float ax = a * x[r * ldx + j];
            want[r * ldy + j] = b == 0.0f ? ax : ax + b * y0[r * ldy + j];
        }
    judge_f(c, "y", read_out(c, dy), want, B * ldy);
}

/* m = B, n = C; ldy = C + pad, ldm = C + 2 pad. */
static void run_mul_rows(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, C = k->n, ldy = C + k->pad, ldm = C + 2 * k->pad;
    shape(c, "B%zu C%zu ldy%zu ldm%zu", B, C, ldy, ldm);
    float *y0 = rnd_f(c, B * ldy, seed, -2, 2), *m = rnd_f(c, B * ldm, seed + 1, -2, 2);
    float *dy = dev_out(c, "y", y0, B * ldy);
    c->be->mul_rows(c->be, dy, ldy, dev_in(c, "m", m, B * ldm), ldm, B, C);
    float *want = keep(c, malloc(B * ldy * sizeof *want + 4));
    memcpy(want, y0, B * ldy * sizeof *want);
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < C; j++) want[r * ldy + j] *= m[r * ldm + j];
    judge_f(c, "y", read_out(c, dy), want, B * ldy);
}

/* m = B, n = C, k = col; x rows of ldx = col + 1 + pad; y (B,C) packed. */
static void run_broadcast_col(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, C = k->n, col = k->k, ldx = col + 1 + k->pad;
    shape(c, "B%zu C%zu col%zu ldx%zu", B, C, col, ldx);
    float *x = rnd_f(c, B * ldx, seed, -1, 1), *want = val_f(c, B * C, NAN);
    float *dy = dev_out(c, "y", want, B * C);
    c->be->broadcast_col(c->be, dy, dev_in(c, "x", x, B * ldx), ldx, col, B, C);
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < C; j++) want[r * C + j] = x[r * ldx + col];
    judge_f(c, "y", read_out(c, dy), want, B * C);
}

/* m = B, n = C, k = col; x rows of ldx = col + 1 + pad; dy (B,C) packed.
 * Exact although the backend may sum in any order: randu(-1, 1) draws are
 * multiples of 2^-23 below 1, so their double sum is exact in any order,
 * and its one rounding to float is the same. */
static void run_sum_rows_into_col(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, C = k->n, col = k->k, ldx = col + 1 + k->pad;
    shape(c, "B%zu C%zu col%zu ldx%zu", B, C, col, ldx);
    float *x0 = rnd_f(c, B * ldx, seed, -1, 1), *dy = rnd_f(c, B * C, seed + 1, -1, 1);
    float *dx = dev_out(c, "x", x0, B * ldx);
    c->be->sum_rows_into_col(c->be, dx, ldx, col, dev_in(c, "dy", dy, B * C), B, C);
    float *want = keep(c, malloc(B * ldx * sizeof *want + 4));
    memcpy(want, x0, B * ldx * sizeof *want);
    for (size_t r = 0; r < B; r++) {
        double s = 0;
        for (size_t j = 0; j < C; j++) s += dy[r * C + j];
        want[r * ldx + col] += (float)s;
    }
    judge_f(c, "x", read_out(c, dx), want, B * ldx);
}

/* m = B, n = A, k = C: x (B, A, C) with row stride A C + pad, y (B, C, A)
 * with row stride A C + 2 pad (an element moved to the wrong place, or a
 * write into a gap, shows). */
static void run_transpose_rows(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, A = k->n, C = k->k, ldx = A * C + k->pad, ldy = A * C + 2 * k->pad;
    shape(c, "B%zu %zux%zu ldx%zu ldy%zu", B, A, C, ldx, ldy);
    float *x = rnd_f(c, B * ldx, seed, -1, 1), *want = val_f(c, B * ldy, NAN);
    float *dy = dev_out(c, "y", want, B * ldy);
    c->be->transpose_rows(c->be, dy, ldy, dev_in(c, "x", x, B * ldx), ldx, B, A, C);
    for (size_t r = 0; r < B; r++)
        for (size_t a = 0; a < A; a++)
            for (size_t j = 0; j < C; j++) want[r * ldy + j * A + a] = x[r * ldx + a * C + j];
    judge_f(c, "y", read_out(c, dy), want, B * ldy);
}

/* ---- LSTM cell ---- */

/* m = B, n = H: gates rows of ldg = 4H + pad, c_prev and c of ldc = H + 2
 * pad, h of ldh = H + 3 pad (a stride mixed up, or a write into a gap,
 * shows). Pre-activations in (-4, 4); SPECIAL adds saturating +-30 and
 * exact zeros (i = f = o = 1/2, g = 0). Outputs: gates (activated), c, h. */
static void run_lstm_cell_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, H = k->n, ldg = 4 * H + k->pad, ldc = H + 2 * k->pad, ldh = H + 3 * k->pad;
    int no_cp = !!(k->opt & NO_CPREV);
    shape(c, "B%zu H%zu ldg%zu ldc%zu ldh%zu%s%s", B, H, ldg, ldc, ldh, no_cp ? " c_prev=0" : "",
          k->opt & SPECIAL ? " sat" : "");
    float *pre = rnd_f(c, B * ldg, seed, -4, 4);
    for (size_t i = 0; k->opt & SPECIAL && i < B * ldg; i++) {
        if (i % 7 == 1) pre[i] = 30.0f;
        if (i % 7 == 4) pre[i] = -30.0f;
        if (i % 11 == 6) pre[i] = 0.0f;
    }
    float *cprev = no_cp ? NULL : rnd_f(c, B * ldc, seed + 1, -2, 2);
    float *dg = dev_out(c, "gates", pre, B * ldg);
    const float *dcp = cprev ? dev_in(c, "c_prev", cprev, B * ldc) : NULL;
    float *dcell = dev_out(c, "c", val_f(c, B * ldc, NAN), B * ldc);
    float *dhid = dev_out(c, "h", val_f(c, B * ldh, NAN), B * ldh);
    c->be->lstm_cell_forward(c->be, dg, ldg, dcp, dcell, ldc, dhid, ldh, B, H);
    /* gaps: what was there (scale 0: bit for bit) */
    double *wa = dbl(c, B * ldg), *sa = dbl(c, B * ldg), *wc = dbl(c, B * ldc), *sc = dbl(c, B * ldc);
    double *wh = dbl(c, B * ldh), *sh = dbl(c, B * ldh);
    for (size_t i = 0; i < B * ldg; i++) wa[i] = pre[i];
    for (size_t i = 0; i < B * ldc; i++) wc[i] = NAN;
    for (size_t i = 0; i < B * ldh; i++) wh[i] = NAN;
    for (size_t r = 0; r < B; r++)
        ref_lstm_cell_row(wa + r * ldg, sa + r * ldg, wc + r * ldc, sc + r * ldc, wh + r * ldh, sh + r * ldh,
                          pre + r * ldg, cprev ? cprev + r * ldc : NULL, H);
    judge(c, "gates", read_out(c, dg), wa, sa, B * ldg, k->tol);
    judge(c, "c", read_out(c, dcell), wc, sc, B * ldc, k->tol);
    judge(c, "h", read_out(c, dhid), wh, sh, B * ldh, k->tol);
}

/* m = B, n = H: gates rows of ldg = 4H + pad, dgates of lddg = 4H + 3 pad
 * (IN_PLACE: the gates buffer itself, lddg = ldg), c_prev and c of ldc =
 * H + 2 pad, dh of ldh = H + pad, dc of lddc = H + 4 pad. Activated gates
 * as a forward leaves them: i, f, o in (0, 1), g in (-1, 1); c in (-3, 3);
 * SPECIAL adds saturated gates (i, o = 1, f tiny, g = +-1) and c = +-20,
 * whose tanhf is +-1 (1 - tc^2 = 0). Outputs: dgates, dc (d c_prev). */
static void run_lstm_cell_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, H = k->n, ldg = 4 * H + k->pad, ldc = H + 2 * k->pad, ldh = H + k->pad;
    size_t lddc = H + 4 * k->pad;
    int no_cp = !!(k->opt & NO_CPREV), in_place = !!(k->opt & IN_PLACE);
    size_t lddg = in_place ? ldg : 4 * H + 3 * k->pad;
    shape(c, "B%zu H%zu ldg%zu lddg%zu ldc%zu ldh%zu lddc%zu%s%s%s", B, H, ldg, lddg, ldc, ldh, lddc,
          no_cp ? " c_prev=0" : "", in_place ? " in-place" : "", k->opt & SPECIAL ? " sat" : "");
    float *gates = rnd_f(c, B * ldg, seed, 0.01f, 0.99f);
    float *cell = rnd_f(c, B * ldc, seed + 1, -3, 3);
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < H; j++) {
            float *gr = gates + r * ldg;
            gr[2 * H + j] = 2.0f * gr[2 * H + j] - 1.0f;
            if (!(k->opt & SPECIAL)) continue;
            if (j % 5 == 1) gr[j] = 1.0f, gr[3 * H + j] = 1.0f;
            if (j % 5 == 2) gr[H + j] = 1e-6f, gr[2 * H + j] = j % 2 ? 1.0f : -1.0f;
            if (j % 5 == 3) cell[r * ldc + j] = j % 2 ? 20.0f : -20.0f;
        }
    float *cprev = no_cp ? NULL : rnd_f(c, B * ldc, seed + 2, -2, 2);
    float *dh = rnd_f(c, B * ldh, seed + 3, -1, 1), *dc0 = rnd_f(c, B * lddc, seed + 4, -1, 1);
    float *dd_g;
    const float *d_g;
    if (in_place) {
        dd_g = dev_out(c, "gates", gates, B * ldg);
        d_g = dd_g;
    } else {
        d_g = dev_in(c, "gates", gates, B * ldg);
        dd_g = dev_out(c, "dgates", val_f(c, B * lddg, NAN), B * lddg);
    }
    const float *dcp = cprev ? dev_in(c, "c_prev", cprev, B * ldc) : NULL;
    const float *dcell = dev_in(c, "c", cell, B * ldc), *ddh = dev_in(c, "dh", dh, B * ldh);
    float *ddc = dev_out(c, "dc", dc0, B * lddc);
    c->be->lstm_cell_backward(c->be, dd_g, lddg, d_g, ldg, dcp, dcell, ldc, ddh, ldh, ddc, lddc, B, H);
    double *wg = dbl(c, B * lddg), *sg = dbl(c, B * lddg), *wc = dbl(c, B * lddc), *sc = dbl(c, B * lddc);
    for (size_t i = 0; i < B * lddg; i++) wg[i] = in_place ? gates[i] : NAN;
    for (size_t i = 0; i < B * lddc; i++) wc[i] = dc0[i];
    for (size_t r = 0; r < B; r++)
        ref_lstm_cell_backward_row(wg + r * lddg, sg + r * lddg, wc + r * lddc, sc + r * lddc, gates + r * ldg,
                                   cprev ? cprev + r * ldc : NULL, cell + r * ldc, dh + r * ldh, dc0 + r * lddc, H);
    judge(c, "dgates", read_out(c, dd_g), wg, sg, B * lddg, k->tol);
    judge(c, "dc", read_out(c, ddc), wc, sc, B * lddc, k->tol);
}

/* ---- layer norm ---- */

/* x (B, ldx) in (-2, 3); SPECIAL makes row 0 constant (variance 0: y is
 * beta exactly, dx = rstd (g - mean(g)) with rstd = 1 / sqrt(eps)) and
 * row 1 a level of 1000 with a spread of 1e-2 (the mean's rounding to
 * float dominates y's error there). */
static float *ln_input(ctx *c, size_t B, size_t D, size_t ldx, int special, uint64_t seed) {
    float *x = rnd_f(c, B * ldx, seed, -2, 3);
    for (size_t j = 0; special && j < D; j++) {
        x[j] = 0.75f;
        if (B > 1) x[ldx + j] = 1000.0f + 0.01f * x[ldx + j];
    }
    return x;
}

/* m = B, n = D, alpha = eps: x rows of ldx = D + pad, y of ldy = D + 2 pad
 * (IN_PLACE: y is x's buffer, ldy = ldx). Outputs y, mean, rstd. */
static void run_layer_norm_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, D = k->n, ldx = D + k->pad;
    int in_place = !!(k->opt & IN_PLACE);
    size_t ldy = in_place ? ldx : D + 2 * k->pad;
    float eps = k->alpha;
    shape(c, "B%zu D%zu ldx%zu ldy%zu eps=%g%s%s", B, D, ldx, ldy, (double)eps, in_place ? " in-place" : "",
          k->opt & SPECIAL ? " const,level" : "");
    float *x = ln_input(c, B, D, ldx, !!(k->opt & SPECIAL), seed);
    float *gamma = rnd_f(c, D, seed + 1, -2, 2), *beta = rnd_f(c, D, seed + 2, -1, 1);
    const float *dgam = dev_in(c, "gamma", gamma, D), *dbet = dev_in(c, "beta", beta, D);
    float *dmean = dev_out(c, "mean", val_f(c, B, NAN), B), *drstd = dev_out(c, "rstd", val_f(c, B, NAN), B);
    float *dy;
    const float *dx;
    if (in_place) {
        dy = dev_out(c, "y", x, B * ldx);
        dx = dy;
    } else {
        dx = dev_in(c, "x", x, B * ldx);
        dy = dev_out(c, "y", val_f(c, B * ldy, NAN), B * ldy);
    }
    c->be->layer_norm_forward(c->be, dy, ldy, dx, ldx, dgam, dbet, dmean, drstd, B, D, eps);
    /* gaps: what was there (scale 0: bit for bit) */
    double *wy = dbl(c, B * ldy), *sy = dbl(c, B * ldy), *wm = dbl(c, B), *sm = dbl(c, B), *wr = dbl(c, B);
    for (size_t i = 0; i < B * ldy; i++) wy[i] = in_place ? x[i] : NAN;
    for (size_t r = 0; r < B; r++)
        ref_layer_norm_row(wy + r * ldy, sy + r * ldy, &wm[r], &sm[r], &wr[r], x + r * ldx, gamma, beta, D, eps);
    judge(c, "y", read_out(c, dy), wy, sy, B * ldy, k->tol);
    judge(c, "mean", read_out(c, dmean), wm, sm, B, k->tol);
    judge(c, "rstd", read_out(c, drstd), wr, wr, B, k->tol);
}

/* m = B, n = D, alpha = the forward's eps: x rows of ldx = D + pad, dy of
 * lddy = D + 2 pad, dx of lddx = D + 3 pad (IN_PLACE: dx is dy's buffer,
 * lddx = lddy). mean and rstd are the reference forward's, rounded to
 * float as a forward saves them; dgamma and dbeta start random (they
 * accumulate). Outputs dx, dgamma, dbeta. */
static void run_layer_norm_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, D = k->n, ldx = D + k->pad, lddy = D + 2 * k->pad;
    int in_place = !!(k->opt & IN_PLACE);
    size_t lddx = in_place ? lddy : D + 3 * k->pad;
    shape(c, "B%zu D%zu ldx%zu lddy%zu lddx%zu%s%s", B, D, ldx, lddy, lddx, in_place ? " in-place" : "",
          k->opt & SPECIAL ? " const,level" : "");
    float *x = ln_input(c, B, D, ldx, !!(k->opt & SPECIAL), seed);
    float *gamma = rnd_f(c, D, seed + 1, -2, 2), *beta = val_f(c, D, 0.0f), *dy = rnd_f(c, B * lddy, seed + 2, -1, 1);
    float *dgamma0 = rnd_f(c, D, seed + 3, -1, 1), *dbeta0 = rnd_f(c, D, seed + 4, -1, 1);
    float *mean = keep(c, malloc((B ? B : 1) * sizeof *mean)), *rstd = keep(c, malloc((B ? B : 1) * sizeof *rstd));
    double *yd = dbl(c, D), *ys = dbl(c, D), *wx = dbl(c, B * lddx), *sx = dbl(c, B * lddx);
    for (size_t r = 0; r < B; r++) {
        double m, ms, rs;
        ref_layer_norm_row(yd, ys, &m, &ms, &rs, x + r * ldx, gamma, beta, D, k->alpha);
        mean[r] = (float)m, rstd[r] = (float)rs;
    }
    const float *dx_in = dev_in(c, "x", x, B * ldx), *dgam = dev_in(c, "gamma", gamma, D);
    const float *dmean = dev_in(c, "mean", mean, B), *drstd = dev_in(c, "rstd", rstd, B);
    float *ddg = dev_out(c, "dgamma", dgamma0, D), *ddb = dev_out(c, "dbeta", dbeta0, D);
    float *ddx;
    const float *ddy;
    if (in_place) {
        ddx = dev_out(c, "dy", dy, B * lddy);
        ddy = ddx;
    } else {
        ddy = dev_in(c, "dy", dy, B * lddy);
        ddx = dev_out(c, "dx", val_f(c, B * lddx, NAN), B * lddx);
    }
    c->be->layer_norm_backward(c->be, ddx, lddx, ddy, lddy, dx_in, ldx, dgam, dmean, drstd, ddg, ddb, B, D);
    for (size_t i = 0; i < B * lddx; i++) wx[i] = in_place ? dy[i] : NAN;
    for (size_t r = 0; r < B; r++)
        ref_layer_norm_backward_row(wx + r * lddx, sx + r * lddx, dy + r * lddy, x + r * ldx, gamma, mean[r], rstd[r],
                                    D);
    double *wg = dbl(c, D), *sg = dbl(c, D), *wb = dbl(c, D), *sb = dbl(c, D);
    ref_layer_norm_params(wg, sg, wb, sb, dgamma0, dbeta0, dy, lddy, x, ldx, mean, rstd, B, D);
    judge(c, "dx", read_out(c, ddx), wx, sx, B * lddx, k->tol);
    judge(c, "dgamma", read_out(c, ddg), wg, sg, D, k->tol);
    judge(c, "dbeta", read_out(c, ddb), wb, sb, D, k->tol);
}

/* ---- dropout ---- */

/* m = B, n = C, k = offset, alpha = p: x rows of ldx = C + pad, y of ldy =
 * C + 2 pad (IN_PLACE: y is x's buffer, ldy = ldx); the seed fills both
 * key words. x in (-2, 2) with -0, +-inf, NaN and a subnormal first (a
 * dropped -x is -0, a dropped inf or NaN is NaN). Output y, bit for bit
 * (any NaN matches any NaN). */
static void run_dropout(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, C = k->n, ldx = C + k->pad;
    int in_place = !!(k->opt & IN_PLACE);
    size_t ldy = in_place ? ldx : C + 2 * k->pad;
    uint64_t dseed = seed * 0x9E3779B97F4A7C15ull, offset = k->k;
    float p = k->alpha;
    shape(c, "B%zu C%zu ldx%zu ldy%zu p=%g off=%zu%s", B, C, ldx, ldy, (double)p, k->k, in_place ? " in-place" : "");
    float *x = rnd_f(c, B * ldx, seed, -2, 2);
    const float special[] = {-0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1.5f};
    for (size_t i = 0; i < C && i < sizeof special / sizeof *special; i++) x[i] = special[i];
    float *dy;
    const float *dx;
    if (in_place) {
        dy = dev_out(c, "y", x, B * ldx);
        dx = dy;
    } else {
        dx = dev_in(c, "x", x, B * ldx);
        dy = dev_out(c, "y", val_f(c, B * ldy, NAN), B * ldy);
    }
    c->be->dropout(c->be, dy, ldy, dx, ldx, B, C, p, dseed, offset);
    float *want = keep(c, malloc((B * ldy + 1) * sizeof *want));
    for (size_t i = 0; i < B * ldy; i++) want[i] = in_place ? x[i] : NAN;
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < C; j++) {
            float xv = x[r * ldx + j];
            int kept = ref_dropout_keep(dseed, offset + r * C + j, p);
            want[r * ldy + j] = p == 0.0f ? xv : ref_dropout_value(xv, kept, p);
        }
    judge_f(c, "y", read_out(c, dy), want, B * ldy);
}

/* ---- GELU ---- */

/* x (n) in (-6, 6), the first ones special: signed zeros, +-1, +-inf, NaN,
 * the far tails (-40 and -1e30 give -0, -10 a tiny normal, 1e30 itself), a
 * subnormal and the derivative's zero near -0.7518. */
static float *gelu_input(ctx *c, size_t n, uint64_t seed) {
    float *x = rnd_f(c, n, seed, -6, 6);
    const float special[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN,
                             -40.0f, -1e30f, -10.0f, 1e30f, 1e-40f, -0.75179f};
    for (size_t i = 0; i < n && i < sizeof special / sizeof *special; i++) x[i] = special[i];
    return x;
}

/* m = n. Output y (IN_PLACE: x's buffer). */
static void run_gelu_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    int in_place = !!(k->opt & IN_PLACE);
    shape(c, "n%zu%s", n, in_place ? " in-place" : "");
    float *x = gelu_input(c, n, seed);
    float *d_y = dev_out(c, "y", in_place ? x : val_f(c, n, NAN), n);
    const float *d_x = in_place ? d_y : dev_in(c, "x", x, n);
    c->be->gelu_forward(c->be, d_y, d_x, n);
    double *want = dbl(c, n), *scale = dbl(c, n);
    for (size_t i = 0; i < n; i++) ref_gelu(&want[i], &scale[i], x[i]);
    judge(c, "y", read_out(c, d_y), want, scale, n, k->tol);
}

/* m = n; dy in (-1, 1). Output dx (IN_PLACE: dy's buffer). */
static void run_gelu_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    int in_place = !!(k->opt & IN_PLACE);
    shape(c, "n%zu%s", n, in_place ? " in-place" : "");
    float *x = gelu_input(c, n, seed), *dy = rnd_f(c, n, seed + 1, -1, 1);
    const float *d_x = dev_in(c, "x", x, n);
    float *d_dx = dev_out(c, in_place ? "dy" : "dx", in_place ? dy : val_f(c, n, NAN), n);
    const float *d_dy = in_place ? d_dx : dev_in(c, "dy", dy, n);
    c->be->gelu_backward(c->be, d_dx, d_dy, d_x, n);
    double *want = dbl(c, n), *scale = dbl(c, n);
    for (size_t i = 0; i < n; i++) ref_gelu_backward(&want[i], &scale[i], dy[i], x[i]);
    judge(c, "dx", read_out(c, d_dx), want, scale, n, k->tol);
}

/* ---- attention ---- */

/* m = B, n = P, k = H, pad = E (the head width: attention has four
 * sizes), alpha = p, scale 1 / sqrt(E) as PatchTST's. PACKED: q, k, v, out
 * and their gradients are separate (B P, H E) matrices; else q, k, v are
 * the column blocks of one (B P, 3 H E + 1) matrix (ldq), dq, dk, dv of
 * another (B P, 3 H E + 3) one (lddq) and out, dout have ldo = H E + 2: a
 * stride mixed up, or a write into a gap, shows. The dropout offset puts
 * the indices of rows of more than 256 probabilities across 2^32. */
#define ATTN_OFFSET 0xFFFFFF00u

typedef struct {
    ref_attn a;
    size_t lddq;
    int packed;
} attn_layout;

static attn_layout attn_layout_of(const op_case *k, uint64_t seed) {
    size_t B = k->m, P = k->n, H = k->k, E = k->pad, HE = H * E;
    int packed = !!(k->opt & PACKED);
    attn_layout l = {{B, P, H, E, packed ? HE : 3 * HE + 1, packed ? HE : HE + 2, (float)(1.0 / sqrt((double)E)),
                      k->alpha, seed * 0x9E3779B97F4A7C15ull, ATTN_OFFSET},
                     packed ? HE : 3 * HE + 3, packed};
    return l;
}

typedef struct {
    const float *q, *k, *v;
} qkv_ptrs;

/* q, k, v in (-1.5, 1.5) on the host (for the reference) and the device:
 * three matrices, or the column blocks of one. */
static void attn_inputs(ctx *c, const attn_layout *l, uint64_t seed, qkv_ptrs *host, qkv_ptrs *dev) {
    size_t rows = l->a.B * l->a.P, HE = l->a.H * l->a.E;
    if (l->packed) {
        float *q = rnd_f(c, rows * HE, seed, -1.5f, 1.5f), *k = rnd_f(c, rows * HE, seed + 1, -1.5f, 1.5f);
        float *v = rnd_f(c, rows * HE, seed + 2, -1.5f, 1.5f);
        *host = (qkv_ptrs){q, k, v};
        *dev = (qkv_ptrs){dev_in(c, "q", q, rows * HE), dev_in(c, "k", k, rows * HE), dev_in(c, "v", v, rows * HE)};
        return;
    }
    float *x = rnd_f(c, rows * l->a.ldq, seed, -1.5f, 1.5f);
    const float *d = dev_in(c, "qkv", x, rows * l->a.ldq);
    *host = (qkv_ptrs){x, x + HE, x + 2 * HE};
    *dev = (qkv_ptrs){d, d + HE, d + 2 * HE};
}

static void attn_shape(ctx *c, const attn_layout *l, const char *extra) {
    const ref_attn *a = &l->a;
    shape(c, "B%zu P%zu H%zu E%zu ldq%zu ldo%zu p=%g%s", a->B, a->P, a->H, a->E, a->ldq, a->ldo, (double)a->p, extra);
}

/* Outputs scores, probs and out. PREV: prev in (-2, 2); IN_PLACE: prev is
 * the scores buffer, holding prev on entry. */
static void run_attention_forward(ctx *c, const op_case *k, uint64_t seed) {
    attn_layout l = attn_layout_of(k, seed);
    const ref_attn *a = &l.a;
    int in_place = !!(k->opt & IN_PLACE), has_prev = in_place || (k->opt & PREV);
    size_t rows = a->B * a->P, nsc = a->B * a->H * a->P * a->P;
    attn_shape(c, &l, in_place ? " prev=scores" : has_prev ? " prev" : "");
    qkv_ptrs h, d;
    attn_inputs(c, &l, seed, &h, &d);
    float *prev = has_prev ? rnd_f(c, nsc, seed + 5, -2, 2) : NULL;
    float *d_scores = dev_out(c, "scores", in_place ? prev : val_f(c, nsc, NAN), nsc);
    const float *d_prev = in_place ? d_scores : prev ? dev_in(c, "prev", prev, nsc) : NULL;
    float *d_probs = dev_out(c, "probs", val_f(c, nsc, NAN), nsc);
    float *d_out = dev_out(c, "out", val_f(c, rows * a->ldo, NAN), rows * a->ldo);
    c->be->attention_forward(c->be, d_out, a->ldo, d_scores, d_probs, d_prev, d.q, d.k, d.v, a->ldq, a->B, a->P, a->H,
                             a->E, a->scale, a->p, a->seed, a->offset);
    double *ws = dbl(c, nsc), *ss = dbl(c, nsc), *wp = dbl(c, nsc), *sp = dbl(c, nsc);
    double *wo = dbl(c, rows * a->ldo), *so = dbl(c, rows * a->ldo);
    for (size_t i = 0; i < rows * a->ldo; i++) wo[i] = NAN;   /* gaps: scale 0, bit for bit */
    ref_attention_forward(ws, ss, wp, sp, wo, so, a, h.q, h.k, h.v, prev);
    judge(c, "scores", read_out(c, d_scores), ws, ss, nsc, k->tol);
    judge(c, "probs", read_out(c, d_probs), wp, sp, nsc, k->tol);
    judge(c, "out", read_out(c, d_out), wo, so, rows * a->ldo, k->tol);
}

/* probs (B H P rows of P) as a forward saves them: the softmax of scores
 * in (-3, 3), in double, rounded to float. */
static float *attn_probs(ctx *c, size_t nrows, size_t P, uint64_t seed) {
    float *p = rnd_f(c, nrows * P, seed, -3, 3);
    for (size_t r = 0; r < nrows; r++) {
        float *row = p + r * P;
        double m = -INFINITY, sum = 0;
        for (size_t j = 0; j < P; j++) m = row[j] > m ? row[j] : m;
        for (size_t j = 0; j < P; j++) sum += exp(row[j] - m);
        for (size_t j = 0; j < P; j++) row[j] = (float)(exp(row[j] - m) / sum);
    }
    return p;
}

/* dq, dk, dv on the device (NaN, so that gaps show): three matrices, or
 * the column blocks of one, whose start g[0] then is. */
static void attn_grad_outputs(ctx *c, const attn_layout *l, float *g[3]) {
    size_t rows = l->a.B * l->a.P, HE = l->a.H * l->a.E;
    if (l->packed) {
        g[0] = dev_out(c, "dq", val_f(c, rows * HE, NAN), rows * HE);
        g[1] = dev_out(c, "dk", val_f(c, rows * HE, NAN), rows * HE);
        g[2] = dev_out(c, "dv", val_f(c, rows * HE, NAN), rows * HE);
        return;
    }
    g[0] = dev_out(c, "dqkv", val_f(c, rows * l->lddq, NAN), rows * l->lddq);
    g[1] = g[0] + HE, g[2] = g[0] + 2 * HE;
}

/* Outputs dq, dk, dv and dscores. probs as attn_probs makes them, dout in
 * (-1, 1), dscores on entry in (-0.5, 0.5) (the next layer's). */
static void run_attention_backward(ctx *c, const op_case *k, uint64_t seed) {
    attn_layout l = attn_layout_of(k, seed);
    const ref_attn *a = &l.a;
    size_t rows = a->B * a->P, nsc = a->B * a->H * a->P * a->P, HE = a->H * a->E;
    attn_shape(c, &l, "");
    qkv_ptrs h, d;
    attn_inputs(c, &l, seed, &h, &d);
    float *probs = attn_probs(c, a->B * a->H * a->P, a->P, seed + 5);
    float *dout = rnd_f(c, rows * a->ldo, seed + 6, -1, 1), *ds_in = rnd_f(c, nsc, seed + 7, -0.5f, 0.5f);
    const float *d_probs = dev_in(c, "probs", probs, nsc), *d_dout = dev_in(c, "dout", dout, rows * a->ldo);
    float *d_ds = dev_out(c, "dscores", ds_in, nsc), *g[3];
    attn_grad_outputs(c, &l, g);
    c->be->attention_backward(c->be, g[0], g[1], g[2], l.lddq, d_ds, d_probs, d.q, d.k, d.v, a->ldq, d_dout, a->ldo,
                              a->B, a->P, a->H, a->E, a->scale, a->p, a->seed, a->offset);
    /* the reference's dq, dk, dv at the same places: three arrays, or one */
    size_t glen = l.packed ? rows * HE : rows * l.lddq, nbuf = l.packed ? 3 : 1;
    double *wg = dbl(c, nbuf * glen), *sg = dbl(c, nbuf * glen), *wd = dbl(c, nsc), *sd = dbl(c, nsc);
    for (size_t i = 0; i < nbuf * glen; i++) wg[i] = NAN;   /* gaps: scale 0, bit for bit */
    size_t step = l.packed ? glen : HE;
    ref_attention_backward(wg, sg, wg + step, sg + step, wg + 2 * step, sg + 2 * step, l.lddq, wd, sd, a, probs, h.q,
                           h.k, h.v, dout, ds_in);
    judge(c, "dscores", read_out(c, d_ds), wd, sd, nsc, k->tol);
    if (!l.packed) {
        judge(c, "dqkv", read_out(c, g[0]), wg, sg, glen, k->tol);
        return;
    }
    const char *names[3] = {"dq", "dk", "dv"};
    for (int m = 0; m < 3; m++) judge(c, names[m], read_out(c, g[m]), wg + m * glen, sg + m * glen, glen, k->tol);
}

/* ---- batch norm ---- */

/* x (N, C) in (-2, 3); SPECIAL makes column 0 constant (variance 0: y is
 * beta exactly, dx = rstd (g - mean(g)) with rstd = 1 / sqrt(eps)) and
 * column 1 a level of 1000 with a spread of 1e-2 (the mean's rounding to
 * float dominates y's error there). */
static float *bn_input(ctx *c, size_t N, size_t C, int special, uint64_t seed) {
    float *x = rnd_f(c, N * C, seed, -2, 3);
    for (size_t r = 0; special && r < N; r++) {
        x[r * C] = 0.75f;
        if (C > 1) x[r * C + 1] = 1000.0f + 0.01f * x[r * C + 1];
    }
    return x;
}

/* Training's outputs against the reference (the counter was 3). */
static void bn_judge_train(ctx *c, const op_case *k, float *dy, float *dmean, float *drstd, float *drm, float *drv,
                           float *dbat, const float *x, const float *gamma, const float *beta, const float *rm0,
                           const float *rv0) {
    size_t N = k->m, C = k->n;
    ref_bn_out o = {dbl(c, N * C), dbl(c, N * C), dbl(c, C), dbl(c, C), dbl(c, C),
                    dbl(c, C), dbl(c, C), dbl(c, C), dbl(c, C)};
    ref_batch_norm_train(&o, x, N, C, gamma, beta, rm0, rv0, k->beta, k->alpha);
    judge(c, "y", read_out(c, dy), o.y, o.y_scale, N * C, k->tol);
    judge(c, "mean", read_out(c, dmean), o.mean, o.mean_scale, C, k->tol);
    judge(c, "rstd", read_out(c, drstd), o.rstd, o.rstd, C, k->tol);
    judge(c, "running_mean", read_out(c, drm), o.rm, o.rm_scale, C, k->tol);
    judge(c, "running_var", read_out(c, drv), o.rv, o.rv_scale, C, k->tol);
    if (dbat) judge_f(c, "batches", read_out(c, dbat), val_f(c, 1, 4.0f), 1);
}

/* m = N, n = C, alpha = eps, beta = momentum. Training: outputs y
 * (IN_PLACE: x's buffer, and batches NULL), mean, rstd, the running
 * statistics and the batch counter (3 before). EVAL: y; the running
 * statistics are inputs, and mean, rstd (NaN) and the counter must come
 * back untouched. */
static void run_batch_norm_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t N = k->m, C = k->n;
    int in_place = !!(k->opt & IN_PLACE), eval = !!(k->opt & EVAL);
    shape(c, "N%zu C%zu eps=%g mom=%g%s%s%s", N, C, (double)k->alpha, (double)k->beta, eval ? " eval" : " train",
          in_place ? " in-place" : "", k->opt & SPECIAL ? " const,level" : "");
    float *x = bn_input(c, N, C, !!(k->opt & SPECIAL), seed);
    float *gamma = rnd_f(c, C, seed + 1, -2, 2), *beta = rnd_f(c, C, seed + 2, -1, 1);
    float *rm0 = rnd_f(c, C, seed + 3, -1, 1), *rv0 = rnd_f(c, C, seed + 4, 0.5f, 2);
    const float *dgam = dev_in(c, "gamma", gamma, C), *dbet = dev_in(c, "beta", beta, C);
    float *drm = upload(c, "running_mean", rm0, C * sizeof *rm0, eval);
    float *drv = upload(c, "running_var", rv0, C * sizeof *rv0, eval);
    float *dbat = in_place ? NULL : dev_out(c, "batches", val_f(c, 1, 3.0f), 1);
    float *dmean = dev_out(c, "mean", val_f(c, C, NAN), C), *drstd = dev_out(c, "rstd", val_f(c, C, NAN), C);
    float *dy = dev_out(c, "y", in_place ? x : val_f(c, N * C, NAN), N * C);
    const float *dx = in_place ? dy : dev_in(c, "x", x, N * C);
    c->be->batch_norm_forward(c->be, dy, dx, N, C, dgam, dbet, drm, drv, dbat, dmean, drstd, !eval, k->beta,
                              k->alpha);
    if (!eval) {
        bn_judge_train(c, k, dy, dmean, drstd, drm, drv, dbat, x, gamma, beta, rm0, rv0);
        return;
    }
    double *wy = dbl(c, N * C), *sy = dbl(c, N * C);
    ref_batch_norm_eval(wy, sy, x, N, C, gamma, beta, rm0, rv0, k->alpha);
    judge(c, "y", read_out(c, dy), wy, sy, N * C, k->tol);
    judge_f(c, "mean", read_out(c, dmean), val_f(c, C, NAN), C);
    judge_f(c, "rstd", read_out(c, drstd), val_f(c, C, NAN), C);
    if (dbat) judge_f(c, "batches", read_out(c, dbat), val_f(c, 1, 3.0f), 1);
}

/* m = N, n = C, alpha = the forward's eps. mean and rstd are the reference
 * training forward's, rounded to float as a forward saves them; dgamma and
 * dbeta start random (they accumulate). Outputs dx (IN_PLACE: dy's
 * buffer), dgamma, dbeta. */
static void run_batch_norm_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t N = k->m, C = k->n;
    int in_place = !!(k->opt & IN_PLACE);
    shape(c, "N%zu C%zu%s%s", N, C, in_place ? " in-place" : "", k->opt & SPECIAL ? " const,level" : "");
    float *x = bn_input(c, N, C, !!(k->opt & SPECIAL), seed), *gamma = rnd_f(c, C, seed + 1, -2, 2);
    float *dy = rnd_f(c, N * C, seed + 2, -1, 1);
    float *dgamma0 = rnd_f(c, C, seed + 3, -1, 1), *dbeta0 = rnd_f(c, C, seed + 4, -1, 1);
    float *mean = val_f(c, C, 0), *rstd = val_f(c, C, 0);
    ref_bn_out o = {dbl(c, N * C), dbl(c, N * C), dbl(c, C), dbl(c, C), dbl(c, C),
                    dbl(c, C), dbl(c, C), dbl(c, C), dbl(c, C)};
    ref_batch_norm_train(&o, x, N, C, gamma, val_f(c, C, 0), val_f(c, C, 0), val_f(c, C, 1), 0.1f, k->alpha);
    for (size_t j = 0; j < C; j++) mean[j] = (float)o.mean[j], rstd[j] = (float)o.rstd[j];
    const float *dx_in = dev_in(c, "x", x, N * C), *dgam = dev_in(c, "gamma", gamma, C);
    const float *dmean = dev_in(c, "mean", mean, C), *drstd = dev_in(c, "rstd", rstd, C);
    float *ddg = dev_out(c, "dgamma", dgamma0, C), *ddb = dev_out(c, "dbeta", dbeta0, C);
    float *ddx = dev_out(c, in_place ? "dy" : "dx", in_place ? dy : val_f(c, N * C, NAN), N * C);
    const float *ddy = in_place ? ddx : dev_in(c, "dy", dy, N * C);
    c->be->batch_norm_backward(c->be, ddx, ddy, dx_in, N, C, dgam, dmean, drstd, ddg, ddb);
    double *wx = dbl(c, N * C), *sx = dbl(c, N * C), *wg = dbl(c, C), *sg = dbl(c, C), *wb = dbl(c, C),
           *sb = dbl(c, C);
    ref_batch_norm_backward(wx, sx, wg, sg, wb, sb, dy, x, N, C, gamma, mean, rstd, dgamma0, dbeta0);
    judge(c, "dx", read_out(c, ddx), wx, sx, N * C, k->tol);
    judge(c, "dgamma", read_out(c, ddg), wg, sg, C, k->tol);
    judge(c, "dbeta", read_out(c, ddb), wb, sb, C, k->tol);
}

/* ---- RevIN and patches ---- */

#define REVIN_EPS 1e-5f   /* neuralforecast's RevIN */

/* m = B, n = L, k = patch_len, pad: x rows of ldx = L + pad, alpha = the
 * stride; P as PatchTST counts it, int((L - patch_len) / stride + 1) + 1
 * (python's int truncates toward zero: 1 when patch_len > L). NO_REVIN,
 * LAST, AFFINE as named; affine (w, b) in (0.5, 1.5). */
static ref_revin revin_of(const op_case *k, const float *affine) {
    size_t L = k->n, pl = k->k, st = (size_t)k->alpha;
    size_t P = (size_t)(int)(((double)L - (double)pl) / (double)st + 1.0) + 1;
    ref_revin r = {k->m, L, L + k->pad, pl, st, P, !(k->opt & NO_REVIN), !!(k->opt & LAST), affine, REVIN_EPS};
    return r;
}

static void revin_shape(ctx *c, const ref_revin *r, const char *extra) {
    shape(c, "B%zu L%zu ld%zu p%zu s%zu P%zu%s%s%s%s", r->B, r->L, r->ldx, r->patch_len, r->stride, r->P,
          r->revin ? "" : " no-revin", r->subtract_last ? " last" : "", r->affine ? " affine" : "", extra);
}

/* Windows at different levels (up to 60) and spreads (up to 4x). */
static float *revin_input(ctx *c, const ref_revin *r, uint64_t seed) {
    float *x = rnd_f(c, r->B * r->ldx, seed, -3, 5);
    for (size_t b = 0; b < r->B; b++)
        for (size_t t = 0; t < r->L; t++) x[b * r->ldx + t] = x[b * r->ldx + t] * (float)(b % 4 + 1) + 10.0f * (b % 7);
    return x;
}

/* Outputs patches (B, P, patch_len) and stats (B, 2). */
static void run_revin_patch_forward(ctx *c, const op_case *k, uint64_t seed) {
    float *affine = k->opt & AFFINE ? rnd_f(c, 2, seed + 1, 0.5f, 1.5f) : NULL;
    ref_revin r = revin_of(k, affine);
    revin_shape(c, &r, "");
    size_t per = r.P * r.patch_len;
    float *x = revin_input(c, &r, seed);
    const float *dx = dev_in(c, "x", x, r.B * r.ldx), *daff = affine ? dev_in(c, "affine", affine, 2) : NULL;
    float *dp = dev_out(c, "patches", val_f(c, r.B * per, NAN), r.B * per);
    float *dst = dev_out(c, "stats", val_f(c, 2 * r.B, NAN), 2 * r.B);
    c->be->revin_patch_forward(c->be, dp, dst, dx, r.ldx, r.B, r.L, r.patch_len, r.stride, r.P, r.revin,
                               r.subtract_last, daff, REVIN_EPS);
    double *wp = dbl(c, r.B * per), *sp = dbl(c, r.B * per), *ws = dbl(c, 2 * r.B), *ss = dbl(c, 2 * r.B);
    ref_revin_patch(wp, sp, ws, ss, &r, x);
    judge(c, "patches", read_out(c, dp), wp, sp, r.B * per, k->tol);
    judge(c, "stats", read_out(c, dst), ws, ss, 2 * r.B, k->tol);
}

/* The stats a forward saves (the reference's, rounded to float). */
static float *revin_stats(ctx *c, const ref_revin *r, const float *x) {
    size_t per = r->P * r->patch_len;
    double *wp = dbl(c, r->B * per), *sp = dbl(c, r->B * per), *ws = dbl(c, 2 * r->B), *ss = dbl(c, 2 * r->B);
    ref_revin_patch(wp, sp, ws, ss, r, x);
    float *st = val_f(c, 2 * r->B, 0);
    for (size_t i = 0; i < 2 * r->B; i++) st[i] = (float)ws[i];
    return st;
}

/* Shape as the forward's; dpatches in (-1, 1), daffine starting random.
 * Output daffine (without AFFINE: untouched). */
static void run_revin_patch_backward(ctx *c, const op_case *k, uint64_t seed) {
    float *affine = k->opt & AFFINE ? rnd_f(c, 2, seed + 1, 0.5f, 1.5f) : NULL;
    ref_revin r = revin_of(k, affine);
    revin_shape(c, &r, "");
    size_t per = r.P * r.patch_len;
    float *x = revin_input(c, &r, seed), *st = revin_stats(c, &r, x), *dp = rnd_f(c, r.B * per, seed + 2, -1, 1);
    float *d0 = rnd_f(c, 2, seed + 3, -1, 1);
    const float *dx = dev_in(c, "x", x, r.B * r.ldx), *daff = affine ? dev_in(c, "affine", affine, 2) : NULL;
    const float *dst = dev_in(c, "stats", st, 2 * r.B), *ddp = dev_in(c, "dpatches", dp, r.B * per);
    float *dd = dev_out(c, "daffine", d0, 2);
    c->be->revin_patch_backward(c->be, dd, ddp, dst, dx, r.ldx, r.B, r.L, r.patch_len, r.stride, r.P, daff);
    if (!affine) {
        judge_f(c, "daffine", read_out(c, dd), d0, 2);
        return;
    }
    double want[2], scale[2];
    ref_revin_patch_backward(want, scale, d0, dp, st, &r, x);
    judge(c, "daffine", read_out(c, dd), want, scale, 2, k->tol);
}

/* m = B, n = n (the outputs per window), alpha = eps: stats (center in
 * (-50, 50), stdev in (0.1, 10)), affine (w, b) in (0.5, 1.5) with
 * AFFINE. Output y, in place, from z in (-3, 3). */
static void run_revin_denorm_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, n = k->n;
    float *affine = k->opt & AFFINE ? rnd_f(c, 2, seed + 1, 0.5f, 1.5f) : NULL;
    shape(c, "B%zu n%zu eps=%g%s", B, n, (double)k->alpha, affine ? " affine" : "");
    float *st = rnd_f(c, 2 * B, seed + 2, -50, 50), *z = rnd_f(c, B * n, seed + 3, -3, 3);
    for (size_t b = 0; b < B; b++) st[2 * b + 1] = 0.1f + fabsf(st[2 * b + 1]) / 5.0f;
    const float *dst = dev_in(c, "stats", st, 2 * B), *daff = affine ? dev_in(c, "affine", affine, 2) : NULL;
    float *dy = dev_out(c, "y", z, B * n);
    c->be->revin_denorm_forward(c->be, dy, dst, B, n, daff, k->alpha);
    double *want = dbl(c, B * n), *scale = dbl(c, B * n);
    ref_revin_denorm(want, scale, z, st, B, n, affine, k->alpha);
    judge(c, "y", read_out(c, dy), want, scale, B * n, k->tol);
}

/* As the forward's; dy in (-1, 1), y the forward's output (center + a few
 * stdev); daffine starting random, NULL without AFFINE. Outputs dz
 * (IN_PLACE: dy's buffer) and daffine. */
static void run_revin_denorm_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, n = k->n;
    int in_place = !!(k->opt & IN_PLACE);
    float *affine = k->opt & AFFINE ? rnd_f(c, 2, seed + 1, 0.5f, 1.5f) : NULL;
    shape(c, "B%zu n%zu eps=%g%s%s", B, n, (double)k->alpha, affine ? " affine" : "", in_place ? " in-place" : "");
    float *st = rnd_f(c, 2 * B, seed + 2, -50, 50), *y = rnd_f(c, B * n, seed + 3, -3, 3);
    float *dy = rnd_f(c, B * n, seed + 4, -1, 1), *d0 = rnd_f(c, 2, seed + 5, -1, 1);
    for (size_t b = 0; b < B; b++) st[2 * b + 1] = 0.1f + fabsf(st[2 * b + 1]) / 5.0f;
    for (size_t i = 0; i < B * n; i++) y[i] = st[2 * (i / n)] + y[i] * st[2 * (i / n) + 1];
    const float *dst = dev_in(c, "stats", st, 2 * B), *daff = affine ? dev_in(c, "affine", affine, 2) : NULL;
    const float *d_y = dev_in(c, "y", y, B * n);
    float *dd = affine ? dev_out(c, "daffine", d0, 2) : NULL;
    float *ddz = dev_out(c, in_place ? "dy" : "dz", in_place ? dy : val_f(c, B * n, NAN), B * n);
    const float *ddy = in_place ? ddz : dev_in(c, "dy", dy, B * n);
    c->be->revin_denorm_backward(c->be, ddz, ddy, d_y, dst, B, n, daff, dd, k->alpha);
    double *wz = dbl(c, B * n), *sz = dbl(c, B * n), wa[2], sa[2];
    ref_revin_denorm_backward(wz, sz, wa, sa, d0, dy, y, st, B, n, affine, k->alpha);
    judge(c, "dz", read_out(c, ddz), wz, sz, B * n, k->tol);
    if (dd) judge(c, "daffine", read_out(c, dd), wa, sa, 2, k->tol);
}

/* ---- losses, optimizer, reductions ---- */

/* m = n; alpha = grad_scale. A quarter of the points unobserved (mask 0),
 * some with yhat == y (MAE's sign(0) = 0). Masks are multiples of 2^-24, so
 * sum(mask) is exact in double and the gradient's coefficient is the same
 * on every backend. */
static void run_masked_loss(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    int mse = !!(k->opt & MSE);
    shape(c, "n%zu %s gs=%g%s%s", n, mse ? "mse" : "mae", (double)k->alpha, k->opt & NO_MASK ? " mask=0" : "",
          k->opt & NO_GRAD ? " no-grad" : "");
    float *yhat = rnd_f(c, n, seed, -2, 2), *y = rnd_f(c, n, seed + 1, -2, 2), *mask = rnd_f(c, n, seed + 2, 0, 1);
    for (size_t i = 0; i < n; i++) {
        if (i % 4 == 1 || k->opt & NO_MASK) mask[i] = 0.0f;
        if (i % 9 == 4) y[i] = yhat[i];
    }
    const float *dyhat = dev_in(c, "yhat", yhat, n), *dy = dev_in(c, "y", y, n), *dm = dev_in(c, "mask", mask, n);
    float *dgrad = k->opt & NO_GRAD ? NULL : dev_out(c, "grad", val_f(c, n, NAN), n);
    double loss = NAN;
    fc_backend_masked_loss(c->be, &loss, dgrad, k->alpha, dyhat, dy, dm, n, mse);
    double *want = dbl(c, n), *scale = dbl(c, n);
    double want_loss = ref_masked_loss(want, k->alpha, yhat, y, mask, n, mse);
    judge_scalar(c, "loss", loss, want_loss, fabs(want_loss), k->tol);
    if (!dgrad) return;
    for (size_t i = 0; i < n; i++) scale[i] = fabs(want[i]);
    judge(c, "grad", read_out(c, dgrad), want, scale, n, TOL_GRAD);
}

/* The loss summed in backend memory over two calls (first, then not),
 * divided by 3 each, must be the bits of the host's (0 + L/3) + L/3 with
 * L this backend's loss of one call; the gradient against the reference. */
static void run_masked_loss_sum(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    int mse = !!(k->opt & MSE);
    shape(c, "n%zu %s gs=%g%s", n, mse ? "mse" : "mae", (double)k->alpha, k->opt & NO_MASK ? " mask=0" : "");
    float *yhat = rnd_f(c, n, seed, -2, 2), *y = rnd_f(c, n, seed + 1, -2, 2), *mask = rnd_f(c, n, seed + 2, 0, 1);
    for (size_t i = 0; i < n; i++)
        if (i % 4 == 1 || k->opt & NO_MASK) mask[i] = 0.0f;
    const float *dyhat = dev_in(c, "yhat", yhat, n), *dy = dev_in(c, "y", y, n), *dm = dev_in(c, "mask", mask, n);
    float *dgrad = dev_out(c, "grad", val_f(c, n, NAN), n);
    double one = NAN, summed = NAN;
    fc_backend_masked_loss(c->be, &one, NULL, k->alpha, dyhat, dy, dm, n, mse);
    double *d_loss = c->be->alloc(c->be, sizeof(double));
    fc_loss_call call = {.spec = {.kind = mse, .n_q = 1}, .yhat = dyhat, .y = dy, .mask = dm, .n = n, .h = 1};
    c->be->masked_loss(c->be, d_loss, 1, 3.0, dgrad, k->alpha, &call);
    c->be->masked_loss(c->be, d_loss, 0, 3.0, dgrad, k->alpha, &call);
    c->be->to_host(c->be, &summed, d_loss, sizeof summed);
    c->be->release(c->be, d_loss);
    double host = 0.0;
    host += one / 3.0;
    host += one / 3.0;
    if (memcmp(&summed, &host, sizeof host) != 0)
        fail(c, "loss: %.17g in backend memory, %.17g summed on the host", summed, host);
    double *want = dbl(c, n), *scale = dbl(c, n);
    ref_masked_loss(want, k->alpha, yhat, y, mask, n, mse);
    for (size_t i = 0; i < n; i++) scale[i] = fabs(want[i]);
    judge(c, "grad", read_out(c, dgrad), want, scale, n, TOL_GRAD);
}

/* neuralforecast's per-output losses and torch's derivatives of them,
 * written from losses/pytorch.py (the classes' float expressions, autograd's
 * tie rules: sgn(0) = 0, max / maximum split a tie in halves, Huber's +-delta
 * from |d| >= delta on, _divide_no_nan's zero gradient), apart from
 * kernels/loss.h's bodies. *g: d loss / d yhat. */
static float ref_loss_term(const fc_loss_spec *s, int j, float yhat, float y, float scale, float *g) {
    float d = y - yhat, a = fabsf(d), sg = (float)((yhat > y) - (yhat < y));
    if (s->kind == FC_LOSS_MSE) { *g = 2.0f * (yhat - y); return d * d; }
    if (s->kind == FC_LOSS_HUBER) {
        *g = d <= -s->delta ? s->delta : d >= s->delta ? -s->delta : yhat - y;   /* +0 at a tie */
        return a < s->delta ? 0.5f * a * a : s->delta * (a - 0.5f * s->delta);
    }
    if (s->kind == FC_LOSS_SMAPE) {
        float b = fabsf(y) + fabsf(yhat), sy = (float)((yhat > 0) - (yhat < 0));
        *g = b == 0 ? 0.0f : 2.0f * (sg / b - (a / b) / b * sy);
        return b == 0 ? 0.0f : 2.0f * (a / b);
    }
    if (s->kind == FC_LOSS_MAPE) {
        float inv = y == 0 ? 0.0f : 1.0f / fabsf(y);
        *g = sg * inv;
        return a * inv;
    }
    if (s->kind == FC_LOSS_MASE) { *g = scale == 0 ? 0.0f : sg / scale; return scale == 0 ? 0.0f : a / scale; }
    if (s->kind == FC_LOSS_QUANTILE) {
        float q = s->q[0], qm1 = (float)((double)q - 1.0), l = q * d, r = qm1 * d;
        *g = -(l > r ? q : l < r ? qm1 : 0.5f * q + 0.5f * qm1);
        return l > r ? l : r;
    }
    if (s->kind == FC_LOSS_MQ) {   /* e = yhat - y; the weight 1/len((1,1,1,Q) tensor) = 1 */
        float q = s->q[j], e = yhat - y;
        *g = e > 0 ? 1.0f - q : e < 0 ? -q : q * -0.5f + (1.0f - q) * 0.5f;
        return q * (e < 0 ? -e : 0.0f) + (1.0f - q) * (e > 0 ? e : 0.0f);
    }
    if (s->kind == FC_LOSS_HUBER_MQ) {   /* huber(q max(-e, 0), 0) + huber((1 - q) max(e, 0), 0) */
        float q = s->q[j], e = yhat - y, dl = s->delta;
        float x = e < 0 ? q * -e : (1.0f - q) * (e > 0 ? e : 0.0f), w = e < 0 ? -q : 1.0f - q;
        *g = e == 0 ? 0.0f : w * (x >= dl ? dl : x);   /* x >= 0: only the upper clamp */
        return x < dl ? 0.5f * x * x : dl * (x - 0.5f * dl);
    }
    *g = sg;
    return a;
}

/* m = B windows, n = h, k = the loss kind, pad = its parameters' variant
 * (0 or 1), alpha = grad scale; L = 12. Points with yhat == y, y == 0,
 * yhat == 0 and both 0; a quarter unobserved; MASE's window 1 constant
 * (scale 0). Against ref_loss_term summed in long double. */
static void run_loss_kind(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, h = k->n, L = 12, n = B * h;
    fc_loss_spec s = fc_loss_default((fc_loss_kind)k->k);
    static const double quantiles[] = {0.1, 0.5, 0.9};
    s.delta = k->pad ? 2.0f : 0.5f;
    if (s.kind == FC_LOSS_QUANTILE) s.q[0] = k->pad ? 0.9f : 0.1f;
    if (s.kind == FC_LOSS_MASE) s.season = k->pad ? 4 : 1;
    if (fc_loss_kind_is_multi_quantile(s.kind) && k->pad) fc_loss_set_quantiles(&s, quantiles, 3, "row");
    size_t Q = fc_loss_n_outputs(&s);
    shape(c, "B%zu h%zu %s/%zu Q%zu gs=%g", B, h, fc_loss_name(s), k->pad, Q, (double)k->alpha);
    float *yhat = rnd_f(c, n * Q, seed, -2, 2), *y = rnd_f(c, n, seed + 1, -2, 2), *mask = rnd_f(c, n, seed + 2, 0, 1);
    float *ins = rnd_f(c, B * L, seed + 3, -2, 2);
    for (size_t i = 0; i < n; i++) {
        if (i % 4 == 1) mask[i] = 0.0f;
        for (size_t j = 0; j < Q; j++) {
            if (i % 9 == 4) yhat[i * Q + j] = y[i];
            if (i % 11 == 5) yhat[i * Q + j] = 0.0f;
        }
        if (i % 7 == 3 || i % 11 == 5) y[i] = 0.0f;
    }
    for (size_t t = 0; B > 1 && t < L; t++) ins[L + t] = 0.75f;
    fc_loss_call call = {.spec = s, .yhat = dev_in(c, "yhat", yhat, n * Q), .y = dev_in(c, "y", y, n),
                         .mask = dev_in(c, "mask", mask, n), .insample = dev_in(c, "insample", ins, B * L),
                         .n = n, .h = h, .L = L};
    float *dgrad = dev_out(c, "grad", val_f(c, n * Q, NAN), n * Q);
    double loss = NAN;
    status(c, "fc_backend_loss", fc_backend_loss(c->be, &loss, dgrad, k->alpha, &call));
    long double lsum = 0, msum = 0;
    double *want = dbl(c, n * Q), *scale = dbl(c, n * Q);
    float *g = keep(c, malloc(n * Q * sizeof *g));
    for (size_t i = 0; i < n; i++) {
        float sc = 1.0f;
        if (s.kind == FC_LOSS_MASE) {
            long double a = 0;
            const float *x = ins + (i / h) * L;
            for (size_t t = (size_t)s.season; t < L; t++) a += fabsf(x[t] - x[t - (size_t)s.season]);
            sc = (float)(a / (long double)(L - (size_t)s.season));
        }
        for (size_t j = 0; j < Q; j++) {
            float l = ref_loss_term(&s, (int)j, yhat[i * Q + j], y[i], sc, &g[i * Q + j]);
            if (mask[i] != 0) lsum += (double)(mask[i] * l);
        }
        msum += mask[i];
    }
    for (size_t i = 0; i < n * Q; i++) {
        want[i] = (double)k->alpha * mask[i / Q] * g[i] / (double)msum;
        scale[i] = fabs(want[i]);
    }
    double want_loss = (double)(lsum / msum);
    judge_scalar(c, "loss", loss, want_loss, fabs(want_loss), k->tol);
    judge(c, "grad", read_out(c, dgrad), want, scale, n * Q, TOL_GRAD);
}

/* DistributionLoss's negative log-likelihoods written from torch's
 * log_prob formulas and neuralforecast's scale_decouple functions, in
 * double, apart from kernels/distribution_*.h: raw outputs r of a point,
 * its window's shift and scale, the target y as in the data. */
static double ref_softplus(double x) { return x > 20 ? x : log1p(exp(x)); }

static double ref_distribution_nll(int kind, const double *r, double shift, double scale, double y) {
    switch (kind) {
    case FC_LOSS_NORMAL: {
        double mean = r[0] * scale + shift, sd = (ref_softplus(r[1]) + 0.2) * scale, z = (y - mean) / sd;
        return 0.5 * z * z + log(sd) + 0.5 * log(2 * M_PI);
    }
    case FC_LOSS_STUDENTT: {
        double df = 3 + ref_softplus(r[0]), loc = r[1] * scale + shift, ts = (ref_softplus(r[2]) + 0.1) * scale;
        double z = (y - loc) / ts;
        return -(lgamma((df + 1) / 2) - lgamma(df / 2) - 0.5 * log(df * M_PI) - log(ts) -
                 (df + 1) / 2 * log1p(z * z / df));
    }
    case FC_LOSS_POISSON: {
        double rate = ref_softplus(r[0] * scale + shift) + 1e-10;
        return rate - (y == 0 ? 0 : y * log(rate)) + lgamma(y + 1);
    }
    default: {   /* NegativeBinomial(total_count 1 / alpha, probs mu alpha / (1 + mu alpha) + 1e-8) */
        double mu = (ref_softplus(r[0]) + 1e-8) * scale + shift, alpha = (ref_softplus(r[1]) + 1e-8) / (scale + 1);
        double n = 1 / alpha, p = mu * alpha / (1 + mu * alpha) + 1e-8;
        return -(lgamma(n + y) - lgamma(n) - lgamma(y + 1) + n * log1p(-p) + y * log(p));
    }
    }
}

/* m = B windows, n = h, k = the distribution's loss kind; alpha = grad
 * scale. Raw outputs in [-1.5, 1.5], a quarter of the points unobserved,
 * count targets for Poisson and NegativeBinomial. The loss against the
 * reference's mean (TOL_DIST: float against double), the gradient
 * against central differences of the reference (TOL_DIST_GRAD of the
 * gradients' mean magnitude). */
static void run_distribution_loss(ctx *c, const op_case *k, uint64_t seed) {
    size_t B = k->m, h = k->n, n = B * h;
    fc_loss_spec s = fc_loss_default((fc_loss_kind)k->k);
    size_t Q = fc_loss_n_outputs(&s);
    int counts = s.kind == FC_LOSS_POISSON || s.kind == FC_LOSS_NBINOMIAL;
    shape(c, "B%zu h%zu %s Q%zu gs=%g", B, h, fc_loss_name(s), Q, (double)k->alpha);
    float *yhat = rnd_f(c, n * Q, seed, -1.5f, 1.5f), *y = rnd_f(c, n, seed + 1, counts ? 0 : -2, counts ? 6 : 4);
    float *mask = rnd_f(c, n, seed + 2, 0, 1), *loc = rnd_f(c, B, seed + 3, 0, 2), *sc = rnd_f(c, B, seed + 4, 0.5f, 2);
    for (size_t i = 0; i < n; i++) {
        if (i % 4 == 1) mask[i] = 0.0f;
        if (counts) y[i] = floorf(y[i]);
    }
    fc_loss_call call = {.spec = s, .yhat = dev_in(c, "yhat", yhat, n * Q), .y = dev_in(c, "y", y, n),
                         .mask = dev_in(c, "mask", mask, n), .y_raw = dev_in(c, "y_raw", y, n),
                         .loc = dev_in(c, "loc", loc, B), .scale = dev_in(c, "scale", sc, B), .n = n, .h = h};
    float *dgrad = dev_out(c, "grad", val_f(c, n * Q, NAN), n * Q);
    double loss = NAN;
    status(c, "fc_backend_loss", fc_backend_loss(c->be, &loss, dgrad, k->alpha, &call));
    double lsum = 0, msum = 0, mean_g = 0, r[FC_DISTRIBUTION_MAX_PARAMS];
    double *want = dbl(c, n * Q), *scale = dbl(c, n * Q);
    for (size_t i = 0; i < n; i++) msum += mask[i];
    for (size_t i = 0; i < n; i++) {
        size_t w = i / h;
        for (size_t j = 0; j < Q; j++) r[j] = yhat[i * Q + j];
        if (mask[i] != 0) lsum += mask[i] * ref_distribution_nll(s.kind, r, loc[w], sc[w], y[i]);
        for (size_t j = 0; j < Q; j++) {
            double keep = r[j], step = 1e-5;
            r[j] = keep + step;
            double up = ref_distribution_nll(s.kind, r, loc[w], sc[w], y[i]);
            r[j] = keep - step;
            double down = ref_distribution_nll(s.kind, r, loc[w], sc[w], y[i]);
            r[j] = keep;
            want[i * Q + j] = (double)k->alpha * mask[i] * (up - down) / (2 * step) / msum;
            mean_g += fabs(want[i * Q + j]) / (double)(n * Q);
        }
    }
    for (size_t i = 0; i < n * Q; i++) scale[i] = fabs(want[i]) > mean_g ? fabs(want[i]) : mean_g;
    judge_scalar(c, "loss", loss, lsum / msum, fabs(lsum / msum), k->tol);
    judge(c, "grad", read_out(c, dgrad), want, scale, n * Q, TOL_DIST_GRAD);
}

/* IQLoss's head written from neuralforecast's IQLoss.domain_map and its
 * QuantileLayer (cos embedding, Linear, PReLU, Linear; yhat (1 + e);
 * Linear(1, 1), PReLU), in double, apart from kernels/iq_head.h; p in the
 * block's order (W1, b1, alpha1, w2, b2, w3, b3, alpha2). */
static double ref_prelu(double v, double a) { return v > 0 ? v : a * v; }

static double ref_iq_out(const double *p, size_t D, double tau, double yhat) {
    const double *w1 = p, *b1 = p + D * D, a1 = p[D * D + D], *w2 = p + D * D + D + 1;
    double e = w2[D], w3 = w2[D + 1], b3 = w2[D + 2], a2 = w2[D + 3];
    for (size_t j = 0; j < D; j++) {
        double z = b1[j];
        for (size_t k = 0; k < D; k++) z += w1[j * D + k] * cos((double)(float)((float)tau * (float)k) * M_PI);
        e += w2[j] * ref_prelu(z, a1);
    }
    return ref_prelu(w3 * (yhat * (1 + e)) + b3, a2);
}

/* m = points, n = D. Parameters in [-1, 1], W1 and w2 in +-1 / sqrt(D)
 * as torch's Linear initialises them (PReLU slopes 0.25 and -0.3), taus in
 * (0, 1), yhat in [-2, 2]. Against ref_iq_out: TOL_IQ of each output's
 * magnitude, at least the outputs' mean magnitude (an output that cancels
 * to near 0 keeps the float sum's absolute rounding). */
static float *iq_params(ctx *c, size_t D, uint64_t seed) {
    fc_iq_layout l = fc_iq_param_offsets(D);
    float *p = rnd_f(c, l.total, seed, -1, 1);
    for (size_t q = 0; q < l.a1; q++) p[q] /= sqrtf((float)D);
    for (size_t q = l.w2; q < l.b2; q++) p[q] /= sqrtf((float)D);
    p[l.a1] = 0.25f, p[l.a2] = -0.3f;
    return p;
}

static void run_iq_head_forward(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m, D = k->n, P = fc_iq_param_offsets(D).total;
    shape(c, "n%zu D%zu", n, D);
    float *p = iq_params(c, D, seed), *tau = rnd_f(c, n, seed + 1, 0, 1), *yhat = rnd_f(c, n, seed + 2, -2, 2);
    fc_iq_call call = {.params = dev_in(c, "params", p, P), .tau = dev_in(c, "tau", tau, n),
                       .yhat = dev_in(c, "yhat", yhat, n), .out = dev_out(c, "out", val_f(c, n, NAN), n),
                       .z = dev_out(c, "z", val_f(c, n * D, NAN), n * D), .s = dev_out(c, "s", val_f(c, 3 * n, NAN), 3 * n),
                       .cs = dev_out(c, "cs", val_f(c, n * D, NAN), n * D),
                       .n = n, .D = D};
    c->be->iq_head_forward(c->be, &call);
    double *pd = dbl(c, P), *want = dbl(c, n), *scale = dbl(c, n), mean = 0;
    for (size_t q = 0; q < P; q++) pd[q] = p[q];
    for (size_t i = 0; i < n; i++) want[i] = ref_iq_out(pd, D, tau[i], yhat[i]), mean += fabs(want[i]) / (double)n;
    for (size_t i = 0; i < n; i++) scale[i] = fabs(want[i]) > mean ? fabs(want[i]) : mean;
    judge(c, "out", read_out(c, call.out), want, scale, n, k->tol);
}

/* Then the backward: d yhat and every parameter's gradient (added to
 * dparams, which starts at 0.5) against central differences (step 1e-6)
 * of sum(dout * ref_iq_out), to TOL_IQ_GRAD of the gradients' mean
 * magnitude. */
static void run_iq_head_backward(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m, D = k->n, P = fc_iq_param_offsets(D).total;
    shape(c, "n%zu D%zu", n, D);
    float *p = iq_params(c, D, seed), *tau = rnd_f(c, n, seed + 1, 0, 1), *yhat = rnd_f(c, n, seed + 2, -2, 2);
    float *dout = rnd_f(c, n, seed + 3, -1, 1);
    fc_iq_call call = {.params = dev_in(c, "params", p, P), .tau = dev_in(c, "tau", tau, n),
                       .yhat = dev_in(c, "yhat", yhat, n), .out = dev_out(c, "out", val_f(c, n, NAN), n),
                       .z = dev_out(c, "z", val_f(c, n * D, NAN), n * D), .s = dev_out(c, "s", val_f(c, 3 * n, NAN), 3 * n),
                       .cs = dev_out(c, "cs", val_f(c, n * D, NAN), n * D),
                       .dout = dev_in(c, "dout", dout, n), .dyhat = dev_out(c, "dyhat", val_f(c, n, NAN), n),
                       .gz = dev_out(c, "gz", val_f(c, n * D, NAN), n * D),
                       .gs = dev_out(c, "gs", val_f(c, 2 * n, NAN), 2 * n),
                       .dparams = dev_out(c, "dparams", val_f(c, P, 0.5f), P), .n = n, .D = D};
    c->be->iq_head_forward(c->be, &call);
    c->be->iq_head_backward(c->be, &call);
    double *pd = dbl(c, P), *wy = dbl(c, n), *wp = dbl(c, P), *sy = dbl(c, n), *sp = dbl(c, P), h = 1e-6;
    for (size_t q = 0; q < P; q++) pd[q] = p[q];
    double my = 0, mp = 0;
    for (size_t i = 0; i < n; i++) {
        wy[i] = dout[i] * (ref_iq_out(pd, D, tau[i], yhat[i] + h) - ref_iq_out(pd, D, tau[i], yhat[i] - h)) / (2 * h);
        my += fabs(wy[i]) / (double)n;
    }
    for (size_t q = 0; q < P; q++) {
        double keep = pd[q], up = 0, down = 0;
        pd[q] = keep + h;
        for (size_t i = 0; i < n; i++) up += dout[i] * ref_iq_out(pd, D, tau[i], yhat[i]);
        pd[q] = keep - h;
        for (size_t i = 0; i < n; i++) down += dout[i] * ref_iq_out(pd, D, tau[i], yhat[i]);
        pd[q] = keep;
        wp[q] = 0.5 + (up - down) / (2 * h);
        mp += fabs(wp[q] - 0.5) / (double)P;
    }
    for (size_t i = 0; i < n; i++) sy[i] = fabs(wy[i]) > my ? fabs(wy[i]) : my;
    for (size_t q = 0; q < P; q++) sp[q] = fabs(wp[q] - 0.5) > mp ? fabs(wp[q] - 0.5) : mp;
    judge(c, "dyhat", read_out(c, call.dyhat), wy, sy, n, TOL_IQ_GRAD);
    judge(c, "dparams", read_out(c, call.dparams), wp, sp, P, TOL_IQ_GRAD);
}

/* m = points; alpha = concentration0, beta = concentration1: each tau is
 * fc_iq_draw_tau's (the host's body: on a GPU, the same bits), in (0, 1),
 * with the Beta's mean within 5 standard errors. */
static void run_iq_taus(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    float c0 = k->alpha, c1 = k->beta;
    shape(c, "n%zu Beta(%g, %g)", n, (double)c1, (double)c0);
    float *d = dev_out(c, "tau", val_f(c, n, NAN), n);
    c->be->iq_taus(c->be, d, n, seed, c0, c1);
    const float *got = read_out(c, d);
    double *want = dbl(c, n), mean = 0;
    for (size_t i = 0; i < n; i++) want[i] = fc_iq_draw_tau(seed, i, c0, c1), mean += got[i] / (double)n;
    judge(c, "tau", got, want, NULL, n, 0);
    double m = c1 / (double)(c0 + c1), var = c0 * c1 / ((double)(c0 + c1) * (c0 + c1) * (c0 + c1 + 1));
    if (fabs(mean - m) > 5 * sqrt(var / (double)n)) fail(c, "tau: mean %.4f, the Beta's %.4f", mean, m);
}

typedef struct {
    double lr, beta1, beta2, eps, weight_decay;
    int kind;                   /* fc_optimizer_kind */
} adam_config;

static const adam_config adam_configs[] = {
    {1e-2, 0.9, 0.999, 1e-8, 0, FC_OPTIMIZER_ADAM},     /* the usual betas */
    {5e-2, 0.5, 0.9, 1e-6, 0, FC_OPTIMIZER_ADAM},       /* 1 - beta1 >= 0.5: torch's other lerp form */
    {1e-2, 0.9, 0.999, 1e-8, 0.01, FC_OPTIMIZER_ADAMW}, /* DECAY: AdamW at torch's default weight decay */
    {5e-2, 0.5, 0.9, 1e-6, 0.1, FC_OPTIMIZER_ADAM},     /* DECAY | CONFIG_B: Adam's L2 weight decay */
};

/* m = n; ADAM_STEPS steps from m = v = 0. Gradients: random, some 0 (the
 * state stays 0), some tiny (eps matters), one step with large ones. */
static void run_adam_step(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    const adam_config *a = &adam_configs[(k->opt & CONFIG_B ? 1 : 0) + (k->opt & DECAY ? 2 : 0)];
    shape(c, "n%zu lr=%g b1=%g b2=%g wd=%g%s x%d", n, a->lr, a->beta1, a->beta2, a->weight_decay,
          a->kind == FC_OPTIMIZER_ADAMW ? " (adamw)" : "", ADAM_STEPS);
    float *p0 = rnd_f(c, n, seed, -1, 1);
    double *p = dbl(c, n), *m = dbl(c, n), *v = dbl(c, n), *moved = dbl(c, n), *gmax = dbl(c, n);
    for (size_t i = 0; i < n; i++) p[i] = p0[i];
    float *dp = dev_out(c, "p", p0, n), *dm = dev_out(c, "m", val_f(c, n, 0), n);
    float *dv = dev_out(c, "v", val_f(c, n, 0), n);
    for (int t = 1; t <= ADAM_STEPS; t++) {
        float *g = rnd_f(c, n, seed + 10 + (uint64_t)t, -1, 1);
        for (size_t i = 0; i < n; i++) {
            if (i % 11 == 3) g[i] = 0.0f;
            if (i % 13 == 6) g[i] *= 1e-6f;
            if (t == 2 && i % 7 == 2) g[i] = 1000.0f;
            /* Adam's L2 term is part of the gradient the moments see */
            double eff = fabs(g[i]) + (a->kind == FC_OPTIMIZER_ADAM ? a->weight_decay * fabs(p[i]) : 0.0);
            gmax[i] = eff > gmax[i] ? eff : gmax[i];
        }
        c->be->adam_step(c->be, dp, dev_in(c, "g", g, n), dm, dv, n, (float)a->lr, (float)a->beta1, (float)a->beta2,
                         (float)a->eps, (float)a->weight_decay, a->kind, t);
        ref_adam_step(p, m, v, moved, g, n, a->lr, a->beta1, a->beta2, a->eps, a->weight_decay,
                      a->kind == FC_OPTIMIZER_ADAMW, t);
    }
    double *scale = dbl(c, n);
    for (size_t i = 0; i < n; i++) scale[i] = fabs(p[i]) + a->lr + moved[i];
    judge(c, "p", read_out(c, dp), p, scale, n, k->tol);
    judge(c, "m", read_out(c, dm), m, gmax, n, k->tol);
    for (size_t i = 0; i < n; i++) scale[i] = gmax[i] * gmax[i];
    judge(c, "v", read_out(c, dv), v, scale, n, k->tol);
}

/* m = n. */
static void run_sum_squares(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    shape(c, "n%zu", n);
    float *x = rnd_f(c, n, seed, -2, 2);
    double out = NAN;
    c->be->sum_squares(c->be, &out, dev_in(c, "x", x, n), n);
    double want = ref_sum_squares(x, n);
    judge_scalar(c, "sum", out, want, want, k->tol);
}

/* m = n; alpha = s. Signed zero, infinity and NaN first. */
static void run_scale(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    shape(c, "n%zu s=%g", n, (double)k->alpha);
    float *x = rnd_f(c, n, seed, -3, 3);
    const float special[] = {-0.0f, INFINITY, NAN};
    for (size_t i = 0; i < n && i < 3; i++) x[i] = special[i];
    float *dx = dev_out(c, "x", x, n);
    c->be->scale(c->be, dx, k->alpha, n);
    float *want = keep(c, malloc((n ? n : 1) * sizeof *want));
    for (size_t i = 0; i < n; i++) want[i] = x[i] * k->alpha;
    judge_f(c, "x", read_out(c, dx), want, n);
}

/* m = n; alpha = the value. */
static void run_fill(ctx *c, const op_case *k, uint64_t seed) {
    size_t n = k->m;
    shape(c, "n%zu v=%g", n, (double)k->alpha);
    float *dx = dev_out(c, "x", rnd_f(c, n, seed, -1, 1), n);
    c->be->fill(c->be, dx, k->alpha, n);
    judge_f(c, "x", read_out(c, dx), val_f(c, n, k->alpha), n);
}

/* ---- the table ---- */

#define ROW(op, m, n, k, pad, prec, opt, alpha, beta, tol) {#op, run_##op, m, n, k, pad, prec, opt, alpha, beta, tol}
#define F32 FC_PREC_FP32
#define BF16 FC_PREC_BF16
#define F16 FC_PREC_FP16
/* One GEMM shape with each transpose combination. */
#define GEMM4(m, n, k, pad, opt, alpha, beta)                                                                     \
    ROW(gemm, m, n, k, pad, F32, (opt), alpha, beta, TOL_DOT),                                                  \
    ROW(gemm, m, n, k, pad, F32, (opt) | TA, alpha, beta, TOL_DOT),                                             \
    ROW(gemm, m, n, k, pad, F32, (opt) | TB, alpha, beta, TOL_DOT),                                             \
    ROW(gemm, m, n, k, pad, F32, (opt) | TA | TB, alpha, beta, TOL_DOT)

/* Reductions cut n into blocks of at least FC_REDUCE_MIN_BLOCK, at most
 * FC_REDUCE_MAX_BLOCKS of them (launch_geometry.h). */
#define N_3_BLOCKS (2 * FC_REDUCE_MIN_BLOCK + 1)    /* the last block holds one element */
#define N_4_BLOCKS (3 * FC_REDUCE_MIN_BLOCK + 1)
#define N_LONG_BLOCKS (FC_REDUCE_MAX_BLOCKS * FC_REDUCE_MIN_BLOCK + 3)   /* blocks grow past the minimum */
/* 257 x 129 = 33153 elements: past the CPU backend's 2^15 for parallel loops. */
#define PAR_B 257
#define PAR_C 129
#define PAR_N (PAR_B * PAR_C)
/* More rows than one launch of warps covers (FC_LAUNCH_MAX_GRID blocks of
 * FC_LAUNCH_BLOCK / 32 warps: 524280): layer norm's warps stride past it. */
#define LN_ROWS (FC_LAUNCH_MAX_GRID * (FC_LAUNCH_BLOCK / 32) + 5001)

static const op_case cases[] = {
    /* Dense layer (B, I, O): TOL_DOT in every precision (see there). */
    ROW(linear_forward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_DOT),
    ROW(linear_forward, 7, 31, 33, 0, F32, RELU | BIAS, 0, 0, TOL_DOT),
    ROW(linear_forward, 33, 257, 7, 0, F32, BIAS, 0, 0, TOL_DOT),
    ROW(linear_forward, 31, 7, 257, 0, F32, RELU, 0, 0, TOL_DOT),
    ROW(linear_forward, PAR_B, 33, PAR_C, 0, F32, RELU | BIAS, 0, 0, TOL_DOT),
    ROW(linear_forward, 1, 1, 1, 0, BF16, 0, 0, 0, TOL_DOT),
    ROW(linear_forward, 7, 31, 33, 0, BF16, RELU | BIAS, 0, 0, TOL_DOT),
    ROW(linear_forward, 33, 257, 7, 0, BF16, BIAS, 0, 0, TOL_DOT),
    ROW(linear_forward, 31, 7, 257, 0, BF16, RELU, 0, 0, TOL_DOT),
    ROW(linear_forward, PAR_B, 33, PAR_C, 0, BF16, RELU | BIAS, 0, 0, TOL_DOT),
    ROW(linear_forward, 1, 1, 1, 0, F16, 0, 0, 0, TOL_DOT),
    ROW(linear_forward, 7, 31, 33, 0, F16, RELU | BIAS, 0, 0, TOL_DOT),
    ROW(linear_forward, 33, 257, 7, 0, F16, BIAS, 0, 0, TOL_DOT),
    ROW(linear_forward, 31, 7, 257, 0, F16, RELU, 0, 0, TOL_DOT),
    ROW(linear_forward, PAR_B, 33, PAR_C, 0, F16, RELU | BIAS, 0, 0, TOL_DOT),
    ROW(linear_backward, 1, 1, 1, 0, F32, DX | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 7, 31, 33, 0, F32, RELU | DX | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 33, 257, 7, 0, F32, RELU | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 31, 7, 257, 0, F32, DX, 0, 0, TOL_DOT),
    ROW(linear_backward, 7, 33, 31, 0, F32, 0, 0, 0, TOL_DOT),
    ROW(linear_backward, PAR_B, 33, PAR_C, 0, F32, RELU | DX | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 1, 1, 1, 0, BF16, DX | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 7, 31, 33, 0, BF16, RELU | DX | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 33, 257, 7, 0, BF16, RELU | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 31, 7, 257, 0, BF16, DX, 0, 0, TOL_DOT),
    ROW(linear_backward, 7, 33, 31, 0, BF16, 0, 0, 0, TOL_DOT),
    ROW(linear_backward, PAR_B, 33, PAR_C, 0, BF16, RELU | DX | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 1, 1, 1, 0, F16, DX | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 7, 31, 33, 0, F16, RELU | DX | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 33, 257, 7, 0, F16, RELU | DB, 0, 0, TOL_DOT),
    ROW(linear_backward, 31, 7, 257, 0, F16, DX, 0, 0, TOL_DOT),
    ROW(linear_backward, 7, 33, 31, 0, F16, 0, 0, 0, TOL_DOT),
    ROW(linear_backward, PAR_B, 33, PAR_C, 0, F16, RELU | DX | DB, 0, 0, TOL_DOT),

    /* GEMM (M, N, K), fp32, each transpose combination: TOL_DOT. beta 0 on a
     * NaN C: backend.h promises "BLAS-style", and BLAS does not read C then.
     * K = 0: C = beta C, as BLAS. */
    GEMM4(1, 1, 1, 0, 0, -2.0f, 1.0f),
    GEMM4(7, 33, 31, 3, 0, 0.7f, -0.3f),
    GEMM4(33, 7, 257, 0, NAN_OUT, 1.0f, 0.0f),
    GEMM4(257, 31, 33, 5, 0, 1.5f, 0.5f),
    ROW(gemm, 3, 5, 0, 2, F32, 0, 1.0f, 0.5f, TOL_DOT),
    ROW(gemm, 3, 5, 0, 0, F32, NAN_OUT, 1.0f, 0.0f, TOL_DOT),

    /* Rounding (n): TOL_EXACT against an independent rounding. */
    ROW(round_to, 1, 0, 0, 0, BF16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, 7, 0, 0, 0, BF16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, 33, 0, 0, 0, BF16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, 257, 0, 0, 0, BF16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, PAR_N, 0, 0, 0, BF16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, 1, 0, 0, 0, F16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, 7, 0, 0, 0, F16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, 33, 0, 0, 0, F16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, 257, 0, 0, 0, F16, 0, 0, 0, TOL_EXACT),
    ROW(round_to, PAR_N, 0, 0, 0, F16, 0, 0, 0, TOL_EXACT),

    /* Pooling (B, L, k): TOL_EXACT (a max and a scatter round nothing). */
    ROW(maxpool1d_forward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_forward, 3, 7, 2, 0, F32, SPECIAL, 0, 0, TOL_EXACT),
    ROW(maxpool1d_forward, 2, 31, 4, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_forward, 5, 33, 8, 0, F32, SPECIAL, 0, 0, TOL_EXACT),
    ROW(maxpool1d_forward, 4, 257, 7, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_forward, 3, 10, 3, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_forward, 2, 3, 5, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_forward, PAR_B, PAR_C, 3, 0, F32, SPECIAL, 0, 0, TOL_EXACT),
    ROW(maxpool1d_backward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_backward, 3, 7, 2, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_backward, 5, 33, 8, 0, F32, SPECIAL, 0, 0, TOL_EXACT),
    ROW(maxpool1d_backward, 4, 257, 7, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_backward, 2, 3, 5, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(maxpool1d_backward, PAR_B, PAR_C, 3, 0, F32, SPECIAL, 0, 0, TOL_EXACT),

    /* Interpolation (B, n_in, n_out, strided rows): TOL_EXACT (torch's float
     * weights and order, written out in the reference). */
    ROW(interp_linear_forward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_forward, 2, 1, 7, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_forward, 3, 7, 31, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_forward, 3, 31, 7, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_forward, 2, 33, 33, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_forward, 4, 257, 33, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_forward, 2, 12, 257, 5, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_forward, PAR_B, 7, PAR_C, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_backward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_backward, 2, 1, 7, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_backward, 3, 7, 31, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_backward, 3, 31, 7, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_backward, 2, 33, 33, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_backward, 4, 257, 33, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_backward, 2, 12, 257, 5, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_linear_backward, PAR_B, 7, PAR_C, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, 2, 3, 7, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, 3, 7, 31, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, 3, 31, 7, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, 2, 33, 33, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, 2, 12, 24, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, 4, 257, 33, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, 2, 12, 257, 5, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_forward, PAR_B, 7, PAR_C, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, 2, 3, 7, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, 3, 7, 31, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, 3, 31, 7, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, 2, 33, 33, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, 2, 12, 24, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, 4, 257, 33, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, 2, 12, 257, 5, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_nearest_backward, PAR_B, 7, PAR_C, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 2, 1, 7, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 2, 2, 7, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 3, 7, 31, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 3, 31, 7, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 2, 33, 33, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 2, 12, 24, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 4, 257, 33, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, 2, 12, 257, 5, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_forward, PAR_B, 7, PAR_C, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 2, 1, 7, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 2, 2, 7, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 3, 7, 31, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 3, 31, 7, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 2, 33, 33, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 2, 12, 24, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 4, 257, 33, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, 2, 12, 257, 5, F32, 0, 0, 0, TOL_EXACT),
    ROW(interp_cubic_backward, PAR_B, 7, PAR_C, 3, F32, 0, 0, 0, TOL_EXACT),

    /* Strided-row ops (B, C[, col]): TOL_EXACT (one float operation per
     * element, or a double row sum rounded once: see run_sum_rows_into_col). */
    ROW(flip_rows, 1, 1, 0, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(flip_rows, 3, 7, 0, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(flip_rows, 2, 31, 0, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(flip_rows, 5, 33, 0, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(flip_rows, 2, 257, 0, 7, F32, 0, 0, 0, TOL_EXACT),
    ROW(flip_rows, PAR_B, PAR_C, 0, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(axpby_rows, 1, 1, 0, 0, F32, NAN_OUT, 2.0f, 0.0f, TOL_EXACT),
    ROW(axpby_rows, 7, 31, 0, 3, F32, 0, 0.5f, 2.0f, TOL_EXACT),
    ROW(axpby_rows, 3, 33, 0, 1, F32, NAN_OUT, -1.5f, 0.0f, TOL_EXACT),
    ROW(axpby_rows, 2, 257, 0, 0, F32, 0, 0.25f, -1.0f, TOL_EXACT),
    ROW(axpby_rows, PAR_B, PAR_C, 0, 2, F32, 0, 1.25f, 0.75f, TOL_EXACT),
    ROW(axpby_rows, PAR_B, PAR_C, 0, 0, F32, NAN_OUT, 2.0f, 0.0f, TOL_EXACT),
    ROW(mul_rows, 1, 1, 0, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(mul_rows, 7, 31, 0, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(mul_rows, 3, 257, 0, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(mul_rows, PAR_B, PAR_C, 0, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(broadcast_col, 1, 1, 0, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(broadcast_col, 7, 31, 2, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(broadcast_col, 33, 257, 0, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(broadcast_col, PAR_B, PAR_C, 5, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(sum_rows_into_col, 1, 1, 0, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(sum_rows_into_col, 7, 31, 2, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(sum_rows_into_col, 33, 257, 0, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(sum_rows_into_col, PAR_B, PAR_C, 5, 1, F32, 0, 0, 0, TOL_EXACT),
    /* transpose_rows (B, A, C): TOL_EXACT (moves floats only). */
    ROW(transpose_rows, 1, 1, 1, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(transpose_rows, 3, 5, 12, 0, F32, 0, 0, 0, TOL_EXACT),
    ROW(transpose_rows, 7, 12, 5, 3, F32, 0, 0, 0, TOL_EXACT),
    ROW(transpose_rows, 2, 1, 31, 1, F32, 0, 0, 0, TOL_EXACT),
    ROW(transpose_rows, 2, 33, 1, 2, F32, 0, 0, 0, TOL_EXACT),
    ROW(transpose_rows, PAR_B, 15, 9, 1, F32, 0, 0, 0, TOL_EXACT),
    /* LSTM cell (B, H, strided rows): TOL_LSTM against the double cell (see
     * there); not SAME_BITS: expf and tanhf differ between glibc and CUDA. */
    ROW(lstm_cell_forward, 1, 1, 0, 0, F32, 0, 0, 0, TOL_LSTM),
    ROW(lstm_cell_forward, 1, 1, 0, 0, F32, NO_CPREV, 0, 0, TOL_LSTM),
    ROW(lstm_cell_forward, 3, 7, 0, 1, F32, NO_CPREV, 0, 0, TOL_LSTM),
    ROW(lstm_cell_forward, 5, 33, 0, 2, F32, SPECIAL, 0, 0, TOL_LSTM),
    ROW(lstm_cell_forward, 7, 31, 0, 3, F32, SPECIAL | NO_CPREV, 0, 0, TOL_LSTM),
    ROW(lstm_cell_forward, 2, 257, 0, 1, F32, 0, 0, 0, TOL_LSTM),
    ROW(lstm_cell_forward, PAR_B, PAR_C, 0, 1, F32, SPECIAL, 0, 0, TOL_LSTM),
    ROW(lstm_cell_backward, 1, 1, 0, 0, F32, 0, 0, 0, TOL_LSTM),
    ROW(lstm_cell_backward, 1, 1, 0, 0, F32, NO_CPREV, 0, 0, TOL_LSTM),
    ROW(lstm_cell_backward, 3, 7, 0, 1, F32, NO_CPREV, 0, 0, TOL_LSTM),
    ROW(lstm_cell_backward, 5, 33, 0, 2, F32, SPECIAL, 0, 0, TOL_LSTM),
    ROW(lstm_cell_backward, 7, 31, 0, 3, F32, SPECIAL | NO_CPREV | IN_PLACE, 0, 0, TOL_LSTM),
    ROW(lstm_cell_backward, 2, 257, 0, 1, F32, IN_PLACE, 0, 0, TOL_LSTM),
    ROW(lstm_cell_backward, PAR_B, PAR_C, 0, 1, F32, SPECIAL, 0, 0, TOL_LSTM),
    /* Layer norm (B, D, strided rows), alpha = eps: TOL_LN against the long
     * double reference (see there), and the same bits on every backend. D
     * below, at and past a warp's 32 lanes; 2049 (a few thousand); and
     * LN_ROWS rows, more than one launch's warps. */
    ROW(layer_norm_forward, 1, 1, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_forward, 3, 7, 0, 1, F32, SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_forward, 5, 33, 0, 2, F32, SPECIAL | SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_forward, 7, 32, 0, 3, F32, IN_PLACE | SAME_BITS, 1e-3f, 0, TOL_LN),
    ROW(layer_norm_forward, 2, 257, 0, 1, F32, SPECIAL | IN_PLACE | SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_forward, 3, 2049, 0, 5, F32, SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_forward, PAR_B, PAR_C, 0, 1, F32, SPECIAL | SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_forward, LN_ROWS, 3, 0, 1, F32, SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_backward, 1, 1, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_backward, 3, 7, 0, 1, F32, SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_backward, 5, 33, 0, 2, F32, SPECIAL | SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_backward, 7, 32, 0, 3, F32, IN_PLACE | SAME_BITS, 1e-3f, 0, TOL_LN),
    ROW(layer_norm_backward, 2, 257, 0, 1, F32, SPECIAL | IN_PLACE | SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_backward, 3, 2049, 0, 5, F32, SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_backward, PAR_B, PAR_C, 0, 1, F32, SPECIAL | SAME_BITS, 1e-5f, 0, TOL_LN),
    ROW(layer_norm_backward, LN_ROWS, 3, 0, 1, F32, SAME_BITS, 1e-5f, 0, TOL_LN),
    /* Dropout (B, C, offset, strided rows), alpha = p: TOL_EXACT (the mask
     * is a function of the point's index; a multiply and a divide). p = 0
     * copies, or does nothing in place; an offset whose indices cross 2^32
     * (both counter words). */
    ROW(dropout, 1, 1, 0, 0, F32, 0, 0.5f, 0, TOL_EXACT),
    ROW(dropout, 3, 7, 0, 1, F32, 0, 0.0f, 0, TOL_EXACT),
    ROW(dropout, 3, 7, 5, 1, F32, IN_PLACE, 0.0f, 0, TOL_EXACT),
    ROW(dropout, 5, 33, 12345, 2, F32, 0, 0.1f, 0, TOL_EXACT),
    ROW(dropout, 7, 31, 0xFFFFFF80u, 3, F32, IN_PLACE, 0.5f, 0, TOL_EXACT),
    ROW(dropout, 2, 257, 77, 1, F32, 0, 0.9f, 0, TOL_EXACT),
    ROW(dropout, PAR_B, PAR_C, (size_t)1 << 20, 1, F32, 0, 0.3f, 0, TOL_EXACT),
    ROW(dropout, PAR_B, PAR_C, 0, 0, F32, IN_PLACE, 0.75f, 0, TOL_EXACT),
    /* GELU (n): TOL_GELU against the long double x Phi(x) (see there), not
     * SAME_BITS; special values first (signed zeros, +-inf, NaN, the far
     * tails, a subnormal). */
    ROW(gelu_forward, 0, 0, 0, 0, F32, 0, 0, 0, TOL_GELU),
    ROW(gelu_forward, 1, 0, 0, 0, F32, 0, 0, 0, TOL_GELU),
    ROW(gelu_forward, 13, 0, 0, 0, F32, 0, 0, 0, TOL_GELU),
    ROW(gelu_forward, 257, 0, 0, 0, F32, IN_PLACE, 0, 0, TOL_GELU),
    ROW(gelu_forward, PAR_N, 0, 0, 0, F32, 0, 0, 0, TOL_GELU),
    ROW(gelu_forward, PAR_N, 0, 0, 0, F32, IN_PLACE, 0, 0, TOL_GELU),
    ROW(gelu_backward, 0, 0, 0, 0, F32, 0, 0, 0, TOL_GELU),
    ROW(gelu_backward, 1, 0, 0, 0, F32, 0, 0, 0, TOL_GELU),
    ROW(gelu_backward, 13, 0, 0, 0, F32, 0, 0, 0, TOL_GELU),
    ROW(gelu_backward, 257, 0, 0, 0, F32, IN_PLACE, 0, 0, TOL_GELU),
    ROW(gelu_backward, PAR_N, 0, 0, 0, F32, 0, 0, 0, TOL_GELU),
    ROW(gelu_backward, PAR_N, 0, 0, 0, F32, IN_PLACE, 0, 0, TOL_GELU),
    /* Attention (B, P, H, pad = E; see run_attention_forward), alpha = p:
     * TOL_ATTN against the long double attention (see there), and the same
     * bits on every backend. E of 1, 5, 8, 16 and 40 (past a chunk of the
     * weighted sums); P of 1, 7, 9, 11, 13 and 42 (PatchTST's 512 / 12);
     * with and without prev (also prev == scores), dropout and the column
     * blocks of wider matrices; the last two rows take the CPU's parallel
     * loops. */
    ROW(attention_forward, 1, 1, 1, 1, F32, PACKED | SAME_BITS, 0.0f, 0, TOL_ATTN),
    ROW(attention_forward, 2, 7, 3, 1, F32, PREV | SAME_BITS, 0.0f, 0, TOL_ATTN),
    ROW(attention_forward, 3, 13, 2, 8, F32, SAME_BITS, 0.25f, 0, TOL_ATTN),
    ROW(attention_forward, 2, 13, 2, 8, F32, PREV | PACKED | SAME_BITS, 0.25f, 0, TOL_ATTN),
    ROW(attention_forward, 2, 11, 3, 5, F32, IN_PLACE | SAME_BITS, 0.1f, 0, TOL_ATTN),
    ROW(attention_forward, 1, 9, 1, 40, F32, PREV | SAME_BITS, 0.5f, 0, TOL_ATTN),
    ROW(attention_forward, 4, 42, 4, 16, F32, PREV | SAME_BITS, 0.0f, 0, TOL_ATTN),
    ROW(attention_forward, 3, 42, 4, 16, F32, IN_PLACE | PACKED | SAME_BITS, 0.2f, 0, TOL_ATTN),
    ROW(attention_backward, 1, 1, 1, 1, F32, PACKED | SAME_BITS, 0.0f, 0, TOL_ATTN),
    ROW(attention_backward, 2, 7, 3, 1, F32, SAME_BITS, 0.0f, 0, TOL_ATTN),
    ROW(attention_backward, 3, 13, 2, 8, F32, SAME_BITS, 0.25f, 0, TOL_ATTN),
    ROW(attention_backward, 2, 13, 2, 8, F32, PACKED | SAME_BITS, 0.25f, 0, TOL_ATTN),
    ROW(attention_backward, 2, 11, 3, 5, F32, SAME_BITS, 0.1f, 0, TOL_ATTN),
    ROW(attention_backward, 1, 9, 1, 40, F32, SAME_BITS, 0.5f, 0, TOL_ATTN),
    ROW(attention_backward, 4, 42, 4, 16, F32, SAME_BITS, 0.0f, 0, TOL_ATTN),
    ROW(attention_backward, 3, 42, 4, 16, F32, PACKED | SAME_BITS, 0.2f, 0, TOL_ATTN),

    /* Batch norm (N, C), alpha = eps, beta = momentum: TOL_BN against the
     * long double reference (see there), and the same bits on every
     * backend. N = 2 (the least: the unbiased variance), N not a multiple
     * of 32 and past the 256 lanes of a column; C = 1, past a CPU block of
     * 16, and BN_WIDE columns, more blocks than one launch has (the GPU's
     * blocks stride past them). Training (the running statistics and the
     * counter) and EVAL. */
#define BN_WIDE (FC_LAUNCH_MAX_GRID + 3)
    ROW(batch_norm_forward, 2, 1, 0, 0, F32, SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, 7, 3, 0, 0, F32, SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, 33, 1, 0, 0, F32, IN_PLACE | SAME_BITS, 1e-3f, 0.3f, TOL_BN),
    ROW(batch_norm_forward, 257, 5, 0, 0, F32, SPECIAL | SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, 300, 33, 0, 0, F32, SPECIAL | IN_PLACE | SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, PAR_B, PAR_C, 0, 0, F32, SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, 4099, 9, 0, 0, F32, SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, 2, BN_WIDE, 0, 0, F32, SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, 1, 1, 0, 0, F32, EVAL | SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, 7, 3, 0, 0, F32, EVAL | SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, 257, 5, 0, 0, F32, EVAL | SPECIAL | IN_PLACE | SAME_BITS, 1e-3f, 0.1f, TOL_BN),
    ROW(batch_norm_forward, PAR_B, PAR_C, 0, 0, F32, EVAL | SAME_BITS, 1e-5f, 0.1f, TOL_BN),
    ROW(batch_norm_backward, 2, 1, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_BN),
    ROW(batch_norm_backward, 7, 3, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_BN),
    ROW(batch_norm_backward, 33, 1, 0, 0, F32, IN_PLACE | SAME_BITS, 1e-3f, 0, TOL_BN),
    ROW(batch_norm_backward, 257, 5, 0, 0, F32, SPECIAL | SAME_BITS, 1e-5f, 0, TOL_BN),
    ROW(batch_norm_backward, 300, 33, 0, 0, F32, SPECIAL | IN_PLACE | SAME_BITS, 1e-5f, 0, TOL_BN),
    ROW(batch_norm_backward, PAR_B, PAR_C, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_BN),
    ROW(batch_norm_backward, 4099, 9, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_BN),
    ROW(batch_norm_backward, 2, BN_WIDE, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_BN),
    /* RevIN and patches (B, L, patch_len, strided rows), alpha = the stride:
     * TOL_REVIN against the long double reference, and the same bits on
     * every backend. One window of one value; strides that do and do not
     * divide L; patch_len > L (P = 1); RevIN off, subtract_last, affine;
     * LN_ROWS windows (more than one launch's warps); and the d affine sums
     * over 3 pieces (the last of one value), 10, and 256 longer than the
     * minimum (FC_REDUCE_MIN_BLOCK). */
    ROW(revin_patch_forward, 1, 1, 1, 0, F32, AFFINE | SAME_BITS, 1.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, 3, 16, 4, 2, F32, SAME_BITS, 2.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, 4, 10, 4, 3, F32, LAST | AFFINE | SAME_BITS, 3.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, 2, 5, 7, 1, F32, AFFINE | SAME_BITS, 3.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, 5, 7, 8, 0, F32, LAST | SAME_BITS, 1.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, 3, 104, 16, 5, F32, NO_REVIN | SAME_BITS, 8.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, 3, 33, 5, 1, F32, NO_REVIN | SAME_BITS, 4.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, 7, 96, 12, 2, F32, LAST | SAME_BITS, 5.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, 300, 64, 16, 1, F32, AFFINE | SAME_BITS, 8.0f, 0, TOL_REVIN),
    ROW(revin_patch_forward, LN_ROWS, 3, 2, 0, F32, SAME_BITS, 1.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 1, 1, 1, 0, F32, AFFINE | SAME_BITS, 1.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 3, 16, 4, 2, F32, AFFINE | SAME_BITS, 2.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 4, 10, 4, 3, F32, LAST | AFFINE | SAME_BITS, 3.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 2, 5, 7, 1, F32, AFFINE | SAME_BITS, 3.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 5, 7, 8, 0, F32, LAST | SAME_BITS, 1.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 3, 104, 16, 5, F32, NO_REVIN | SAME_BITS, 8.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 2731, 2, 1, 1, F32, AFFINE | SAME_BITS, 1.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 300, 64, 16, 1, F32, AFFINE | SAME_BITS, 8.0f, 0, TOL_REVIN),
    ROW(revin_patch_backward, 1030, 512, 16, 0, F32, LAST | AFFINE | SAME_BITS, 8.0f, 0, TOL_REVIN),
    /* RevIN's denormalisation (B, n), alpha = eps: TOL_REVIN, SAME_BITS;
     * the backward's d affine over 1 piece, 3 (683 x 12 = 8196) and 256
     * longer than the minimum (1100 x 960). */
    ROW(revin_denorm_forward, 1, 1, 0, 0, F32, AFFINE | SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_forward, 3, 7, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_forward, 4, 12, 0, 0, F32, AFFINE | SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_forward, 5, 33, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_forward, PAR_B, PAR_C, 0, 0, F32, AFFINE | SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_backward, 1, 1, 0, 0, F32, AFFINE | SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_backward, 3, 7, 0, 0, F32, SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_backward, 4, 12, 0, 0, F32, AFFINE | IN_PLACE | SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_backward, 5, 33, 0, 0, F32, IN_PLACE | SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_backward, 683, 12, 0, 0, F32, AFFINE | SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_backward, PAR_B, PAR_C, 0, 0, F32, AFFINE | IN_PLACE | SAME_BITS, 1e-5f, 0, TOL_REVIN),
    ROW(revin_denorm_backward, 1100, 960, 0, 0, F32, AFFINE | SAME_BITS, 1e-5f, 0, TOL_REVIN),

    /* Masked loss (n), alpha = grad scale: the loss TOL_SUM, the gradient
     * TOL_GRAD (see there). */
    ROW(masked_loss, 0, 0, 0, 0, F32, 0, 1.0f, 0, TOL_SUM),
    ROW(masked_loss, 1, 0, 0, 0, F32, 0, 1.0f, 0, TOL_SUM),
    ROW(masked_loss, 7, 0, 0, 0, F32, MSE, 2.0f, 0, TOL_SUM),
    ROW(masked_loss, 31, 0, 0, 0, F32, 0, 65536.0f, 0, TOL_SUM),
    ROW(masked_loss, 257, 0, 0, 0, F32, MSE, 0.5f, 0, TOL_SUM),
    ROW(masked_loss, 257, 0, 0, 0, F32, NO_GRAD, 1.0f, 0, TOL_SUM),
    ROW(masked_loss, 33, 0, 0, 0, F32, NO_MASK, 1.0f, 0, TOL_SUM),
    ROW(masked_loss, 257, 0, 0, 0, F32, MSE | NO_MASK, 2.0f, 0, TOL_SUM),
    ROW(masked_loss, N_3_BLOCKS, 0, 0, 0, F32, MSE, 1.0f, 0, TOL_SUM),
    ROW(masked_loss, N_4_BLOCKS, 0, 0, 0, F32, 0, 1.0f, 0, TOL_SUM),
    ROW(masked_loss, N_4_BLOCKS, 0, 0, 0, F32, MSE, 65536.0f, 0, TOL_SUM),
    ROW(masked_loss, N_LONG_BLOCKS, 0, 0, 0, F32, MSE, 1.0f, 0, TOL_SUM),
    /* Every loss kind of kernels/loss.h (B windows, h, kind, variant):
     * TOL_SUM, TOL_MASE where the window scale's sum is in long double
     * here and double in the backend (the float scale may differ by an
     * ulp). One window, and 683 windows of 12 (three blocks). */
#define LOSS_ROWS(kind, variant, tol) \
    ROW(loss_kind, 1, 7, kind, variant, F32, 0, 1.0f, 0, tol), \
    ROW(loss_kind, 3, 7, kind, variant, F32, 0, 2.0f, 0, tol), \
    ROW(loss_kind, 683, 12, kind, variant, F32, 0, 65536.0f, 0, tol)
    LOSS_ROWS(FC_LOSS_MAE, 0, TOL_SUM),
    LOSS_ROWS(FC_LOSS_MSE, 0, TOL_SUM),
    LOSS_ROWS(FC_LOSS_HUBER, 0, TOL_SUM),
    LOSS_ROWS(FC_LOSS_HUBER, 1, TOL_SUM),
    LOSS_ROWS(FC_LOSS_SMAPE, 0, TOL_SUM),
    LOSS_ROWS(FC_LOSS_MAPE, 0, TOL_SUM),
    LOSS_ROWS(FC_LOSS_MASE, 0, TOL_MASE),
    LOSS_ROWS(FC_LOSS_MASE, 1, TOL_MASE),
    LOSS_ROWS(FC_LOSS_QUANTILE, 0, TOL_SUM),
    LOSS_ROWS(FC_LOSS_QUANTILE, 1, TOL_SUM),
    LOSS_ROWS(FC_LOSS_MQ, 0, TOL_SUM),
    LOSS_ROWS(FC_LOSS_MQ, 1, TOL_SUM),
    LOSS_ROWS(FC_LOSS_HUBER_MQ, 0, TOL_SUM),
    LOSS_ROWS(FC_LOSS_HUBER_MQ, 1, TOL_SUM),
    /* IQLoss's head (points, D): see run_iq_head_forward / backward; its
     * training quantiles (points; alpha, beta the Beta's concentrations 0, 1). */
    ROW(iq_head_forward, 1, 4, 0, 0, F32, 0, 0.0f, 0, TOL_IQ),
    ROW(iq_head_forward, 300, 8, 0, 0, F32, 0, 0.0f, 0, TOL_IQ),
    ROW(iq_head_forward, 70, 64, 0, 0, F32, 0, 0.0f, 0, TOL_IQ),
    ROW(iq_head_backward, 1, 4, 0, 0, F32, 0, 0.0f, 0, TOL_IQ_GRAD),
    ROW(iq_head_backward, 300, 8, 0, 0, F32, 0, 0.0f, 0, TOL_IQ_GRAD),
    ROW(iq_head_backward, 20, 64, 0, 0, F32, 0, 0.0f, 0, TOL_IQ_GRAD),
    ROW(iq_taus, 5000, 0, 0, 0, F32, 0, 1.0f, 1.0f, 0),
    ROW(iq_taus, 5000, 0, 0, 0, F32, 0, 0.5f, 2.0f, 0),
    /* DistributionLoss's likelihoods (B windows, h, kind): see run_distribution_loss. */
#define DISTRIBUTION_ROWS(kind) \
    ROW(distribution_loss, 1, 7, kind, 0, F32, 0, 1.0f, 0, TOL_DIST), \
    ROW(distribution_loss, 683, 12, kind, 0, F32, 0, 65536.0f, 0, TOL_DIST)
    DISTRIBUTION_ROWS(FC_LOSS_NORMAL),
    DISTRIBUTION_ROWS(FC_LOSS_STUDENTT),
    DISTRIBUTION_ROWS(FC_LOSS_POISSON),
    DISTRIBUTION_ROWS(FC_LOSS_NBINOMIAL),
    ROW(masked_loss_sum, 7, 0, 0, 0, F32, MSE, 2.0f, 0, TOL_SUM),
    ROW(masked_loss_sum, 33, 0, 0, 0, F32, NO_MASK, 1.0f, 0, TOL_SUM),
    ROW(masked_loss_sum, N_4_BLOCKS, 0, 0, 0, F32, 0, 65536.0f, 0, TOL_SUM),

    /* Adam (n), ADAM_STEPS steps: TOL_ADAM, and the same bits everywhere
     * (one body, kernels/adam.h, with host scalars made once). */
    ROW(adam_step, 1, 0, 0, 0, F32, SAME_BITS, 0, 0, TOL_ADAM),
    ROW(adam_step, 7, 0, 0, 0, F32, CONFIG_B | SAME_BITS, 0, 0, TOL_ADAM),
    ROW(adam_step, 33, 0, 0, 0, F32, SAME_BITS, 0, 0, TOL_ADAM),
    ROW(adam_step, 257, 0, 0, 0, F32, CONFIG_B | SAME_BITS, 0, 0, TOL_ADAM),
    ROW(adam_step, PAR_N, 0, 0, 0, F32, SAME_BITS, 0, 0, TOL_ADAM),
    /* with weight decay: AdamW's decoupled and Adam's L2 */
    ROW(adam_step, 7, 0, 0, 0, F32, DECAY | SAME_BITS, 0, 0, TOL_ADAM),
    ROW(adam_step, 257, 0, 0, 0, F32, DECAY | CONFIG_B | SAME_BITS, 0, 0, TOL_ADAM),
    ROW(adam_step, PAR_N, 0, 0, 0, F32, DECAY | SAME_BITS, 0, 0, TOL_ADAM),

    /* Sum of squares (n): TOL_SUM. */
    ROW(sum_squares, 0, 0, 0, 0, F32, 0, 0, 0, TOL_SUM),
    ROW(sum_squares, 1, 0, 0, 0, F32, 0, 0, 0, TOL_SUM),
    ROW(sum_squares, 7, 0, 0, 0, F32, 0, 0, 0, TOL_SUM),
    ROW(sum_squares, 33, 0, 0, 0, F32, 0, 0, 0, TOL_SUM),
    ROW(sum_squares, 257, 0, 0, 0, F32, 0, 0, 0, TOL_SUM),
    ROW(sum_squares, N_3_BLOCKS, 0, 0, 0, F32, 0, 0, 0, TOL_SUM),
    ROW(sum_squares, N_4_BLOCKS, 0, 0, 0, F32, 0, 0, 0, TOL_SUM),
    ROW(sum_squares, N_LONG_BLOCKS, 0, 0, 0, F32, 0, 0, 0, TOL_SUM),

    /* scale and fill (n): TOL_EXACT (one product, or a store). */
    ROW(scale, 0, 0, 0, 0, F32, 0, 2.0f, 0, TOL_EXACT),
    ROW(scale, 1, 0, 0, 0, F32, 0, -0.5f, 0, TOL_EXACT),
    ROW(scale, 7, 0, 0, 0, F32, 0, 3.0f, 0, TOL_EXACT),
    ROW(scale, 33, 0, 0, 0, F32, 0, 0.0f, 0, TOL_EXACT),
    ROW(scale, 257, 0, 0, 0, F32, 0, -1.25f, 0, TOL_EXACT),
    ROW(scale, PAR_N, 0, 0, 0, F32, 0, 0.1f, 0, TOL_EXACT),
    ROW(fill, 0, 0, 0, 0, F32, 0, 1.0f, 0, TOL_EXACT),
    ROW(fill, 1, 0, 0, 0, F32, 0, -2.5f, 0, TOL_EXACT),
    ROW(fill, 7, 0, 0, 0, F32, 0, -0.0f, 0, TOL_EXACT),
    ROW(fill, 33, 0, 0, 0, F32, 0, 1e30f, 0, TOL_EXACT),
    ROW(fill, 257, 0, 0, 0, F32, 0, NAN, 0, TOL_EXACT),
    ROW(fill, PAR_N, 0, 0, 0, F32, 0, 0.5f, 0, TOL_EXACT),
};

static int has_rows(const char *op) {
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (!strcmp(cases[i].op, op)) return 1;
    return 0;
}

/* ---- backends ---- */

typedef struct {
    const char *device;
    int threads;
    const char *label;
} backend_spec;

/* The CPU twice: all cores takes the parallel paths, one thread the serial
 * ones, and SAME_BITS rows compare the two. */
static const backend_spec specs[] = {
    {"cpu", 0, "cpu"},
    {"cpu", 1, "cpu/1t"},
    {"cuda", 0, "cuda"},
};
#define NSPECS (sizeof specs / sizeof *specs)

/* ---- the table's entries (backend_ops.def) ---- */

/* Computed entries (FN in a column of backend_ops.def) without rows here,
 * each with the test that checks it instead. Every other computed entry
 * must have rows: a new entry without them fails this test. */
static const struct {
    const char *op, *tested_by;
} tested_elsewhere[] = {
    {"linear_workspace", "the linear_forward rows here (each call is sized with it), test_step_graph"},
    {"optimizer_step", "test_optimizer (fc_optimizer_step), test_step_graph"},
    {"data_bytes", "test_window_load, test_step_graph"},
    {"data_upload", "test_step_graph (training from the device's data)"},
    {"data_stage", "test_window_load, test_step_graph"},
    {"data_gather", "test_window_load, test_step_graph"},
    {"data_scale", "test_step_graph"},
    {"data_release", "test_step_graph"},
    {"capture_begin", "test_graph_pass, test_step_graph (a recording CPU)"},
    {"capture_end", "test_graph_pass, test_step_graph"},
    {"graph_launch", "test_graph_pass, test_step_graph"},
    {"graph_free", "test_graph_pass, test_step_graph"},
    {"mc_chunk_sums", "test_mc_slices (the GPU's slicing on the host), gpu_parity.sh"},
    {"indicator_segments", "test_mc_slices, gpu_parity.sh"},
    {"ta_segments", "test_ta_segments (the GPU's segments on the host), gpu_parity.sh"},
};
#define N_ELSEWHERE (sizeof tested_elsewhere / sizeof *tested_elsewhere)

static const char *test_elsewhere(const char *op) {
    for (size_t i = 0; i < N_ELSEWHERE; i++)
        if (!strcmp(tested_elsewhere[i].op, op)) return tested_elsewhere[i].tested_by;
    return NULL;
}

static int leaves_null(fc_op_fill fill) { return fill == FC_FILL_NONE || fill == FC_FILL_MAYBE; }

/* Every computed entry of backend_ops.def has rows here or a test named in
 * tested_elsewhere; rows run on every backend, so their entry is filled by
 * every backend; and tested_elsewhere names only entries without rows. */
static void check_rows_cover_entries(void) {
    for (size_t i = 0; i < fc_backend_op_count; i++) {
        const fc_backend_op *op = &fc_backend_ops[i];
        int computed = op->cpu == FC_FILL_FN || op->cuda == FC_FILL_FN, rows = has_rows(op->name);
        CHECK_MSG(!computed || rows || test_elsewhere(op->name),
                  "entry %s (backend_ops.def) has no row in this test's table: add rows (with a reference in "
                  "backend_ops_reference.h), or name the test that checks it in tested_elsewhere", op->name);
        CHECK_MSG(!rows || !test_elsewhere(op->name), "entry %s has rows: strike it off tested_elsewhere", op->name);
        CHECK_MSG(!rows || (!leaves_null(op->cpu) && !leaves_null(op->cuda)),
                  "entry %s has rows, which run on every backend, but backend_ops.def leaves it NULL on the %s",
                  op->name, leaves_null(op->cpu) ? "cpu" : "cuda");
    }
    for (size_t i = 0; i < N_ELSEWHERE; i++)
        CHECK_MSG(fc_backend_op_named(tested_elsewhere[i].op), "tested_elsewhere names %s, which is no entry of "
                  "backend_ops.def", tested_elsewhere[i].op);
}

/* Whether be fills exactly the entries its column of backend_ops.def says
 * (MAYBE: either); reports each one it does not, by name. The CUDA
 * stand-in is the CPU's table, so every backend but "cuda" has the cpu
 * column. */
static int table_matches_list(const fc_backend *be, const char *label) {
    int ok = 1;
    for (size_t i = 0; i < fc_backend_op_count; i++) {
        const fc_backend_op *op = &fc_backend_ops[i];
        fc_op_fill fill = strcmp(be->name, "cuda") ? op->cpu : op->cuda;
        int filled = fc_backend_op_filled(be, op);
        if (fill == FC_FILL_MAYBE || filled == (fill != FC_FILL_NONE)) continue;
        CHECK_MSG(0, "backend %s: entry %s is %s, but backend_ops.def says %s for it", label, op->name,
                  filled ? "set" : "empty (NULL)", fc_op_fill_name(fill));
        ok = 0;
    }
    return ok;
}

/* Opens what this machine has; a missing GPU is one line, not a failure. */
static int open_backends(fc_backend **be, const char **label) {
    int n = 0;
    for (size_t i = 0; i < NSPECS; i++) {
        char note[256] = "";
        fc_backend *b = NULL;
        fc_status st = fc_backend_create(specs[i].device, specs[i].threads, &b, note, sizeof note);
        if (st != FC_OK && strcmp(specs[i].device, "cpu") != 0) {
            printf("%s: skipped (%s)\n", specs[i].label, fc_last_error());
            continue;
        }
        CHECK_MSG(st == FC_OK, "backend %s: %s", specs[i].label, fc_last_error());
        if (st != FC_OK) continue;
        if (!table_matches_list(b, specs[i].label)) {
            fc_backend_destroy(&b);
            continue;
        }
        printf("%s: %s, %d threads\n", specs[i].label, note, b->threads);
        be[n] = b, label[n++] = specs[i].label;
    }
    return n;
}

/* ---- running ---- */

/* The first backend's outputs of a SAME_BITS row. */
typedef struct {
    int n;
    void *data[MAX_BUFS];
    size_t bytes[MAX_BUFS];
} outputs;

static void outputs_keep(outputs *o, const ctx *c) {
    o->n = c->nout;
    for (int i = 0; i < c->nout; i++) {
        o->data[i] = malloc(c->out_bytes[i] + 1);
        memcpy(o->data[i], c->out[i], c->out_bytes[i]);
        o->bytes[i] = c->out_bytes[i];
    }
}

static void outputs_compare(ctx *c, const outputs *o, const char *first) {
    for (int i = 0; i < c->nout && i < o->n; i++)
        if (c->out_bytes[i] != o->bytes[i] || memcmp(c->out[i], o->data[i], o->bytes[i]))
            fail(c, "%s: not the same bits as on %s", c->out_name[i], first);
}

static void outputs_free(outputs *o) {
    for (int i = 0; i < o->n; i++) free(o->data[i]);
    o->n = 0;
}

static void print_row(const ctx *c, const op_case *k, const char *label) {
    char tol[16];
    if (c->worst_tol == 0) snprintf(tol, sizeof tol, "exact");
    else snprintf(tol, sizeof tol, "%.2g", c->worst_tol);
    printf("%-22s %-40s %-4s %-6s %9.2e %7s %s\n", k->op, c->shape, fc_precision_name(k->prec), label, c->worst_err,
           tol, c->bad ? "FAIL" : "ok");
}

/* Row i on every backend; returns how many runs failed. */
static int run_row(size_t i, fc_backend **be, const char **label, int nbe) {
    const op_case *k = &cases[i];
    outputs first = {0};
    int failed = 0;
    for (int b = 0; b < nbe; b++) {
        ctx c = {.be = be[b], .worst_ratio = -1};
        fc_error_clear();
        k->run(&c, k, 1000 * (uint64_t)(i + 1));
        check_buffers(&c);
        if (k->opt & SAME_BITS) {
            if (b == 0) outputs_keep(&first, &c);
            else outputs_compare(&c, &first, label[0]);
        }
        print_row(&c, k, label[b]);
        CHECK_MSG(c.bad == 0, "%s %s %s on %s: %s", k->op, c.shape, fc_precision_name(k->prec), label[b],
                  c.first_bad);
        failed += c.bad != 0;
        ctx_free(&c);
    }
    outputs_free(&first);
    return failed;
}

/* The gpu-labelled run (FCAST_GPU_TEST=1, CMakeLists.txt) is about the GPU:
 * without one it is skipped (77, ctest's SKIP_RETURN_CODE), and under make
 * test-gpu (FCAST_REQUIRE_GPU=1), where a GPU was promised, it fails. */
static int gpu_missing(const char **label, int nbe) {
    for (int b = 0; b < nbe; b++)
        if (!strcmp(label[b], "cuda")) return 0;
    return getenv("FCAST_GPU_TEST") != NULL;
}

int main(void) {
    fc_backend *be[NSPECS];
    const char *label[NSPECS];
    check_rows_cover_entries();
    int nbe = open_backends(be, label);
    if (gpu_missing(label, nbe)) {
        for (int b = 0; b < nbe; b++) fc_backend_destroy(&be[b]);
        return getenv("FCAST_REQUIRE_GPU") ? 1 : 77;
    }
    if (nbe == 0) return CHECK_DONE();
    printf("%-22s %-40s %-4s %-6s %9s %7s %s\n", "op", "shape", "prec", "on", "max err", "tol", "ok");
    size_t rows = sizeof cases / sizeof *cases;
    int failed = 0;
    for (size_t i = 0; i < rows; i++) failed += run_row(i, be, label, nbe);
    printf("%zu rows x %d backends: %zu ok, %d failed\n", rows, nbe, rows * (size_t)nbe - (size_t)failed, failed);
    for (int b = 0; b < nbe; b++) fc_backend_destroy(&be[b]);
    return CHECK_DONE();
}
