/* The backend's layer norm (layer_norm_forward / layer_norm_backward,
 * kernels/layer_norm.h) on the CPU backend, which runs the bodies the CUDA
 * backend runs (test_backend_ops compares the two devices):
 *
 *   1. the forward against a double-precision layer norm written here from
 *      torch.nn.LayerNorm's formula (biased variance), for random inputs
 *      with row strides wider than the rows (the gaps must survive), y == x
 *      in place (the bits of separate buffers), with all cores and with one
 *      thread (the same bits);
 *   2. the backward against central finite differences of
 *      J = sum(R * y) through the forward: d J / d x (dx, with dy = R),
 *      d J / d gamma and d J / d beta (dgamma, dbeta). Twice: through the
 *      double layer norm (tight) and through the backend's own float
 *      forward (loose, but it ties the two entries together). dgamma and
 *      dbeta accumulate: a second call adds exactly as much again, while dx
 *      is overwritten with the same bits; dx == dy in place gives the bits
 *      of separate buffers; one thread gives the bits of all cores;
 *   3. closed forms: a row of equal values gives y = beta exactly and
 *      dx = rstd (g - mean(g)) with rstd = 1 / sqrt(eps); gamma = 1,
 *      beta = 0 gives rows of mean 0 and biased variance var / (var + eps),
 *      which an unbiased variance or a forgotten eps misses. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "test_arrays.h"

/* ---- layer norm in double, from torch.nn.LayerNorm's documentation ---- */

/* One row: y (D) = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta, the
 * variance biased (divided by D). */
static void ln_double(const double *x, const double *gamma, const double *beta, double *y, size_t D, double eps,
                      double *mean_out, double *rstd_out) {
    double m = 0, v = 0;
    for (size_t j = 0; j < D; j++) m += x[j];
    m /= (double)D;
    for (size_t j = 0; j < D; j++) v += (x[j] - m) * (x[j] - m);
    v /= (double)D;
    double rs = 1.0 / sqrt(v + eps);
    for (size_t j = 0; j < D; j++) y[j] = (x[j] - m) * rs * gamma[j] + beta[j];
    if (mean_out) *mean_out = m, *rstd_out = rs;
}

/* ---- helpers ---- */

/* ---- 1. forward against the double layer norm ---- */

static void check_forward(fc_backend *be, fc_backend *be1, size_t B, size_t D, size_t pad, float eps, uint64_t seed) {
    size_t ldx = D + pad, ldy = D + 2 * pad;
    float *x = randu(B * ldx, seed, -2, 3), *gamma = randu(D, seed + 1, -2, 2), *beta = randu(D, seed + 2, -1, 1);
    float *y = filled(B * ldy, NAN), *y1 = filled(B * ldy, NAN);
    float *mean = filled(B, NAN), *rstd = filled(B, NAN), *mean1 = filled(B, NAN), *rstd1 = filled(B, NAN);
    be->layer_norm_forward(be, y, ldy, x, ldx, gamma, beta, mean, rstd, B, D, eps);
    be1->layer_norm_forward(be1, y1, ldy, x, ldx, gamma, beta, mean1, rstd1, B, D, eps);

    double *xd = malloc(D * sizeof *xd), *gd = malloc(D * sizeof *gd), *bd = malloc(D * sizeof *bd);
    double *yd = malloc(D * sizeof *yd), wy = 0, wm = 0, wr = 0;
    for (size_t j = 0; j < D; j++) gd[j] = gamma[j], bd[j] = beta[j];
    size_t gaps_bad = 0;
    for (size_t r = 0; r < B; r++) {
        double m, rs, sx = 0;
        for (size_t j = 0; j < D; j++) xd[j] = x[r * ldx + j], sx += fabs(xd[j]);
        ln_double(xd, gd, bd, yd, D, eps, &m, &rs);
        /* errors against the natural scale of each output: the mean of |x|
         * for the mean, rstd, and for y the size of its terms including
         * the mean's rounding, |gamma| rstd (|m| + |x - m|) + |beta| */
        double e = fabs(mean[r] - m) / (sx / (double)D);
        wm = e > wm ? e : wm;
        e = fabs(rstd[r] - rs) / rs;
        wr = e > wr ? e : wr;
        for (size_t j = 0; j < D; j++) {
            double s = fabs(gd[j]) * rs * (fabs(m) + fabs(xd[j] - m)) + fabs(bd[j]);
            e = fabs(y[r * ldy + j] - yd[j]) / s;
            if (!(e <= wy)) wy = e;   /* NaN is the worst */
        }
        for (size_t k = D; k < ldy; k++) gaps_bad += !isnan(y[r * ldy + k]);
    }
    /* one rounding to float of the mean, of rstd and of y: 2 2^-24 of the
     * scale at most (docs in tests/test_backend_ops.c, TOL_LN) */
    CHECK_MSG(wy <= 3 * 0x1p-24 && wm <= 2 * 0x1p-24 && wr <= 2 * 0x1p-24,
              "forward B%zu D%zu: errors y %.3g mean %.3g rstd %.3g", B, D, wy, wm, wr);
    CHECK_MSG(gaps_bad == 0, "forward B%zu D%zu: %zu gap elements written", B, D, gaps_bad);
    CHECK_MSG(same_bits(y, y1, B * ldy) && same_bits(mean, mean1, B) && same_bits(rstd, rstd1, B),
              "forward B%zu D%zu: all cores and one thread differ", B, D);

    /* in place: y == x, the bits of separate buffers, gaps of x kept */
    float *xi = copy_of(x, B * ldx), *mi = filled(B, NAN), *ri = filled(B, NAN);
    be->layer_norm_forward(be, xi, ldx, xi, ldx, gamma, beta, mi, ri, B, D, eps);
    int same = same_bits(mi, mean, B) && same_bits(ri, rstd, B);
    for (size_t r = 0; r < B; r++) {
        same &= same_bits(xi + r * ldx, y + r * ldy, D);
        same &= same_bits(xi + r * ldx + D, x + r * ldx + D, pad);
    }
    CHECK_MSG(same, "forward B%zu D%zu: in place differs from separate buffers", B, D);
    printf("forward  B%-4zu D%-5zu pad%zu eps %g: max err / scale: y %.2e mean %.2e rstd %.2e\n", B, D, pad,
           (double)eps, wy, wm, wr);
    free(x), free(gamma), free(beta), free(y), free(y1), free(mean), free(rstd), free(mean1), free(rstd1);
    free(xd), free(gd), free(bd), free(yd), free(xi), free(mi), free(ri);
}

/* ---- 2. backward against finite differences ---- */

typedef struct {
    size_t B, D, ldx, lddy, lddx;
    float eps;
    float *x, *gamma, *beta;   /* the point: x (B, ldx), gamma, beta (D) */
    float *R;                  /* J's weights on y (B, lddy): dy */
} fd_problem;

/* J = sum(R * y) in double through the double layer norm at (x, gamma, beta) (packed, double). */
static double J_double(const fd_problem *p, const double *x, const double *gamma, const double *beta) {
    size_t D = p->D;
    double J = 0, *y = malloc(D * sizeof *y);
    for (size_t r = 0; r < p->B; r++) {
        ln_double(x + r * D, gamma, beta, y, D, p->eps, NULL, NULL);
        for (size_t j = 0; j < D; j++) J += (double)p->R[r * p->lddy + j] * y[j];
    }
    free(y);
    return J;
}

/* J in double of the backend's float forward at (x, gamma, beta) (float, strided). */
static double J_backend(fc_backend *be, const fd_problem *p, const float *x, const float *gamma, const float *beta) {
    size_t B = p->B, D = p->D;
    float *y = malloc(B * D * sizeof *y), *m = malloc(B * sizeof *m), *rs = malloc(B * sizeof *rs);
    be->layer_norm_forward(be, y, D, x, p->ldx, gamma, beta, m, rs, B, D, p->eps);
    double J = 0;
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < D; j++) J += (double)p->R[r * p->lddy + j] * y[r * D + j];
    free(y), free(m), free(rs);
    return J;
}

/* The backend's forward then backward at the point: dx (B, lddx), dgamma
 * and dbeta (D) accumulated into what they hold. */
static void backward_at(fc_backend *be, const fd_problem *p, float *dx, float *dgamma, float *dbeta) {
    size_t B = p->B, D = p->D;
    float *y = malloc(B * D * sizeof *y), *m = malloc(B * sizeof *m), *rs = malloc(B * sizeof *rs);
    be->layer_norm_forward(be, y, D, p->x, p->ldx, p->gamma, p->beta, m, rs, B, D, p->eps);
    be->layer_norm_backward(be, dx, p->lddx, p->R, p->lddy, p->x, p->ldx, p->gamma, m, rs, dgamma, dbeta, B, D);
    free(y), free(m), free(rs);
}

/* Central differences of J in double (step eps_d, tight) and through the
 * backend's float forward (step eps_f, loose) at one coordinate: *xd and
 * *xf are that coordinate in the double and the float copies. */
typedef struct {
    double worst_d, worst_f;
} fd_worst;

static void fd_check(fc_backend *be, const fd_problem *p, double *xd, double *pd[3], float *xf, float *pf[3],
                     float got, const char *what, size_t index, fd_worst *w) {
    const double eps_d = 1e-5;
    const float eps_f = 0x1p-7f;
    double x0 = *xd;
    *xd = x0 + eps_d;
    double jp = J_double(p, pd[0], pd[1], pd[2]);
    *xd = x0 - eps_d;
    double jm = J_double(p, pd[0], pd[1], pd[2]);
    *xd = x0;
    double fd = (jp - jm) / (2 * eps_d);
    double e = fabs(got - fd) / (1e-3 + fabs(fd));
    w->worst_d = e > w->worst_d ? e : w->worst_d;
    /* the float backward's own error (a few 2^-24 of its terms) dominates:
     * truncation ~1e-10 and rounding ~1e-11 at eps_d 1e-5 */
    CHECK_MSG(fabs(got - fd) <= 2e-6 + 1e-5 * fabs(fd), "backward B%zu D%zu %s %zu: %.9g, fd %.9g", p->B, p->D, what,
              index, got, fd);
    float xf0 = *xf;
    *xf = xf0 + eps_f;
    jp = J_backend(be, p, pf[0], pf[1], pf[2]);
    *xf = xf0 - eps_f;
    jm = J_backend(be, p, pf[0], pf[1], pf[2]);
    *xf = xf0;
    fd = (jp - jm) / (2 * (double)eps_f);
    e = fabs(got - fd);
    w->worst_f = e > w->worst_f ? e : w->worst_f;
    /* eps_f 2^-7 (exact in float): truncation ~eps^2 / 6 |J'''| and the
     * float forward's rounding, ~D 2^-24 |R y| / (2 eps_f), a few 1e-5 at
     * these shapes (the largest seen: 3.2e-5) */
    CHECK_MSG(e <= 2e-4 + 2e-3 * fabs(fd), "backward B%zu D%zu %s %zu: %.9g, float fd %.9g", p->B, p->D, what, index,
              got, fd);
}

static void check_backward(fc_backend *be, fc_backend *be1, size_t B, size_t D, size_t pad, float eps,
                           uint64_t seed) {
    fd_problem p = {.B = B, .D = D, .ldx = D + pad, .lddy = D + 2 * pad, .lddx = D + 3 * pad, .eps = eps};
    p.x = randu(B * p.ldx, seed, -2, 3);
    p.gamma = randu(D, seed + 1, -2, 2);
    p.beta = randu(D, seed + 2, -1, 1);
    p.R = randu(B * p.lddy, seed + 3, -1, 1);
    float *dx = filled(B * p.lddx, NAN), *dgamma = filled(D, 0.0f), *dbeta = filled(D, 0.0f);
    backward_at(be, &p, dx, dgamma, dbeta);

    size_t gaps_bad = 0;
    for (size_t r = 0; r < B; r++)
        for (size_t k = D; k < p.lddx; k++) gaps_bad += !isnan(dx[r * p.lddx + k]);
    CHECK_MSG(gaps_bad == 0, "backward B%zu D%zu: %zu gap elements written", B, D, gaps_bad);

    /* packed double copies, strided float copies of the point */
    double *xd = malloc(B * D * sizeof *xd), *gd = malloc(D * sizeof *gd), *bd = malloc(D * sizeof *bd);
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < D; j++) xd[r * D + j] = p.x[r * p.ldx + j];
    for (size_t j = 0; j < D; j++) gd[j] = p.gamma[j], bd[j] = p.beta[j];
    float *xf = copy_of(p.x, B * p.ldx), *gf = copy_of(p.gamma, D), *bf = copy_of(p.beta, D);
    double *pd[3] = {xd, gd, bd};
    float *pf[3] = {xf, gf, bf};
    fd_worst w = {0, 0};
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < D; j++)
            fd_check(be, &p, &xd[r * D + j], pd, &xf[r * p.ldx + j], pf, dx[r * p.lddx + j], "dx", r * D + j, &w);
    for (size_t j = 0; j < D; j++) {
        fd_check(be, &p, &gd[j], pd, &gf[j], pf, dgamma[j], "dgamma", j, &w);
        fd_check(be, &p, &bd[j], pd, &bf[j], pf, dbeta[j], "dbeta", j, &w);
    }

    /* accumulation: a second call adds the same again (x + x is exact);
     * dx is overwritten with the same bits */
    float *dx2 = filled(B * p.lddx, NAN), *dg2 = copy_of(dgamma, D), *db2 = copy_of(dbeta, D);
    backward_at(be, &p, dx2, dg2, db2);
    size_t not_doubled = 0;
    for (size_t j = 0; j < D; j++) not_doubled += dg2[j] != 2 * dgamma[j] || db2[j] != 2 * dbeta[j];
    CHECK_MSG(not_doubled == 0, "backward B%zu D%zu: a second call did not double %zu of dgamma, dbeta", B, D,
              not_doubled);
    CHECK_MSG(same_bits(dx, dx2, B * p.lddx), "backward B%zu D%zu: dx not overwritten with the same bits", B, D);

    /* one thread: the same bits */
    float *dx1 = filled(B * p.lddx, NAN), *dg1 = filled(D, 0.0f), *db1 = filled(D, 0.0f);
    backward_at(be1, &p, dx1, dg1, db1);
    CHECK_MSG(same_bits(dx, dx1, B * p.lddx) && same_bits(dgamma, dg1, D) && same_bits(dbeta, db1, D),
              "backward B%zu D%zu: all cores and one thread differ", B, D);
    printf("backward B%-4zu D%-5zu pad%zu eps %g: vs double fd max rel %.2e, vs float-forward fd max abs %.2e\n", B,
           D, pad, (double)eps, w.worst_d, w.worst_f);
    free(p.x), free(p.gamma), free(p.beta), free(p.R), free(dx), free(dgamma), free(dbeta);
    free(xd), free(gd), free(bd), free(xf), free(gf), free(bf), free(dx2), free(dg2), free(db2);
    free(dx1), free(dg1), free(db1);
}

/* dx == dy, lddx == lddy: the bits of separate buffers, and the same
 * dgamma, dbeta (computed before dx overwrites dy). */
static void check_in_place(fc_backend *be, fc_backend *be1, size_t B, size_t D, size_t pad, uint64_t seed) {
    size_t ld = D + pad;
    float *x = randu(B * ld, seed, -2, 3), *gamma = randu(D, seed + 1, -2, 2), *beta = randu(D, seed + 2, -1, 1);
    float *dy = randu(B * ld, seed + 3, -1, 1), *y = malloc(B * ld * sizeof *y);
    float *m = malloc(B * sizeof *m), *rs = malloc(B * sizeof *rs);
    be->layer_norm_forward(be, y, ld, x, ld, gamma, beta, m, rs, B, D, 1e-5f);
    float *dx = filled(B * ld, NAN), *dg = filled(D, 0.0f), *db = filled(D, 0.0f);
    be->layer_norm_backward(be, dx, ld, dy, ld, x, ld, gamma, m, rs, dg, db, B, D);
    float *g = copy_of(dy, B * ld), *dg2 = filled(D, 0.0f), *db2 = filled(D, 0.0f);
    be->layer_norm_backward(be, g, ld, g, ld, x, ld, gamma, m, rs, dg2, db2, B, D);
    int same = same_bits(dg, dg2, D) && same_bits(db, db2, D);
    for (size_t r = 0; r < B; r++) {
        same &= same_bits(dx + r * ld, g + r * ld, D);
        same &= same_bits(g + r * ld + D, dy + r * ld + D, pad);   /* gaps kept */
    }
    CHECK_MSG(same, "backward B%zu D%zu in place differs from separate buffers", B, D);
    /* one thread: the same bits (for large blocks, the parallel paths of both passes) */
    float *dx1 = filled(B * ld, NAN), *dg1 = filled(D, 0.0f), *db1 = filled(D, 0.0f);
    be1->layer_norm_backward(be1, dx1, ld, dy, ld, x, ld, gamma, m, rs, dg1, db1, B, D);
    CHECK_MSG(same_bits(dx, dx1, B * ld) && same_bits(dg, dg1, D) && same_bits(db, db1, D),
              "backward B%zu D%zu: all cores and one thread differ", B, D);
    free(dx1), free(dg1), free(db1);
    free(x), free(gamma), free(beta), free(dy), free(y), free(m), free(rs), free(dx), free(dg), free(db);
    free(g), free(dg2), free(db2);
}

/* ---- 3. closed forms ---- */

static void check_closed_forms(fc_backend *be) {
    enum { B = 4, D = 8 };
    const float eps = 1e-5f;
    float x[B * D], y[B * D], m[B], rs[B], dx[B * D], dg[D] = {0}, db[D] = {0};
    float *gamma = randu(D, 51, -2, 2), *beta = randu(D, 52, -1, 1), *dy = randu(B * D, 53, -1, 1);
    const float levels[B] = {0.0f, 0.75f, -3.5f, 1000.25f};
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < D; j++) x[r * D + j] = levels[r];
    be->layer_norm_forward(be, y, D, x, D, gamma, beta, m, rs, B, D, eps);
    size_t bad = 0;
    float rs_want = (float)(1.0 / sqrt((double)eps));
    for (size_t r = 0; r < B; r++) {
        bad += m[r] != levels[r] || rs[r] != rs_want;
        for (size_t j = 0; j < D; j++) bad += y[r * D + j] != beta[j];   /* xhat is exactly 0 */
    }
    CHECK_MSG(bad == 0, "rows of equal values: %zu of mean, rstd, y not the level, 1/sqrt(eps), beta", bad);

    /* xhat = 0: dx = rstd (g - mean(g)), g = dy gamma; dbeta = sum of dy, dgamma = 0 */
    be->layer_norm_backward(be, dx, D, dy, D, x, D, gamma, m, rs, dg, db, B, D);
    bad = 0;
    for (size_t r = 0; r < B; r++) {
        double mg = 0;
        for (size_t j = 0; j < D; j++) mg += (double)dy[r * D + j] * gamma[j] / D;
        for (size_t j = 0; j < D; j++) {
            double want = rs[r] * ((double)dy[r * D + j] * gamma[j] - mg);
            double scale = rs[r] * (fabs((double)dy[r * D + j] * gamma[j]) + fabs(mg));
            bad += fabs(dx[r * D + j] - want) > 4 * 0x1p-24 * scale;
        }
    }
    for (size_t j = 0; j < D; j++) {
        double sb = 0;
        for (size_t r = 0; r < B; r++) sb += dy[r * D + j];
        bad += dg[j] != 0.0f || db[j] != (float)sb;
    }
    CHECK_MSG(bad == 0, "rows of equal values: %zu backward values off the closed form", bad);

    /* gamma = 1, beta = 0: each row of y has mean 0 and biased variance
     * var / (var + eps); a large eps makes the factor visible, and an
     * unbiased variance would be off by D / (D - 1) */
    enum { B2 = 5, D2 = 12 };
    const float eps2 = 0.25f;
    float *x2 = randu(B2 * D2, 61, -1, 2), ones[D2], zeros[D2], y2[B2 * D2], m2[B2], rs2[B2];
    for (size_t j = 0; j < D2; j++) ones[j] = 1.0f, zeros[j] = 0.0f;
    be->layer_norm_forward(be, y2, D2, x2, D2, ones, zeros, m2, rs2, B2, D2, eps2);
    double worst_mean = 0, worst_var = 0;
    for (size_t r = 0; r < B2; r++) {
        double mx = 0, vx = 0, my = 0, vy = 0;
        for (size_t j = 0; j < D2; j++) mx += x2[r * D2 + j], my += y2[r * D2 + j];
        mx /= D2, my /= D2;
        for (size_t j = 0; j < D2; j++) {
            vx += (x2[r * D2 + j] - mx) * (x2[r * D2 + j] - mx);
            vy += (y2[r * D2 + j] - my) * (y2[r * D2 + j] - my);
        }
        vx /= D2, vy /= D2;
        double want = vx / (vx + eps2);
        worst_mean = fabs(my) > worst_mean ? fabs(my) : worst_mean;
        worst_var = fabs(vy / want - 1) > worst_var ? fabs(vy / want - 1) : worst_var;
    }
    CHECK_MSG(worst_mean <= 1e-6 && worst_var <= 1e-6,
              "gamma 1, beta 0: |mean(y)| up to %.3g, variance off var / (var + eps) by up to %.3g", worst_mean,
              worst_var);
    printf("closed forms: equal values, and mean 0 / variance var / (var + eps) (max %.2e, %.2e)\n", worst_mean,
           worst_var);
    free(gamma), free(beta), free(dy), free(x2);
}

int main(void) {
    fc_backend *be = cpu_backend(0), *be1 = cpu_backend(1);
    check_forward(be, be1, 1, 1, 0, 1e-5f, 11);
    check_forward(be, be1, 3, 7, 2, 1e-5f, 12);
    check_forward(be, be1, 4, 33, 3, 1e-3f, 13);
    check_forward(be, be1, 20, 2000, 1, 1e-5f, 14);
    check_forward(be, be1, 600, 100, 5, 1e-5f, 15);   /* 60000 points: the parallel path */
    check_backward(be, be1, 1, 1, 0, 1e-5f, 21);
    check_backward(be, be1, 3, 5, 2, 1e-5f, 22);
    check_backward(be, be1, 2, 37, 3, 1e-3f, 23);
    check_backward(be, be1, 4, 3, 1, 0.5f, 24);
    check_in_place(be, be1, 3, 7, 2, 31);
    check_in_place(be, be1, 600, 100, 1, 32);   /* 60000 points: the parallel paths */
    check_closed_forms(be);
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    return CHECK_DONE();
}
