/* PatchTST's RevIN and patching (revin_patch_forward / _backward,
 * revin_denorm_forward / _backward, kernels/revin_patch.h) on the CPU
 * backend, which runs the arithmetic the CUDA backend runs
 * (test_backend_ops compares the two devices):
 *
 *   1. the forward against a double-precision RevIN written here from
 *      neuralforecast's (common/_modules.py: mean or last value, stdev =
 *      sqrt(biased var + eps), then x * w + b) followed by
 *      ReplicationPad1d((0, stride)) and unfold(patch_len, stride), with
 *      P as PatchTST counts it; revin on / off, subtract_last, affine,
 *      strided windows, patch_len > L (one patch), strides that do not
 *      divide L; one thread gives the same bits; the GPU's per-point body
 *      gives the CPU's row;
 *   2. closed forms: without RevIN the patches are x's own bits; with
 *      subtract_last every padded position is (x[L-1] - x[L-1]) / stdev
 *      = 0 exactly (b with affine); a constant window has stdev sqrt(eps);
 *   3. the denormalisation against its double formula, and its round trip;
 *   4. the backward: d affine against central finite differences of
 *      J = sum(R * y), y = denorm(head(patches)) for a fixed linear head,
 *      through the double pipeline (tight) and the backend's float one
 *      (loose), each side alone and both together; dz against its closed
 *      form; accumulation; dz == dy in place; one thread, over many pieces;
 *   5. the checks can fail: deliberately broken formulas (the unbiased
 *      variance, a forgotten eps, a zero pad, eps instead of eps^2 in the
 *      denormalisation) are rejected by the same checks. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "kernels/revin_patch.h"
#include "test_arrays.h"

#define EPS 1e-5f   /* RevIN's eps in neuralforecast */

/* ---- the shape ---- */

typedef struct {
    size_t B, L, ldx, patch_len, stride, P;
    int revin, subtract_last, affine;
} rv_shape;

/* PatchTST's patch count: int((L - patch_len) / stride + 1), plus one for
 * the pad (python's int truncates toward zero). */
static size_t patch_count(size_t L, size_t patch_len, size_t stride) {
    return (size_t)(int)(((double)L - (double)patch_len) / (double)stride + 1.0) + 1;
}

static rv_shape shape_of(size_t B, size_t L, size_t pad, size_t patch_len, size_t stride, int revin, int last,
                         int affine) {
    rv_shape s = {B, L, L + pad, patch_len, stride, patch_count(L, patch_len, stride), revin, last, affine};
    return s;
}

static size_t per_window(const rv_shape *s) { return s->P * s->patch_len; }

static const char *describe(const rv_shape *s) {
    static char buf[120];
    snprintf(buf, sizeof buf, "B%zu L%zu ldx%zu patch %zu stride %zu P%zu%s%s%s", s->B, s->L, s->ldx, s->patch_len,
             s->stride, s->P, s->revin ? " revin" : " no-revin", s->subtract_last ? " last" : "",
             s->affine ? " affine" : "");
    return buf;
}

/* ---- RevIN, pad and unfold in double, from neuralforecast ---- */

typedef enum { RV_RIGHT = 0, RV_UNBIASED, RV_NO_EPS, RV_ZERO_PAD } rv_formula;

/* One window x (L): stats (center, stdev) and its patches (P, patch_len).
 * affine (w, b) or NULL; `f` breaks one piece on purpose. */
static void revin_double(const rv_shape *s, const double *x, const double *affine, double *st, double *patches,
                         rv_formula f) {
    size_t L = s->L;
    double m = 0, v = 0, center = 0, stdev = 1;
    for (size_t t = 0; t < L; t++) m += x[t];
    m /= (double)L;
    for (size_t t = 0; t < L; t++) v += (x[t] - m) * (x[t] - m);
    v /= f == RV_UNBIASED && L > 1 ? (double)(L - 1) : (double)L;
    if (s->revin) {
        center = s->subtract_last ? x[L - 1] : m;
        stdev = sqrt(v + (f == RV_NO_EPS ? 0.0 : (double)EPS));
    }
    st[0] = center, st[1] = stdev;
    for (size_t j = 0; j < s->P; j++)
        for (size_t i = 0; i < s->patch_len; i++) {
            size_t t = j * s->stride + i;   /* in the padded window, L + stride long */
            double z = (x[t < L ? t : L - 1] - center) / stdev;
            if (affine) z = z * affine[0] + affine[1];
            if (t >= L && f == RV_ZERO_PAD) z = 0;
            patches[j * s->patch_len + i] = z;
        }
}

/* ---- inputs and outputs of one forward ---- */

typedef struct {
    rv_shape s;
    float *x, *affine;        /* x (B, ldx); affine (2) or NULL */
    float *patches, *stats;   /* outputs */
} rv_run;

static void run_new(rv_run *r, rv_shape s, uint64_t seed) {
    r->s = s;
    r->x = randu(s.B * s.ldx, seed, -3, 5);
    for (size_t b = 0; b < s.B; b++)   /* windows at different levels and spreads */
        for (size_t t = 0; t < s.L; t++) r->x[b * s.ldx + t] = r->x[b * s.ldx + t] * (float)(b % 4 + 1) + 10.0f * b;
    r->affine = s.affine ? randu(2, seed + 1, 0.5f, 1.5f) : NULL;
    r->patches = filled(s.B * per_window(&s), NAN);
    r->stats = filled(2 * s.B, NAN);
}

static void run_free(rv_run *r) { free(r->x), free(r->affine), free(r->patches), free(r->stats); }

static void forward(fc_backend *be, rv_run *r) {
    const rv_shape *s = &r->s;
    be->revin_patch_forward(be, r->patches, r->stats, r->x, s->ldx, s->B, s->L, s->patch_len, s->stride, s->P,
                            s->revin, s->subtract_last, r->affine, EPS);
}

/* ---- 1. forward against the double RevIN ---- */

typedef struct {
    double patch, center, stdev;
} rv_err;

static double worse(double w, double e) { return e <= w ? w : e; }   /* NaN is the worst */

/* Errors of patches (B, P, patch_len) and stats (B, 2) against the double
 * RevIN of r's inputs: a patch value over |w| (|center| + |x - center|) /
 * stdev + |b| (w = 1, b = 0 without affine: the float center carries
 * 2^-24 |center| into x - center), the center over the mean of |x|, the
 * stdev relative. */
static rv_err forward_errors(const rv_run *r, const float *patches, const float *stats, rv_formula f) {
    const rv_shape *s = &r->s;
    size_t per = per_window(s);
    double *x = malloc(s->L * sizeof *x), *want = malloc(per * sizeof *want), st[2], aff[2];
    if (r->affine) aff[0] = r->affine[0], aff[1] = r->affine[1];
    double w = r->affine ? fabs(aff[0]) : 1, b = r->affine ? fabs(aff[1]) : 0;
    rv_err e = {0, 0, 0};
    for (size_t k = 0; k < s->B; k++) {
        double sx = 0;
        for (size_t t = 0; t < s->L; t++) x[t] = r->x[k * s->ldx + t], sx += fabs(x[t]);
        revin_double(s, x, r->affine ? aff : NULL, st, want, f);
        e.center = worse(e.center, fabs(stats[2 * k] - st[0]) / (sx / (double)s->L));
        e.stdev = worse(e.stdev, fabs(stats[2 * k + 1] - st[1]) / st[1]);
        for (size_t j = 0; j < s->P; j++)
            for (size_t i = 0; i < s->patch_len; i++) {
                size_t t = j * s->stride + i, q = j * s->patch_len + i;
                double xv = x[t < s->L ? t : s->L - 1], sc = w * (fabs(st[0]) + fabs(xv - st[0])) / st[1] + b;
                e.patch = worse(e.patch, fabs(patches[k * per + q] - want[q]) / sc);
            }
    }
    free(x), free(want);
    return e;
}

/* One rounding to float of the center and stdev, and of a patch value
 * computed in double from them (which carries their roundings): 2^-24 of
 * the scale each, 3 2^-24 for the patches. */
#define TOL_PATCH (3 * 0x1p-24)
#define TOL_STAT (2 * 0x1p-24)

static int forward_ok(rv_err e) { return e.patch <= TOL_PATCH && e.center <= TOL_STAT && e.stdev <= TOL_STAT; }

/* The GPU's body: element k of a window's patches on its own. */
static int gpu_points_agree(const rv_run *r) {
    const rv_shape *s = &r->s;
    size_t per = per_window(s), bad = 0;
    for (size_t b = 0; b < s->B; b++)
        for (size_t k = 0; k < per; k++) {
            float v = fc_revin_patch_point(r->x + b * s->ldx, s->L, s->patch_len, s->stride, k, r->stats + 2 * b,
                                           r->affine);
            bad += memcmp(&v, &r->patches[b * per + k], sizeof v) != 0;
        }
    return bad == 0;
}

static void check_forward(fc_backend *be, fc_backend *be1, rv_shape s, uint64_t seed) {
    rv_run r, r1;
    run_new(&r, s, seed);
    run_new(&r1, s, seed);
    forward(be, &r);
    forward(be1, &r1);
    rv_err e = forward_errors(&r, r.patches, r.stats, RV_RIGHT);
    CHECK_MSG(forward_ok(e), "forward %s: errors patches %.3g center %.3g stdev %.3g", describe(&s), e.patch, e.center,
              e.stdev);
    size_t n = s.B * per_window(&s);
    CHECK_MSG(same_bits(r.patches, r1.patches, n) && same_bits(r.stats, r1.stats, 2 * s.B),
              "forward %s: all cores and one thread differ", describe(&s));
    CHECK_MSG(gpu_points_agree(&r), "forward %s: the GPU's per-point body differs from the CPU's row", describe(&s));
    printf("forward  %-58s max err / scale: patches %.2e center %.2e stdev %.2e\n", describe(&s), e.patch, e.center,
           e.stdev);
    run_free(&r), run_free(&r1);
}

/* ---- 2. closed forms ---- */

static void check_closed_forms(fc_backend *be) {
    /* no RevIN: x's bits through the pad and unfold, stats (0, 1) */
    rv_run r;
    run_new(&r, shape_of(3, 10, 2, 4, 3, 0, 0, 0), 61);
    forward(be, &r);
    size_t bad = 0, per = per_window(&r.s);
    for (size_t b = 0; b < 3; b++) {
        bad += r.stats[2 * b] != 0.0f || r.stats[2 * b + 1] != 1.0f;
        for (size_t j = 0; j < r.s.P; j++)
            for (size_t i = 0; i < 4; i++) {
                size_t t = j * 3 + i;
                bad += r.patches[b * per + j * 4 + i] != r.x[b * r.s.ldx + (t < 10 ? t : 9)];
            }
    }
    CHECK_MSG(bad == 0, "no RevIN: %zu values not x's through the replication pad", bad);
    run_free(&r);

    /* subtract_last with affine: the padded positions are b exactly */
    run_new(&r, shape_of(4, 9, 1, 3, 2, 1, 1, 1), 62);
    forward(be, &r);
    bad = 0, per = per_window(&r.s);
    for (size_t b = 0; b < 4; b++)
        for (size_t q = 0; q < per; q++) {
            size_t t = q / 3 * 2 + q % 3;
            if (t >= 8) bad += r.patches[b * per + q] != r.affine[1];   /* x[L - 1] and the pad */
        }
    CHECK_MSG(bad == 0, "subtract_last: %zu values at or past x[L - 1] not the affine bias", bad);
    run_free(&r);

    /* a constant window: stdev sqrt(eps), every value 0 (mean) */
    float x[6] = {2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f}, st[2], p[3 * 4];
    be->revin_patch_forward(be, p, st, x, 6, 1, 6, 4, 2, patch_count(6, 4, 2), 1, 0, NULL, EPS);
    bad = st[0] != 2.5f || st[1] != (float)sqrt((double)EPS);
    for (size_t i = 0; i < 12; i++) bad += p[i] != 0.0f;
    CHECK_MSG(bad == 0, "a constant window: stats (%g, %g), or values not 0", (double)st[0], (double)st[1]);
}

/* ---- 3. denormalisation ---- */

/* y (B, n) = ((z - b) / (w + eps^2)) * stdev + center in double from the
 * float stats (the call's inputs); scale the size of the two terms. a_eps
 * is what is added to w (eps^2; eps: a broken variant). */
static double denorm_error(const float *z, const float *y, const float *stats, const float *affine, size_t B,
                           size_t n, double a_eps) {
    double worst = 0;
    for (size_t b = 0; b < B; b++)
        for (size_t k = 0; k < n; k++) {
            double v = z[b * n + k];
            if (affine) v = (v - affine[1]) / (affine[0] + a_eps);
            double want = v * stats[2 * b + 1] + stats[2 * b], sc = fabs(v * stats[2 * b + 1]) + fabs(stats[2 * b]);
            worst = worse(worst, fabs(y[b * n + k] - want) / sc);
        }
    return worst;
}

/* One rounding of a value computed in double. */
#define TOL_DENORM (2 * 0x1p-24)

static void check_denorm(fc_backend *be, fc_backend *be1, rv_shape s, size_t n, uint64_t seed) {
    rv_run r;
    run_new(&r, s, seed);
    forward(be, &r);
    float *z = randu(s.B * n, seed + 5, -3, 3), *y = copy_of(z, s.B * n), *y1 = copy_of(z, s.B * n);
    be->revin_denorm_forward(be, y, r.stats, s.B, n, r.affine, EPS);
    be1->revin_denorm_forward(be1, y1, r.stats, s.B, n, r.affine, EPS);
    double e = denorm_error(z, y, r.stats, r.affine, s.B, n, (double)EPS * EPS);
    CHECK_MSG(e <= TOL_DENORM, "denorm %s n%zu: error %.3g", describe(&s), n, e);
    CHECK_MSG(same_bits(y, y1, s.B * n), "denorm %s n%zu: all cores and one thread differ", describe(&s), n);
    /* round trip: the denormalised patches are x again (within the
     * roundings of both directions, and w / (w + eps^2) ~ 1 - 1e-10) */
    size_t per = per_window(&s);
    float *back = copy_of(r.patches, s.B * per);
    be->revin_denorm_forward(be, back, r.stats, s.B, per, r.affine, EPS);
    double trip = 0;
    for (size_t b = 0; b < s.B; b++)
        for (size_t q = 0; q < per; q++) {
            size_t t = q / s.patch_len * s.stride + q % s.patch_len;
            float xv = r.x[b * s.ldx + (t < s.L ? t : s.L - 1)];
            trip = worse(trip, fabs(back[b * per + q] - xv) / (fabs(r.stats[2 * b]) + fabs(xv - r.stats[2 * b])));
        }
    CHECK_MSG(trip <= 8 * 0x1p-24, "denorm %s: round trip off x by %.3g", describe(&s), trip);
    printf("denorm   %-58s n%-4zu max err / scale %.2e, round trip %.2e\n", describe(&s), n, e, trip);
    free(z), free(y), free(y1), free(back);
    run_free(&r);
}

/* ---- 4. backward ---- */

/* The pipeline y = denorm(head(patches)): a fixed head H (n, P patch_len)
 * per window, J = sum(R * y) over (B, n). */
typedef struct {
    rv_run r;
    size_t n;
    float *H, *R;   /* H (n, per), R (B, n) */
    int input_side, output_side;   /* which sides carry the affine (the other gets (1, 0), constant) */
} fd_problem;

/* J in double from x and (w, b): stats recomputed in double (they do not
 * depend on w, b: neuralforecast detaches them). */
static double J_double(const fd_problem *p, double w, double b) {
    const rv_shape *s = &p->r.s;
    size_t per = per_window(s);
    double *x = malloc(s->L * sizeof *x), *pt = malloc(per * sizeof *pt), st[2], J = 0;
    double in[2] = {p->input_side ? w : 1, p->input_side ? b : 0}, a = (p->output_side ? w : 1) + (double)EPS * EPS;
    for (size_t k = 0; k < s->B; k++) {
        for (size_t t = 0; t < s->L; t++) x[t] = p->r.x[k * s->ldx + t];
        revin_double(s, x, in, st, pt, RV_RIGHT);
        for (size_t o = 0; o < p->n; o++) {
            double h = 0;
            for (size_t q = 0; q < per; q++) h += (double)p->H[o * per + q] * pt[q];
            double y = (h - (p->output_side ? b : 0)) / a * st[1] + st[0];
            J += (double)p->R[k * p->n + o] * y;
        }
    }
    free(x), free(pt);
    return J;
}

/* The affine each side of the backend's pipeline gets. */
static void side_affines(const fd_problem *p, const float *aff, float in[2], float out[2]) {
    in[0] = p->input_side ? aff[0] : 1, in[1] = p->input_side ? aff[1] : 0;
    out[0] = p->output_side ? aff[0] : 1, out[1] = p->output_side ? aff[1] : 0;
}

/* The backend's float pipeline: patches, the head in double rounded to
 * float, the denorm; J in double. With the gradient asked (daffine not
 * NULL): the backward with dy = R, both sides into daffine, dz out. */
static double pipeline(fc_backend *be, const fd_problem *p, const float *aff, float *daffine, float *dz_out) {
    const rv_shape *s = &p->r.s;
    size_t per = per_window(s), B = s->B, n = p->n;
    float in[2], out[2];
    side_affines(p, aff, in, out);
    float *pt = malloc(B * per * sizeof *pt), *st = malloc(2 * B * sizeof *st), *y = malloc(B * n * sizeof *y);
    be->revin_patch_forward(be, pt, st, p->r.x, s->ldx, B, s->L, s->patch_len, s->stride, s->P, 1,
                            s->subtract_last, in, EPS);
    for (size_t k = 0; k < B; k++)
        for (size_t o = 0; o < n; o++) {
            double h = 0;
            for (size_t q = 0; q < per; q++) h += (double)p->H[o * per + q] * pt[k * per + q];
            y[k * n + o] = (float)h;
        }
    be->revin_denorm_forward(be, y, st, B, n, out, EPS);
    double J = 0;
    for (size_t i = 0; i < B * n; i++) J += (double)p->R[i] * y[i];
    if (daffine) {
        float *dz = malloc(B * n * sizeof *dz), *dp = malloc(B * per * sizeof *dp), dout[2] = {0, 0}, din[2] = {0, 0};
        be->revin_denorm_backward(be, dz, p->R, y, st, B, n, out, dout, EPS);
        for (size_t k = 0; k < B; k++)   /* through the head: dp = dz H */
            for (size_t q = 0; q < per; q++) {
                double g = 0;
                for (size_t o = 0; o < n; o++) g += (double)dz[k * n + o] * p->H[o * per + q];
                dp[k * per + q] = (float)g;
            }
        be->revin_patch_backward(be, din, dp, st, p->r.x, s->ldx, B, s->L, s->patch_len, s->stride, s->P, in);
        daffine[0] += (p->input_side ? din[0] : 0) + (p->output_side ? dout[0] : 0);
        daffine[1] += (p->input_side ? din[1] : 0) + (p->output_side ? dout[1] : 0);
        if (dz_out) memcpy(dz_out, dz, B * n * sizeof *dz);
        free(dz), free(dp);
    }
    free(pt), free(st), free(y);
    return J;
}

/* d J / d w and d J / d b against central differences: in double (step
 * 1e-6, tight) and through the float pipeline (step 2^-8, loose). */
static void check_backward(fc_backend *be, rv_shape s, size_t n, int input_side, int output_side, uint64_t seed) {
    fd_problem p = {.n = n, .input_side = input_side, .output_side = output_side};
    s.revin = 1, s.affine = 1;
    run_new(&p.r, s, seed);
    size_t per = per_window(&s);
    p.H = randu(n * per, seed + 2, -1, 1);
    for (size_t i = 0; i < n * per; i++) p.H[i] /= (float)per;   /* a head of average-sized outputs */
    p.R = randu(s.B * n, seed + 3, -1, 1);
    float g[2] = {0, 0}, *aff = p.r.affine;
    pipeline(be, &p, aff, g, NULL);
    double worst_d = 0, worst_f = 0;
    for (int c = 0; c < 2; c++) {
        double w = aff[0], b = aff[1], h = 1e-6;
        double jp = J_double(&p, w + (c == 0) * h, b + (c == 1) * h);
        double jm = J_double(&p, w - (c == 0) * h, b - (c == 1) * h);
        double fd = (jp - jm) / (2 * h), e = fabs(g[c] - fd) / (1e-3 + fabs(fd));
        worst_d = worse(worst_d, e);
        /* the float sums' rounding (a few 2^-24 of sum |terms|, ~1e-6 of
         * the result at these sizes) dominates truncation (~1e-12) */
        CHECK_MSG(e <= 1e-5, "backward %s n%zu sides %d%d: d affine[%d] %.9g, fd %.9g", describe(&s), n, input_side,
                  output_side, c, (double)g[c], fd);
        float a2[2] = {aff[0], aff[1]}, hf = 0x1p-8f;
        a2[c] += hf;
        jp = pipeline(be, &p, a2, NULL, NULL);
        a2[c] -= 2 * hf;
        jm = pipeline(be, &p, a2, NULL, NULL);
        fd = (jp - jm) / (2 * (double)hf);
        e = fabs(g[c] - fd) / (1 + fabs(fd));
        worst_f = worse(worst_f, e);
        /* J through float patches and outputs: ~sqrt(B n) roundings of
         * 2^-24 |y| (|y| < 30 here) over 2 hf = 2^-7, under 1e-3 (7e-5
         * seen) */
        CHECK_MSG(e <= 2e-3, "backward %s n%zu: d affine[%d] %.9g, float fd %.9g", describe(&s), n, c, (double)g[c],
                  fd);
    }
    printf("backward %-58s n%-3zu sides %d%d: vs double fd max rel %.2e, vs float fd %.2e\n", describe(&s), n,
           input_side, output_side, worst_d, worst_f);
    free(p.H), free(p.R);
    run_free(&p.r);
}

/* dz = dy stdev / (w + eps^2) bit for bit (one rounding of a double), in
 * place (dz == dy) and with one thread the same; d affine accumulates
 * (a second call adds the same again) and one thread gives its bits, over
 * many pieces of the fixed-order sums. */
static void check_backward_bits(fc_backend *be, fc_backend *be1, rv_shape s, size_t n, uint64_t seed) {
    rv_run r;
    run_new(&r, s, seed);
    forward(be, &r);
    size_t B = s.B, per = per_window(&s);
    float *dy = randu(B * n, seed + 2, -1, 1), *y = randu(B * n, seed + 3, -5, 5), *dz = filled(B * n, NAN);
    float *dz1 = filled(B * n, NAN), *dzi = copy_of(dy, B * n), d[2] = {0.5f, -0.25f}, d1[2] = {0.5f, -0.25f};
    float di[2] = {0.5f, -0.25f};
    be->revin_denorm_backward(be, dz, dy, y, r.stats, B, n, r.affine, d, EPS);
    be1->revin_denorm_backward(be1, dz1, dy, y, r.stats, B, n, r.affine, d1, EPS);
    be->revin_denorm_backward(be, dzi, dzi, y, r.stats, B, n, r.affine, di, EPS);
    size_t bad = 0;
    double a = r.affine ? (double)r.affine[0] + (double)EPS * EPS : 1;
    for (size_t i = 0; i < B * n; i++) bad += dz[i] != (float)(dy[i] * (double)r.stats[2 * (i / n) + 1] / a);
    CHECK_MSG(bad == 0, "denorm backward %s: %zu of dz off dy stdev / a", describe(&s), bad);
    CHECK_MSG(same_bits(dz, dz1, B * n) && same_bits(dz, dzi, B * n) && same_bits(d, d1, 2) && same_bits(d, di, 2),
              "denorm backward %s: one thread or in place differ", describe(&s));
    float *dp = randu(B * per, seed + 4, -1, 1), p0[2] = {0, 0}, p1[2] = {0, 0};
    be->revin_patch_backward(be, p0, dp, r.stats, r.x, s.ldx, B, s.L, s.patch_len, s.stride, s.P, r.affine);
    be1->revin_patch_backward(be1, p1, dp, r.stats, r.x, s.ldx, B, s.L, s.patch_len, s.stride, s.P, r.affine);
    float p2[2] = {p0[0], p0[1]};
    be->revin_patch_backward(be, p2, dp, r.stats, r.x, s.ldx, B, s.L, s.patch_len, s.stride, s.P, r.affine);
    CHECK_MSG(same_bits(p0, p1, 2) && p2[0] == 2 * p0[0] && p2[1] == 2 * p0[1],
              "patch backward %s: one thread differs, or a second call did not double", describe(&s));
    if (!r.affine) CHECK_MSG(p0[0] == 0 && p0[1] == 0, "patch backward %s without affine wrote d affine", describe(&s));
    free(dy), free(y), free(dz), free(dz1), free(dzi), free(dp);
    run_free(&r);
}

/* ---- 5. broken formulas fail ---- */

static void check_broken(fc_backend *be) {
    const rv_formula broken[] = {RV_UNBIASED, RV_NO_EPS, RV_ZERO_PAD};
    const char *names[] = {"unbiased variance", "no eps", "zero pad"};
    for (size_t k = 0; k < 3; k++) {
        rv_run r;
        run_new(&r, shape_of(3, 20, 1, 6, 4, 1, 0, 1), 91);
        for (size_t t = 0; t < 20; t++) r.x[t] = 1.0f + 1e-3f * r.x[t];   /* a window of small variance (eps shows) */
        forward(be, &r);
        rv_err right = forward_errors(&r, r.patches, r.stats, RV_RIGHT);
        rv_err e = forward_errors(&r, r.patches, r.stats, broken[k]);   /* the backend against a broken reference */
        CHECK_MSG(forward_ok(right) && !forward_ok(e), "%s is not told from the right formula (%.3g %.3g)", names[k],
                  e.patch, e.stdev);
        printf("broken: %-20s rejected (patches %.2e stdev %.2e)\n", names[k], e.patch, e.stdev);
        run_free(&r);
    }
    rv_run r;
    run_new(&r, shape_of(2, 8, 0, 4, 4, 1, 0, 1), 92);
    forward(be, &r);
    float *z = randu(2 * 5, 93, -3, 3), *y = copy_of(z, 10);
    be->revin_denorm_forward(be, y, r.stats, 2, 5, r.affine, EPS);
    double e = denorm_error(z, y, r.stats, r.affine, 2, 5, (double)EPS);
    CHECK_MSG(e > TOL_DENORM, "denorm with w + eps is not told from w + eps^2 (%.3g)", e);
    printf("broken: %-20s rejected (y %.2e)\n", "w + eps in denorm", e);
    free(z), free(y);
    run_free(&r);
}

int main(void) {
    fc_backend *be = cpu_backend(0), *be1 = cpu_backend(1);
    for (int revin = 0; revin <= 1; revin++)
        for (int last = 0; last <= revin; last++)
            for (int affine = 0; affine <= revin; affine++) {
                uint64_t seed = 100 + 10 * (uint64_t)(revin * 4 + last * 2 + affine);
                check_forward(be, be1, shape_of(1, 1, 0, 1, 1, revin, last, affine), seed);
                check_forward(be, be1, shape_of(3, 16, 2, 4, 2, revin, last, affine), seed + 1);
                /* 3 does not divide 10; patch_len > L: P = 1 */
                check_forward(be, be1, shape_of(4, 10, 3, 4, 3, revin, last, affine), seed + 2);
                check_forward(be, be1, shape_of(2, 5, 1, 7, 3, revin, last, affine), seed + 3);
                check_forward(be, be1, shape_of(5, 7, 0, 8, 1, revin, last, affine), seed + 4);    /* P = 1 */
                check_forward(be, be1, shape_of(3, 104, 5, 16, 8, revin, last, affine), seed + 5);
            }
    check_forward(be, be1, shape_of(300, 64, 1, 16, 8, 1, 0, 1), 200);   /* 43200 values: the parallel path */
    check_closed_forms(be);
    check_denorm(be, be1, shape_of(1, 1, 0, 1, 1, 1, 0, 0), 1, 300);
    check_denorm(be, be1, shape_of(3, 16, 2, 4, 2, 1, 0, 1), 7, 301);
    check_denorm(be, be1, shape_of(4, 10, 0, 4, 3, 1, 1, 1), 12, 302);
    check_denorm(be, be1, shape_of(5, 9, 1, 3, 3, 0, 0, 0), 5, 303);
    check_denorm(be, be1, shape_of(400, 64, 0, 16, 8, 1, 1, 0), 96, 304);   /* the parallel path */
    for (int in = 0; in <= 1; in++)
        for (int out = 0; out <= 1; out++) {
            if (!in && !out) continue;
            check_backward(be, shape_of(2, 12, 1, 4, 2, 1, 0, 1), 3, in, out, 400 + 2 * (uint64_t)in + (uint64_t)out);
            check_backward(be, shape_of(3, 10, 2, 4, 3, 1, 1, 1), 5, in, out, 410 + 2 * (uint64_t)in + (uint64_t)out);
        }
    check_backward(be, shape_of(2, 5, 0, 7, 3, 1, 0, 1), 4, 1, 1, 420);   /* P = 1 */
    check_backward_bits(be, be1, shape_of(3, 10, 1, 4, 3, 1, 0, 1), 5, 500);
    check_backward_bits(be, be1, shape_of(3, 10, 1, 4, 3, 1, 1, 0), 5, 501);
    check_backward_bits(be, be1, shape_of(700, 64, 2, 16, 8, 1, 0, 1), 96, 502);     /* 22 and 17 pieces */
    /* 256 pieces of the patches, longer than the minimum */
    check_backward_bits(be, be1, shape_of(1100, 512, 0, 16, 8, 1, 1, 1), 720, 503);
    check_broken(be);
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    return CHECK_DONE();
}
