/* The backend's multi-head attention (attention_forward /
 * attention_backward, kernels/attention.h) on the CPU backend, which runs
 * the bodies the CUDA backend runs (test_backend_ops compares the devices):
 *
 *   1. the forward against a double-precision attention written here from
 *      neuralforecast's _ScaledDotProductAttention (res_attention): scores
 *      = q k^T scale (+ prev), probs = softmax over the keys, out =
 *      dropout(probs) v with the mask backend.h defines; q, k, v as column
 *      blocks of one wider matrix (ldq > H E) and out with a wider stride,
 *      whose gaps must survive; P not a multiple of anything, E of 1, 8 and
 *      40 (past a chunk of the weighted sums); with all cores and with one
 *      thread (the same bits), and prev == scores in place (the bits of
 *      separate buffers);
 *   2. the backward against central finite differences of
 *      J = sum(R * out) + sum(G * scores) with respect to q, k, v and prev
 *      (dout = R, dscores = G on entry: the next layer's use of the
 *      scores), through the double attention (tight) and through the
 *      backend's own float forward with the same (seed, offset) mask
 *      (loose, but it ties the two entries together); with and without
 *      dropout; gaps of dq, dk, dv kept; one thread gives the bits of all
 *      cores;
 *   3. p = 0 is no dropout whatever the seed, and another offset gives
 *      another mask;
 *   4. the checks can fail: a kernel that forgets the scale, one that takes
 *      the softmax over the queries instead of the keys, a backward that
 *      forgets the scale or drops the dscores it was given. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "core/rng.h"
#include "test_arrays.h"

/* ---- a problem: shapes and inputs ---- */

typedef struct {
    size_t B, P, H, E;
    size_t ldq, ldo;      /* q, k, v (and dq, dk, dv) rows; out and dout rows */
    int has_prev;
    float scale, p;
    uint64_t seed, offset;
} shape;

static size_t n_tok(const shape *s) { return s->B * s->P; }
static size_t n_sc(const shape *s) { return s->B * s->H * s->P * s->P; }

static shape make_shape(size_t B, size_t P, size_t H, size_t E, size_t pad, int has_prev, float p) {
    shape s = {B, P, H, E, 3 * H * E + pad, H * E + 2 * pad, has_prev, (float)(1.0 / sqrt((double)E)), p,
               0x5eed0000ull + P, 1000};
    return s;
}

/* q, k, v: column blocks [0, HE), [HE, 2HE), [2HE, 3HE) of one (B P, ldq) matrix. */
typedef struct {
    shape s;
    float *qkv, *prev;    /* prev (B, H, P, P), or NULL */
    const float *q, *k, *v;
} problem;

static problem make_problem(shape s, uint64_t seed) {
    problem pr = {.s = s};
    pr.qkv = randu(n_tok(&s) * s.ldq, seed, -1.5f, 1.5f);
    pr.prev = s.has_prev ? randu(n_sc(&s), seed + 1, -2, 2) : NULL;
    pr.q = pr.qkv, pr.k = pr.qkv + s.H * s.E, pr.v = pr.qkv + 2 * s.H * s.E;
    return pr;
}

static void free_problem(problem *pr) { free(pr->qkv), free(pr->prev); }

/* The drop decision backend.h defines (as test_dropout.c's): the first
 * word of the Philox block of (seed, FC_RNG_STREAM_DROPOUT, index) as a
 * uniform, kept when >= p, at index offset + ((b H + h) P + i) P + j. */
static int kept(const shape *s, size_t b, size_t h, size_t i, size_t j) {
    uint64_t index = s->offset + ((b * s->H + h) * s->P + i) * s->P + j;
    return fc_u32_to_unit_float(fc_rng_block(s->seed, FC_RNG_STREAM_DROPOUT, index).v[0]) >= s->p;
}

/* ---- attention in double, from neuralforecast's _ScaledDotProductAttention ---- */

/* Element (b, h, i, j) of a (B, H, P, P) block, element (token, h E + e) of a token matrix. */
static size_t at4(const shape *s, size_t b, size_t h, size_t i, size_t j) {
    return ((b * s->H + h) * s->P + i) * s->P + j;
}
static size_t atq(const shape *s, size_t b, size_t i, size_t h, size_t e) {
    return (b * s->P + i) * s->ldq + h * s->E + e;
}
static size_t ato(const shape *s, size_t b, size_t i, size_t h, size_t e) {
    return (b * s->P + i) * s->ldo + h * s->E + e;
}

/* What the double forward computes, with the error scales of a float one. */
typedef struct {
    double *scores, *probs, *out;          /* (B, H, P, P), (B, H, P, P), (B P, ldo) */
    double *s_scale, *p_scale, *o_scale;   /* their error scales (see attn_double) */
} attn_result;

static attn_result result_alloc(const shape *s) {
    attn_result r;
    r.scores = calloc(n_sc(s), sizeof(double)), r.probs = calloc(n_sc(s), sizeof(double));
    r.out = calloc(n_tok(s) * s->ldo, sizeof(double));
    r.s_scale = calloc(n_sc(s), sizeof(double)), r.p_scale = calloc(n_sc(s), sizeof(double));
    r.o_scale = calloc(n_tok(s) * s->ldo, sizeof(double));
    return r;
}

static void result_free(attn_result *r) {
    free(r->scores), free(r->probs), free(r->out), free(r->s_scale), free(r->p_scale), free(r->o_scale);
}

/* Error scales are at least 2^-100, so that an exact zero (all weights
 * dropped) passes with either sign; gaps keep scale 0 (they must stay NaN). */
static double floor_scale(double s) { return s > 0x1p-100 ? s : 0x1p-100; }

/* One head's query row i: scores and the softmax over the keys j; returns
 * max_j |s|. The scale of a score is the sum of its terms' sizes, |scale|
 * sum |q k| + |prev|; of a probability p (1 + 2 max_j |s|): a float score
 * errs by 2^-24 |s| at most, which moves p by p (ds_j - sum p ds), at most
 * 2 max|s| 2^-24 p, before its own rounding (2^-24 p). */
static double row_double(const shape *s, const double *qkv, const double *prev, size_t b, size_t h, size_t i,
                         attn_result *r) {
    double m = -INFINITY, sum = 0, smax = 0;
    for (size_t j = 0; j < s->P; j++) {
        double d = 0, a = 0;
        for (size_t e = 0; e < s->E; e++) {
            double t = qkv[atq(s, b, i, h, e)] * qkv[atq(s, b, j, h, e) + s->H * s->E];
            d += t, a += fabs(t);
        }
        size_t at = at4(s, b, h, i, j);
        double pv = prev ? prev[at] : 0;
        r->scores[at] = s->scale * d + pv;
        r->s_scale[at] = floor_scale(fabs(s->scale) * a + fabs(pv));
        m = r->scores[at] > m ? r->scores[at] : m;
        smax = fabs(r->scores[at]) > smax ? fabs(r->scores[at]) : smax;
    }
    for (size_t j = 0; j < s->P; j++) sum += exp(r->scores[at4(s, b, h, i, j)] - m);
    for (size_t j = 0; j < s->P; j++) {
        size_t at = at4(s, b, h, i, j);
        r->probs[at] = exp(r->scores[at] - m) / sum;
        r->p_scale[at] = floor_scale(r->probs[at] * (1 + 2 * smax));
    }
    return smax;
}

/* The weight of probs[b, h, i, j] after dropout: p / (1 - p) kept, 0
 * dropped, 1 - p the float torch divides by. */
static double weight(const shape *s, double prob, size_t b, size_t h, size_t i, size_t j) {
    if (s->p == 0) return prob;
    return kept(s, b, h, i, j) ? prob / (double)(1.0f - s->p) : 0.0;
}

/* out row i of head h = sum_j w_ij v_j; scale sum_j |w_ij v_j| (1 + 2 max|s|):
 * the weights err as the probabilities (above) plus the dropout's division
 * (2^-24 w), and the sum rounds once. */
static void out_double(const shape *s, const double *qkv, size_t b, size_t h, size_t i, double smax,
                       attn_result *r) {
    for (size_t e = 0; e < s->E; e++) {
        double o = 0, a = 0;
        for (size_t j = 0; j < s->P; j++) {
            double w = weight(s, r->probs[at4(s, b, h, i, j)], b, h, i, j);
            double vv = qkv[atq(s, b, j, h, e) + 2 * s->H * s->E];
            o += w * vv, a += fabs(w * vv);
        }
        r->out[ato(s, b, i, h, e)] = o;
        r->o_scale[ato(s, b, i, h, e)] = floor_scale(a * (1 + 2 * smax));
    }
}

static void attn_double(const shape *s, const double *qkv, const double *prev, attn_result *r) {
    for (size_t b = 0; b < s->B; b++)
        for (size_t h = 0; h < s->H; h++)
            for (size_t i = 0; i < s->P; i++) out_double(s, qkv, b, h, i, row_double(s, qkv, prev, b, h, i, r), r);
}

static double *to_double(const float *x, size_t n) {
    double *d = malloc((n ? n : 1) * sizeof *d);
    for (size_t i = 0; i < n; i++) d[i] = x[i];
    return d;
}

/* ---- the backend's forward ---- */

typedef struct {
    float *out, *scores, *probs;
} fwd_out;

static fwd_out fwd_alloc(const shape *s) {
    fwd_out f = {filled(n_tok(s) * s->ldo, NAN), filled(n_sc(s), NAN), filled(n_sc(s), NAN)};
    return f;
}

static void fwd_free(fwd_out *f) { free(f->out), free(f->scores), free(f->probs); }

static void run_forward(fc_backend *be, const problem *pr, fwd_out *f, float scale) {
    const shape *s = &pr->s;
    be->attention_forward(be, f->out, s->ldo, f->scores, f->probs, pr->prev, pr->q, pr->k, pr->v, s->ldq, s->B, s->P,
                          s->H, s->E, scale, s->p, s->seed, s->offset);
}

/* ---- 1. forward against double ---- */

/* One float rounding of each output is 2^-24 of its scale at most; the
 * weighted sums add the probabilities' error and the dropout's division:
 * up to 3 2^-24 of out's scale (kernels/attention.h). */
#define TOL_FWD (4 * 0x1p-24)

/* Worst |got - want| / scale over n, in units of TOL_FWD; scale 0 (gaps) must be NaN. */
static double ratio_of(const float *got, const double *want, const double *scale, size_t n) {
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        double e = scale[i] == 0 ? (isnan(got[i]) ? 0 : INFINITY) : fabs(got[i] - want[i]) / scale[i] / TOL_FWD;
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

/* The three outputs' worst ratio to TOL_FWD against the double forward. */
static double forward_ratio(const problem *pr, const fwd_out *f, double ratios[3]) {
    const shape *s = &pr->s;
    double *qkv = to_double(pr->qkv, n_tok(s) * s->ldq), *prev = pr->prev ? to_double(pr->prev, n_sc(s)) : NULL;
    attn_result r = result_alloc(s);
    attn_double(s, qkv, prev, &r);
    ratios[0] = ratio_of(f->scores, r.scores, r.s_scale, n_sc(s));
    ratios[1] = ratio_of(f->probs, r.probs, r.p_scale, n_sc(s));
    ratios[2] = ratio_of(f->out, r.out, r.o_scale, n_tok(s) * s->ldo);
    result_free(&r), free(qkv), free(prev);
    double w = ratios[0] > ratios[1] ? ratios[0] : ratios[1];
    return w > ratios[2] ? w : ratios[2];
}

static int same_forward(const shape *s, const fwd_out *a, const fwd_out *b) {
    return same_bits(a->out, b->out, n_tok(s) * s->ldo) && same_bits(a->scores, b->scores, n_sc(s)) &&
           same_bits(a->probs, b->probs, n_sc(s));
}

/* prev == scores: scores filled with prev, passed as both. */
static void check_in_place(fc_backend *be, const problem *pr, const fwd_out *separate) {
    const shape *s = &pr->s;
    fwd_out f = fwd_alloc(s);
    memcpy(f.scores, pr->prev, n_sc(s) * sizeof *f.scores);
    be->attention_forward(be, f.out, s->ldo, f.scores, f.probs, f.scores, pr->q, pr->k, pr->v, s->ldq, s->B, s->P,
                          s->H, s->E, s->scale, s->p, s->seed, s->offset);
    CHECK_MSG(same_forward(s, &f, separate), "forward P%zu E%zu: prev == scores differs from separate buffers", s->P,
              s->E);
    fwd_free(&f);
}

static void check_forward(fc_backend *be, fc_backend *be1, shape s, uint64_t seed) {
    problem pr = make_problem(s, seed);
    fwd_out f = fwd_alloc(&s), f1 = fwd_alloc(&s);
    run_forward(be, &pr, &f, s.scale);
    run_forward(be1, &pr, &f1, s.scale);
    double r[3], worst = forward_ratio(&pr, &f, r);
    CHECK_MSG(worst <= 1, "forward B%zu P%zu H%zu E%zu p %g: off the double attention by %.3g tolerances "
              "(scores %.3g probs %.3g out %.3g)", s.B, s.P, s.H, s.E, (double)s.p, worst, r[0], r[1], r[2]);
    CHECK_MSG(same_forward(&s, &f, &f1), "forward B%zu P%zu H%zu E%zu: all cores and one thread differ", s.B, s.P,
              s.H, s.E);
    if (s.has_prev) check_in_place(be, &pr, &f);
    printf("forward  B%zu P%-3zu H%zu E%-2zu ldq%-3zu %s p %-4g: err / (2^-24 scale): scores %.2f probs %.2f out "
           "%.2f\n", s.B, s.P, s.H, s.E, s.ldq, s.has_prev ? "prev" : "    ", (double)s.p, 4 * r[0], 4 * r[1],
           4 * r[2]);
    fwd_free(&f), fwd_free(&f1), free_problem(&pr);
}

/* ---- 2. backward against finite differences ---- */

/* J's weights: R on out (B P, ldo), G on scores (B, H, P, P). */
typedef struct {
    float *R, *G;
} weights;

static double J_of_double(const problem *pr, const weights *w, const double *qkv, const double *prev) {
    const shape *s = &pr->s;
    attn_result r = result_alloc(s);
    attn_double(s, qkv, prev, &r);
    double J = 0;
    for (size_t i = 0; i < n_tok(s) * s->ldo; i++) J += w->R[i] * r.out[i];
    for (size_t i = 0; i < n_sc(s); i++) J += w->G[i] * r.scores[i];
    result_free(&r);
    return J;
}

static double J_of_backend(fc_backend *be, const problem *pr, const weights *w) {
    const shape *s = &pr->s;
    fwd_out f = fwd_alloc(s);
    run_forward(be, pr, &f, s->scale);
    double J = 0;
    for (size_t r = 0; r < n_tok(s); r++)
        for (size_t c = 0; c < s->H * s->E; c++) J += (double)w->R[r * s->ldo + c] * f.out[r * s->ldo + c];
    for (size_t i = 0; i < n_sc(s); i++) J += (double)w->G[i] * f.scores[i];
    fwd_free(&f);
    return J;
}

/* The backend's gradients at the problem: dq, dk, dv column blocks of one
 * (B P, ldq) matrix (gaps NaN), dscores (from G). */
typedef struct {
    float *dqkv, *dscores;
} grads;

static grads run_backward(fc_backend *be, const problem *pr, const weights *w, float scale, int keep_g) {
    const shape *s = &pr->s;
    size_t HE = s->H * s->E;
    fwd_out f = fwd_alloc(s);
    run_forward(be, pr, &f, s->scale);
    grads g = {filled(n_tok(s) * s->ldq, NAN), keep_g ? copy_of(w->G, n_sc(s)) : filled(n_sc(s), 0.0f)};
    be->attention_backward(be, g.dqkv, g.dqkv + HE, g.dqkv + 2 * HE, s->ldq, g.dscores, f.probs, pr->q, pr->k, pr->v,
                           s->ldq, w->R, s->ldo, s->B, s->P, s->H, s->E, scale, s->p, s->seed, s->offset);
    fwd_free(&f);
    return g;
}

/* Worst ratios of |got - fd| to the tolerances below, over every
 * coordinate of q, k, v and prev. */
typedef struct {
    double d, f;   /* against the double fd; against the float-forward fd */
} fd_worst;

/* One coordinate: *xd and *xf are it in the double and float copies. */
static void fd_coordinate(fc_backend *be, const problem *pf, const weights *w, double *qkv_d, double *prev_d,
                          double *xd, float *xf, float got, fd_worst *worst) {
    const double hd = 1e-5;
    const float hf = 0x1p-7f;
    double x0 = *xd;
    *xd = x0 + hd;
    double jp = J_of_double(pf, w, qkv_d, prev_d);
    *xd = x0 - hd;
    double jm = J_of_double(pf, w, qkv_d, prev_d);
    *xd = x0;
    double fd = (jp - jm) / (2 * hd);
    /* the float backward: a few roundings (2^-24) of sums whose terms add
     * up to O(1)..O(10) here, so ~1e-6 at most; the fd's truncation
     * (1e-10 |J'''| / 6) and rounding (1e-16 |J| / 1e-5) stay below 1e-9 */
    double r = fabs(got - fd) / (5e-7 + 5e-6 * fabs(fd));
    if (!(r <= worst->d)) worst->d = r;
    float xf0 = *xf;
    *xf = xf0 + hf;
    jp = J_of_backend(be, pf, w);
    *xf = xf0 - hf;
    jm = J_of_backend(be, pf, w);
    *xf = xf0;
    fd = (jp - jm) / (2.0 * hf);
    /* step 2^-7: truncation 2^-14 / 6 |J'''| and the float forward's
     * roundings, ~sqrt(n) 2^-24 |R out| / 2^-6 over the n outputs, a few
     * 1e-5 at these shapes */
    r = fabs(got - fd) / (2e-4 + 2e-3 * fabs(fd));
    if (!(r <= worst->f)) worst->f = r;
}

static fd_worst fd_check(fc_backend *be, const problem *pr, const weights *w, const grads *g) {
    const shape *s = &pr->s;
    problem pf = *pr;   /* float copies that the fd moves */
    pf.qkv = copy_of(pr->qkv, n_tok(s) * s->ldq);
    pf.prev = pr->prev ? copy_of(pr->prev, n_sc(s)) : NULL;
    pf.q = pf.qkv, pf.k = pf.qkv + s->H * s->E, pf.v = pf.qkv + 2 * s->H * s->E;
    double *qkv_d = to_double(pr->qkv, n_tok(s) * s->ldq), *prev_d = pr->prev ? to_double(pr->prev, n_sc(s)) : NULL;
    fd_worst worst = {0, 0};
    for (size_t r = 0; r < n_tok(s); r++)
        for (size_t c = 0; c < 3 * s->H * s->E; c++) {
            size_t at = r * s->ldq + c;
            fd_coordinate(be, &pf, w, qkv_d, prev_d, &qkv_d[at], &pf.qkv[at], g->dqkv[at], &worst);
        }
    for (size_t i = 0; pr->prev && i < n_sc(s); i++)
        fd_coordinate(be, &pf, w, qkv_d, prev_d, &prev_d[i], &pf.prev[i], g->dscores[i], &worst);
    free(pf.qkv), free(pf.prev), free(qkv_d), free(prev_d);
    return worst;
}

static weights make_weights(const shape *s, uint64_t seed) {
    weights w = {randu(n_tok(s) * s->ldo, seed, -1, 1), randu(n_sc(s), seed + 1, -0.5f, 0.5f)};
    return w;
}

static size_t gaps_written(const shape *s, const float *dqkv) {
    size_t bad = 0;
    for (size_t r = 0; r < n_tok(s); r++)
        for (size_t c = 3 * s->H * s->E; c < s->ldq; c++) bad += !isnan(dqkv[r * s->ldq + c]);
    return bad;
}

static void check_backward(fc_backend *be, fc_backend *be1, shape s, uint64_t seed) {
    problem pr = make_problem(s, seed);
    weights w = make_weights(&s, seed + 10);
    grads g = run_backward(be, &pr, &w, s.scale, 1), g1 = run_backward(be1, &pr, &w, s.scale, 1);
    fd_worst worst = fd_check(be, &pr, &w, &g);
    CHECK_MSG(worst.d <= 1 && worst.f <= 1, "backward B%zu P%zu H%zu E%zu p %g: off the fd by %.3g (double), %.3g "
              "(float forward) tolerances", s.B, s.P, s.H, s.E, (double)s.p, worst.d, worst.f);
    CHECK_MSG(gaps_written(&s, g.dqkv) == 0, "backward P%zu E%zu: gaps of dq, dk, dv written", s.P, s.E);
    CHECK_MSG(same_bits(g.dqkv, g1.dqkv, n_tok(&s) * s.ldq) && same_bits(g.dscores, g1.dscores, n_sc(&s)),
              "backward B%zu P%zu H%zu E%zu: all cores and one thread differ", s.B, s.P, s.H, s.E);
    printf("backward B%zu P%-3zu H%zu E%-2zu ldq%-3zu %s p %-4g: ratio to the fd tolerances %.3f (double), %.3f "
           "(float forward)\n", s.B, s.P, s.H, s.E, s.ldq, s.has_prev ? "prev" : "    ", (double)s.p, worst.d, worst.f);
    free(g.dqkv), free(g.dscores), free(g1.dqkv), free(g1.dscores), free(w.R), free(w.G), free_problem(&pr);
}

/* Large enough for the parallel loops: one thread gives the bits of all cores. */
static void check_threads(fc_backend *be, fc_backend *be1, shape s, uint64_t seed) {
    problem pr = make_problem(s, seed);
    weights w = make_weights(&s, seed + 10);
    fwd_out f = fwd_alloc(&s), f1 = fwd_alloc(&s);
    run_forward(be, &pr, &f, s.scale);
    run_forward(be1, &pr, &f1, s.scale);
    grads g = run_backward(be, &pr, &w, s.scale, 1), g1 = run_backward(be1, &pr, &w, s.scale, 1);
    double r[3];
    CHECK_MSG(forward_ratio(&pr, &f, r) <= 1, "forward B%zu P%zu H%zu E%zu off the double attention", s.B, s.P, s.H,
              s.E);
    CHECK_MSG(same_forward(&s, &f, &f1), "forward B%zu P%zu: all cores and one thread differ", s.B, s.P);
    CHECK_MSG(same_bits(g.dqkv, g1.dqkv, n_tok(&s) * s.ldq) && same_bits(g.dscores, g1.dscores, n_sc(&s)),
              "backward B%zu P%zu: all cores and one thread differ", s.B, s.P);
    fwd_free(&f), fwd_free(&f1), free(g.dqkv), free(g.dscores), free(g1.dqkv), free(g1.dscores);
    free(w.R), free(w.G), free_problem(&pr);
}

/* ---- 3. p = 0, offsets ---- */

static void check_dropout_args(fc_backend *be) {
    shape s = make_shape(2, 9, 2, 4, 1, 1, 0.0f);
    problem pr = make_problem(s, 71);
    fwd_out a = fwd_alloc(&s), b = fwd_alloc(&s), c = fwd_alloc(&s), d = fwd_alloc(&s);
    run_forward(be, &pr, &a, s.scale);
    pr.s.seed = 12345, pr.s.offset = 999;   /* p = 0: seed and offset do not matter */
    run_forward(be, &pr, &b, s.scale);
    CHECK_MSG(same_forward(&s, &a, &b), "p = 0: another seed or offset changed the result");
    pr.s.p = 0.5f;
    run_forward(be, &pr, &c, s.scale);
    pr.s.offset += n_sc(&s);   /* the next step's offsets */
    run_forward(be, &pr, &d, s.scale);
    size_t differ = 0, n = n_tok(&s) * s.H * s.E;
    for (size_t r = 0; r < n_tok(&s); r++)
        for (size_t col = 0; col < s.H * s.E; col++) differ += c.out[r * s.ldo + col] != d.out[r * s.ldo + col];
    CHECK_MSG(differ > n / 4, "p = 0.5: another offset changed only %zu of %zu outputs", differ, n);
    CHECK_MSG(same_bits(c.probs, a.probs, n_sc(&s)) && same_bits(c.scores, a.scores, n_sc(&s)),
              "dropout changed the scores or probabilities (it applies to out only)");
    fwd_free(&a), fwd_free(&b), fwd_free(&c), fwd_free(&d), free_problem(&pr);
}

/* ---- 4. the checks can fail ---- */

/* probs (B, H, P, P) taken over the queries i for each key j: the wrong axis. */
static void softmax_wrong_axis(const shape *s, const float *scores, float *probs) {
    for (size_t bh = 0; bh < s->B * s->H; bh++)
        for (size_t j = 0; j < s->P; j++) {
            const float *col = scores + bh * s->P * s->P + j;
            double m = -INFINITY, sum = 0;
            for (size_t i = 0; i < s->P; i++) m = col[i * s->P] > m ? col[i * s->P] : m;
            for (size_t i = 0; i < s->P; i++) sum += exp(col[i * s->P] - m);
            for (size_t i = 0; i < s->P; i++) probs[bh * s->P * s->P + i * s->P + j] = (float)(exp(col[i * s->P] - m) / sum);
        }
}

static void check_checks_fail(fc_backend *be) {
    shape s = make_shape(2, 7, 2, 4, 1, 1, 0.25f);   /* scale 1/2 */
    problem pr = make_problem(s, 81);
    fwd_out f = fwd_alloc(&s);
    double r[3];
    run_forward(be, &pr, &f, 1.0f);   /* forgot the scale */
    double no_scale = forward_ratio(&pr, &f, r);
    run_forward(be, &pr, &f, s.scale);
    softmax_wrong_axis(&s, f.scores, f.probs);
    double axis = forward_ratio(&pr, &f, r);
    CHECK_MSG(no_scale > 1 && r[1] > 1, "the forward check passes a missing scale (%.3g) or the softmax over the "
              "queries (probs %.3g)", no_scale, r[1]);
    weights w = make_weights(&s, 91);
    grads g_scale = run_backward(be, &pr, &w, 1.0f, 1), g_drop = run_backward(be, &pr, &w, s.scale, 0);
    fd_worst ws = fd_check(be, &pr, &w, &g_scale), wd = fd_check(be, &pr, &w, &g_drop);
    CHECK_MSG(ws.d > 1 && ws.f > 1 && wd.d > 1 && wd.f > 1, "the fd checks pass a backward without the scale (%.3g, "
              "%.3g) or without the dscores it was given (%.3g, %.3g)", ws.d, ws.f, wd.d, wd.f);
    printf("negative controls (ratios to the tolerances): forward without the scale %.3g, softmax over the queries "
           "%.3g; backward without the scale %.3g / %.3g, without dscores in %.3g / %.3g\n", no_scale, axis, ws.d,
           ws.f, wd.d, wd.f);
    fwd_free(&f), free(g_scale.dqkv), free(g_scale.dscores), free(g_drop.dqkv), free(g_drop.dscores);
    free(w.R), free(w.G), free_problem(&pr);
}

int main(void) {
    fc_backend *be = cpu_backend(0), *be1 = cpu_backend(1);
    /* make_shape(B, P, H, E, pad, has_prev, p) */
    check_forward(be, be1, make_shape(1, 1, 1, 1, 0, 0, 0.0f), 1);
    check_forward(be, be1, make_shape(2, 7, 3, 1, 2, 1, 0.0f), 2);
    check_forward(be, be1, make_shape(2, 13, 2, 8, 3, 0, 0.0f), 3);
    check_forward(be, be1, make_shape(3, 5, 2, 8, 1, 1, 0.3f), 4);
    check_forward(be, be1, make_shape(1, 11, 1, 40, 5, 1, 0.1f), 5);   /* E past a chunk of 32 */
    check_forward(be, be1, make_shape(2, 42, 4, 16, 0, 1, 0.0f), 6);   /* PatchTST-like, the parallel path */
    check_backward(be, be1, make_shape(1, 1, 1, 1, 0, 1, 0.0f), 11);
    check_backward(be, be1, make_shape(2, 5, 3, 4, 2, 1, 0.0f), 12);
    check_backward(be, be1, make_shape(1, 7, 2, 1, 1, 0, 0.3f), 13);
    check_backward(be, be1, make_shape(2, 3, 2, 8, 3, 1, 0.5f), 14);
    check_backward(be, be1, make_shape(1, 6, 1, 35, 1, 1, 0.2f), 15);   /* E past a chunk of 32 */
    check_threads(be, be1, make_shape(3, 29, 4, 16, 2, 1, 0.2f), 21);
    check_dropout_args(be);
    check_checks_fail(be);
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    return CHECK_DONE();
}
