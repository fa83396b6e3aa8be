/* The backend's exact GELU (gelu_forward / gelu_backward, kernels/gelu.h)
 * on the CPU backend, which runs the bodies the CUDA backend runs
 * (test_backend_ops compares the two devices):
 *
 *   1. closed values: gelu(0) = 0, gelu(-0) = -0, gelu(1) = Phi(1) and
 *      gelu(-1) = -Phi(-1) to the float bit, large |x| (gelu(x) = x far
 *      right, a zero of x's sign far left, x Phi(x) still a normal float at
 *      x = -10), +inf, -inf and NaN as torch's; gelu'(0) = 1/2 exactly;
 *   2. the forward against x Phi(x) in long double (erfcl, so the left tail
 *      keeps its precision) over a sweep of [-15, 15] and random points:
 *      each result within one rounding to float (2^-24 relative, the
 *      smallest normal's 2^-24 for subnormal results);
 *   3. the backward against central finite differences of J = sum(R y):
 *      through the long double GELU (tight) and through the backend's own
 *      float forward (loose, but it ties the two entries together); and
 *      against dy (Phi + x phi) in long double;
 *   4. y == x and dx == dy in place give the bits of separate buffers, and
 *      one thread the bits of all cores;
 *   5. the checks can fail: torch's tanh approximation of GELU (a wrong
 *      kernel off by up to ~1e-3 of the value) fails check 2, and a
 *      backward without the x phi(x) term fails check 3. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "test_arrays.h"

/* ---- GELU in long double, from torch.nn.GELU's documentation ---- */

/* Phi(x) = (1 + erf(x / sqrt 2)) / 2, written as erfc(-x / sqrt 2) / 2 so
 * that the left tail keeps its relative precision. */
static long double Phi(long double x) { return 0.5L * erfcl(-x / sqrtl(2.0L)); }
static long double phi(long double x) { return expl(-0.5L * x * x) / sqrtl(2.0L * 3.14159265358979323846264338327950288L); }
static long double gelu_ld(long double x) { return x * Phi(x); }
static long double gelu_grad_ld(long double x) { return Phi(x) + x * phi(x); }

/* The error scale of a float result: its size, at least the smallest
 * normal float (below it the float grid is fixed: one rounding is at most
 * 2^-150, 2^-24 of 2^-126). */
static double float_scale(long double want) {
    double a = fabs((double)want);
    return a > 0x1p-126 ? a : 0x1p-126;
}

/* One rounding to float is at most 2^-24 of the scale; the double Phi and
 * phi in the body add ~2^-50 before it. */
#define TOL_ROUND (0x1p-24 * (1 + 0x1p-16))

/* ---- 1. closed values ---- */

static float fwd1(fc_backend *be, float x) {
    float y;
    be->gelu_forward(be, &y, &x, 1);
    return y;
}

static float bwd1(fc_backend *be, float x) {
    float dy = 1.0f, dx;
    be->gelu_backward(be, &dx, &dy, &x, 1);
    return dx;
}

static void check_closed_values(fc_backend *be) {
    CHECK(fwd1(be, 0.0f) == 0.0f && !signbit(fwd1(be, 0.0f)));
    CHECK(fwd1(be, -0.0f) == 0.0f && signbit(fwd1(be, -0.0f)));
    CHECK_MSG(fwd1(be, 1.0f) == (float)0.8413447460685429, "gelu(1) = %.9g", (double)fwd1(be, 1.0f));
    CHECK_MSG(fwd1(be, -1.0f) == (float)-0.15865525393145707, "gelu(-1) = %.9g", (double)fwd1(be, -1.0f));
    CHECK_MSG(fwd1(be, 10.0f) == 10.0f && fwd1(be, 1e30f) == 1e30f && fwd1(be, 3e38f) == 3e38f,
              "gelu(x) = x far right: %.9g", (double)fwd1(be, 10.0f));
    /* Phi(-10) = 7.6198530241605e-24: the result is a normal float, which
     * torch's float 1 + erf (0 there) misses */
    float y10 = fwd1(be, -10.0f);
    CHECK_MSG(fabs(y10 - (-10 * 7.6198530241605e-24)) <= 0x1p-24 * 7.62e-23, "gelu(-10) = %.9g", (double)y10);
    CHECK_MSG(fwd1(be, -40.0f) == 0.0f && signbit(fwd1(be, -40.0f)), "gelu(-40) = %g, not -0", (double)fwd1(be, -40.0f));
    CHECK_MSG(fwd1(be, -1e30f) == 0.0f && signbit(fwd1(be, -1e30f)), "gelu(-1e30) not -0");
    CHECK_MSG(fwd1(be, INFINITY) == INFINITY, "gelu(inf) = %g", (double)fwd1(be, INFINITY));
    CHECK_MSG(isnan(fwd1(be, -INFINITY)) && isnan(fwd1(be, NAN)), "gelu(-inf), gelu(NaN) not NaN (torch's -inf * 0)");
    CHECK_MSG(bwd1(be, 0.0f) == 0.5f, "gelu'(0) = %.9g", (double)bwd1(be, 0.0f));
    CHECK_MSG(bwd1(be, 10.0f) == 1.0f && bwd1(be, -40.0f) == 0.0f, "gelu'(10) = %.9g, gelu'(-40) = %.9g",
              (double)bwd1(be, 10.0f), (double)bwd1(be, -40.0f));
    CHECK_MSG(isnan(bwd1(be, NAN)), "gelu'(NaN) not NaN");
}

/* ---- 2. forward against long double ---- */

/* x (n): a sweep of [-15, 15] in steps of 30 / n, with random points of
 * (-8, 8) in every other slot. */
static float *gelu_inputs(size_t n, uint64_t seed) {
    float *x = randu(n, seed, -8, 8);
    for (size_t i = 0; i < n; i += 2) x[i] = -15.0f + 30.0f * (float)i / (float)n;
    return x;
}

/* Worst |y - x Phi(x)| / scale over n points, in units of TOL_ROUND;
 * *exact counts the results that are the float nearest x Phi(x). */
static double forward_ratio(const float *x, const float *y, size_t n, size_t *exact) {
    double worst = 0;
    *exact = 0;
    for (size_t i = 0; i < n; i++) {
        long double want = gelu_ld(x[i]);
        double e = fabs((double)((long double)y[i] - want)) / float_scale(want) / TOL_ROUND;
        if (!(e <= worst)) worst = e;
        *exact += y[i] == (float)want;
    }
    return worst;
}

static void check_forward(fc_backend *be, size_t n, uint64_t seed) {
    float *x = gelu_inputs(n, seed), *y = filled(n, NAN);
    be->gelu_forward(be, y, x, n);
    size_t exact;
    double r = forward_ratio(x, y, n, &exact);
    CHECK_MSG(r <= 1, "forward n%zu: error up to %.3g of one rounding", n, r);
    printf("forward  n%-6zu: max err %.2f roundings (2^-24 of the value), %zu of %zu the nearest float\n", n, r,
           exact, n);
    free(x), free(y);
}

/* ---- 3. backward ---- */

/* |got - want| <= atol + rtol |want|, as a ratio (> 1: off). */
static double fd_ratio(double got, double want, double atol, double rtol) {
    double r = fabs(got - want) / (atol + rtol * fabs(want));
    return r == r ? r : INFINITY;
}

/* dJ/dx_i of J = sum R y by central differences: in long double (step
 * 1e-6: truncation 1e-12 / 6 |g'''|, rounding ~1e-19 / 1e-6; the float
 * backward's one rounding is 2^-24 of dy (Phi + |x phi|) <= 1.25 |dy|
 * 2^-24 < 1e-7) and through the backend's float forward (step 2^-7, exact
 * in float: truncation 2^-14 / 6 |g'''| <= 8e-6 |R|, g''' = x phi (x^2 - 4)
 * peaking at 0.78; rounding two half ulps of y over 2^-6, <= 6.1e-5 |R|
 * for |y| < 16, where J' ~ R). Worst ratios. */
static void fd_ratios(fc_backend *be, const float *x, const float *R, const float *dx, size_t n, double *worst_d,
                      double *worst_f) {
    const long double h = 1e-6L;
    const float hf = 0x1p-7f;
    *worst_d = *worst_f = 0;
    for (size_t i = 0; i < n; i++) {
        long double fd = R[i] * (gelu_ld(x[i] + h) - gelu_ld(x[i] - h)) / (2 * h);
        double r = fd_ratio(dx[i], (double)fd, 1e-7, 4e-7);
        *worst_d = r > *worst_d ? r : *worst_d;
        float xp = x[i] + hf, xm = x[i] - hf;
        double fdf = (double)R[i] * ((double)fwd1(be, xp) - (double)fwd1(be, xm)) / (2.0 * hf);
        r = fd_ratio(dx[i], fdf, 2e-5, 1e-4);
        *worst_f = r > *worst_f ? r : *worst_f;
    }
}

/* dx against dy (Phi + x phi) in long double: one rounding of the scale
 * |dy| (Phi + |x phi|) (the sum cancels near x = -0.75). */
static double backward_formula_ratio(const float *x, const float *dy, const float *dx, size_t n) {
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        long double xl = x[i], want = dy[i] * gelu_grad_ld(xl);
        double s = float_scale(fabsl(dy[i] * Phi(xl)) + fabsl(dy[i] * xl * phi(xl)));
        double e = fabs((double)((long double)dx[i] - want)) / s / TOL_ROUND;
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

static void check_backward(fc_backend *be, size_t n, uint64_t seed) {
    float *x = gelu_inputs(n, seed), *R = randu(n, seed + 1, -1, 1), *dx = filled(n, NAN);
    be->gelu_backward(be, dx, R, x, n);
    double wd, wf, wform = backward_formula_ratio(x, R, dx, n);
    fd_ratios(be, x, R, dx, n, &wd, &wf);
    CHECK_MSG(wform <= 1, "backward n%zu: off dy (Phi + x phi) by %.3g roundings", n, wform);
    CHECK_MSG(wd <= 1 && wf <= 1, "backward n%zu: off finite differences (ratio to tolerance: %.3g, float %.3g)", n,
              wd, wf);
    printf("backward n%-6zu: %.2f roundings of the formula; ratio to the fd tolerances %.2f (long double), %.2f "
           "(float forward)\n", n, wform, wd, wf);
    free(x), free(R), free(dx);
}

/* ---- 4. in place, threads ---- */

static void check_in_place_threads(fc_backend *be, fc_backend *be1, size_t n, uint64_t seed) {
    float *x = gelu_inputs(n, seed), *dy = randu(n, seed + 1, -1, 1);
    float *y = filled(n, NAN), *y1 = filled(n, NAN), *yi = copy_of(x, n);
    float *dx = filled(n, NAN), *dx1 = filled(n, NAN), *dxi = copy_of(dy, n);
    be->gelu_forward(be, y, x, n);
    be1->gelu_forward(be1, y1, x, n);
    be->gelu_forward(be, yi, yi, n);
    be->gelu_backward(be, dx, dy, x, n);
    be1->gelu_backward(be1, dx1, dy, x, n);
    be->gelu_backward(be, dxi, dxi, x, n);
    CHECK_MSG(same_bits(y, y1, n) && same_bits(dx, dx1, n), "n%zu: all cores and one thread differ", n);
    CHECK_MSG(same_bits(y, yi, n) && same_bits(dx, dxi, n), "n%zu: in place differs from separate buffers", n);
    free(x), free(dy), free(y), free(y1), free(yi), free(dx), free(dx1), free(dxi);
}

/* ---- 5. the checks can fail ---- */

/* torch's approximate='tanh' GELU, a plausible wrong kernel. */
static float gelu_tanh(float x) {
    double xd = x;
    return (float)(0.5 * xd * (1 + tanh(0.7978845608028654 * (xd + 0.044715 * xd * xd * xd))));
}

static void check_checks_fail(fc_backend *be) {
    enum { N = 4096 };
    float *x = gelu_inputs(N, 91), *y = malloc(N * sizeof *y), *R = randu(N, 92, -1, 1), *dx = malloc(N * sizeof *dx);
    for (size_t i = 0; i < N; i++) y[i] = gelu_tanh(x[i]);
    size_t exact;
    double r = forward_ratio(x, y, N, &exact);
    CHECK_MSG(r > 1, "the forward check passes the tanh approximation (%.3g)", r);
    /* a backward that forgot x phi(x): dx = dy Phi(x) */
    for (size_t i = 0; i < N; i++) dx[i] = (float)(R[i] * Phi(x[i]));
    double wd, wf;
    fd_ratios(be, x, R, dx, N, &wd, &wf);
    CHECK_MSG(wd > 1 && wf > 1, "the fd checks pass a backward without x phi(x) (%.3g, %.3g)", wd, wf);
    printf("negative controls: tanh approximation %.3g roundings off; backward without x phi: fd ratios %.3g, %.3g\n",
           r, wd, wf);
    free(x), free(y), free(R), free(dx);
}

int main(void) {
    fc_backend *be = cpu_backend(0), *be1 = cpu_backend(1);
    check_closed_values(be);
    check_forward(be, 1, 1);
    check_forward(be, 7, 2);
    check_forward(be, 100003, 3);   /* the parallel path */
    check_backward(be, 1, 11);
    check_backward(be, 33, 12);
    check_backward(be, 20001, 13);
    check_in_place_threads(be, be1, 7, 21);
    check_in_place_threads(be, be1, 50001, 22);
    check_checks_fail(be);
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    return CHECK_DONE();
}
