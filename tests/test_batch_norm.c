/* The backend's batch norm (batch_norm_forward / batch_norm_backward,
 * kernels/batch_norm.h) on the CPU backend, which runs the arithmetic the
 * CUDA backend runs (test_backend_ops compares the two devices):
 *
 *   1. the training forward against a double-precision batch norm written
 *      here from torch.nn.BatchNorm1d's documentation (per column, mean
 *      and biased variance over the rows; running statistics with the
 *      unbiased variance and momentum), closed forms of the running
 *      statistics after one step from (0, 1), the batch counter; y == x in
 *      place (the bits of separate buffers), one thread (the same bits);
 *   2. the eval forward against the running-statistics formula; mean,
 *      rstd, the running statistics and the counter left alone;
 *   3. the backward against central finite differences of J = sum(R * y)
 *      through the training forward (so through the batch's mean and
 *      variance): d J / d x (dx, with dy = R), d J / d gamma, d J / d beta,
 *      through the double batch norm (tight) and the backend's own float
 *      forward (loose); accumulation, dx == dy in place, one thread;
 *   4. the GPU's path without a GPU: the per-lane bodies the CUDA kernels
 *      run (a thread per lane, the tree in shared memory), composed here
 *      as a block would, give the CPU backend's bits;
 *   5. the checks can fail: outputs of deliberately broken formulas (the
 *      unbiased variance in the normalisation, a forgotten eps, the biased
 *      variance in running_var, a backward without its xhat term) are
 *      rejected by the same checks. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "kernels/batch_norm.h"
#include "test_arrays.h"

/* ---- batch norm in double, from torch.nn.BatchNorm1d's documentation ---- */

typedef enum { BN_RIGHT = 0, BN_UNBIASED, BN_NO_EPS, BN_BIASED_RUNNING } bn_formula;

/* Column c of x (N, C): mean and biased variance (divided by N). */
static void column_stats(const double *x, size_t N, size_t C, size_t c, double *mean, double *var) {
    double m = 0, v = 0;
    for (size_t r = 0; r < N; r++) m += x[r * C + c];
    m /= (double)N;
    for (size_t r = 0; r < N; r++) v += (x[r * C + c] - m) * (x[r * C + c] - m);
    *mean = m;
    *var = v / (double)N;
}

/* Training: y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta per column,
 * running_mean = (1 - momentum) running_mean + momentum E[x], running_var =
 * (1 - momentum) running_var + momentum Var_unbiased[x] (rm, rv updated
 * in place; may be NULL). `f` breaks one piece on purpose. */
static void bn_double(const double *x, size_t N, size_t C, const double *gamma, const double *beta, double eps,
                      double momentum, double *y, double *mean, double *rstd, double *rm, double *rv, bn_formula f) {
    for (size_t c = 0; c < C; c++) {
        double m, v;
        column_stats(x, N, C, c, &m, &v);
        double vu = v * (double)N / (double)(N - 1);
        double rs = 1.0 / sqrt((f == BN_UNBIASED ? vu : v) + (f == BN_NO_EPS ? 0.0 : eps));
        for (size_t r = 0; r < N; r++) y[r * C + c] = (x[r * C + c] - m) * rs * gamma[c] + beta[c];
        if (mean) mean[c] = m, rstd[c] = rs;
        if (rm) {
            rm[c] = (1 - momentum) * rm[c] + momentum * m;
            rv[c] = (1 - momentum) * rv[c] + momentum * (f == BN_BIASED_RUNNING ? v : vu);
        }
    }
}

static double *to_double(const float *x, size_t n) {
    double *d = malloc((n ? n : 1) * sizeof *d);
    for (size_t i = 0; i < n; i++) d[i] = x[i];
    return d;
}

static float *to_float(const double *x, size_t n) {
    float *f = malloc((n ? n : 1) * sizeof *f);
    for (size_t i = 0; i < n; i++) f[i] = (float)x[i];
    return f;
}

static double worse(double w, double e) { return e <= w ? w : e; }   /* NaN is the worst */

/* ---- 1. training forward ---- */

/* A training problem: inputs, and the outputs of one forward. */
typedef struct {
    size_t N, C;
    float eps, momentum;
    float *x, *gamma, *beta, *rm0, *rv0;   /* inputs; rm0, rv0 the running stats before */
    float *y, *mean, *rstd, *rm, *rv;      /* outputs */
    float batches;
} bn_run;

static void run_new(bn_run *p, size_t N, size_t C, float eps, float momentum, uint64_t seed) {
    memset(p, 0, sizeof *p);
    p->N = N, p->C = C, p->eps = eps, p->momentum = momentum;
    p->x = randu(N * C, seed, -2, 3);
    p->gamma = randu(C, seed + 1, -2, 2);
    p->beta = randu(C, seed + 2, -1, 1);
    p->rm0 = randu(C, seed + 3, -1, 1);
    p->rv0 = randu(C, seed + 4, 0.5f, 2);
    p->y = filled(N * C, NAN), p->mean = filled(C, NAN), p->rstd = filled(C, NAN);
    p->rm = copy_of(p->rm0, C), p->rv = copy_of(p->rv0, C);
    p->batches = 7.0f;
}

static void run_free(bn_run *p) {
    free(p->x), free(p->gamma), free(p->beta), free(p->rm0), free(p->rv0);
    free(p->y), free(p->mean), free(p->rstd), free(p->rm), free(p->rv);
}

static void run_forward(fc_backend *be, bn_run *p) {
    be->batch_norm_forward(be, p->y, p->x, p->N, p->C, p->gamma, p->beta, p->rm, p->rv, &p->batches, p->mean, p->rstd,
                           1, p->momentum, p->eps);
}

/* Worst errors of a training forward's outputs against the double batch
 * norm, each over its natural scale: y over |gamma| rstd (|m| + |x - m|) +
 * |beta| (x - mean carries the float mean's rounding), the mean over the
 * mean of |x|, rstd relative, the running statistics over the size of
 * their two terms. */
typedef struct {
    double y, mean, rstd, run;
} bn_err;

static bn_err forward_errors(const bn_run *p, const float *y, const float *mean, const float *rstd, const float *rm,
                             const float *rv) {
    size_t N = p->N, C = p->C;
    double *x = to_double(p->x, N * C), *g = to_double(p->gamma, C), *b = to_double(p->beta, C);
    double *rmd = to_double(p->rm0, C), *rvd = to_double(p->rv0, C);
    double *yd = malloc(N * C * sizeof *yd), *md = malloc(C * sizeof *md), *rd = malloc(C * sizeof *rd);
    bn_double(x, N, C, g, b, p->eps, p->momentum, yd, md, rd, rmd, rvd, BN_RIGHT);
    bn_err e = {0, 0, 0, 0};
    double mo = p->momentum;
    for (size_t c = 0; c < C; c++) {
        double sx = 0, v;
        for (size_t r = 0; r < N; r++) sx += fabs(x[r * C + c]);
        e.mean = worse(e.mean, fabs(mean[c] - md[c]) / (sx / (double)N));
        e.rstd = worse(e.rstd, fabs(rstd[c] - rd[c]) / rd[c]);
        column_stats(x, N, C, c, &md[c], &v);
        double sm = (1 - mo) * fabs(p->rm0[c]) + mo * fabs(md[c]), sv = (1 - mo) * p->rv0[c] + mo * v * N / (N - 1);
        e.run = worse(e.run, fabs(rm[c] - rmd[c]) / sm);
        e.run = worse(e.run, fabs(rv[c] - rvd[c]) / sv);
        for (size_t r = 0; r < N; r++) {
            double s = fabs(g[c]) * rd[c] * (fabs(md[c]) + fabs(x[r * C + c] - md[c])) + fabs(b[c]);
            e.y = worse(e.y, fabs(y[r * C + c] - yd[r * C + c]) / s);
        }
    }
    free(x), free(g), free(b), free(rmd), free(rvd), free(yd), free(md), free(rd);
    return e;
}

/* One rounding to float of each output (the mean, rstd, y, each running
 * statistic) from sums accurate far below it: 2^-24 of the scale, a
 * little more for y (the float mean and rstd it is computed from). */
#define TOL_Y (3 * 0x1p-24)
#define TOL_STAT (2 * 0x1p-24)

static int forward_ok(bn_err e) {
    return e.y <= TOL_Y && e.mean <= TOL_STAT && e.rstd <= TOL_STAT && e.run <= TOL_STAT;
}

static void check_train(fc_backend *be, fc_backend *be1, size_t N, size_t C, float eps, uint64_t seed) {
    bn_run p, q;
    run_new(&p, N, C, eps, 0.1f, seed);
    run_forward(be, &p);
    bn_err e = forward_errors(&p, p.y, p.mean, p.rstd, p.rm, p.rv);
    CHECK_MSG(forward_ok(e), "train N%zu C%zu: errors y %.3g mean %.3g rstd %.3g running %.3g", N, C, e.y, e.mean,
              e.rstd, e.run);
    CHECK_MSG(p.batches == 8.0f, "train N%zu C%zu: the batch counter went from 7 to %g", N, C, (double)p.batches);

    /* one thread: the same bits; in place (y == x): the same bits */
    run_new(&q, N, C, eps, 0.1f, seed);
    run_forward(be1, &q);
    int same = same_bits(p.y, q.y, N * C) && same_bits(p.mean, q.mean, C) && same_bits(p.rstd, q.rstd, C) &&
               same_bits(p.rm, q.rm, C) && same_bits(p.rv, q.rv, C);
    CHECK_MSG(same, "train N%zu C%zu: all cores and one thread differ", N, C);
    float *xi = copy_of(p.x, N * C), *rm = copy_of(p.rm0, C), *rv = copy_of(p.rv0, C), *m = filled(C, 0),
          *r = filled(C, 0);
    be->batch_norm_forward(be, xi, xi, N, C, p.gamma, p.beta, rm, rv, NULL, m, r, 1, 0.1f, eps);
    same = same_bits(xi, p.y, N * C) && same_bits(m, p.mean, C) && same_bits(r, p.rstd, C) &&
           same_bits(rm, p.rm, C) && same_bits(rv, p.rv, C);
    CHECK_MSG(same, "train N%zu C%zu: in place (and batches NULL) differs from separate buffers", N, C);
    printf("train    N%-5zu C%-4zu eps %g: max err / scale: y %.2e mean %.2e rstd %.2e running %.2e\n", N, C,
           (double)eps, e.y, e.mean, e.rstd, e.run);
    free(xi), free(rm), free(rv), free(m), free(r);
    run_free(&p), run_free(&q);
}

/* From running stats (0, 1) with momentum 0.1, one step leaves 0.1 mean
 * and 0.9 + 0.1 var N / (N - 1) (torch's default initial state). */
static void check_running_closed_form(fc_backend *be) {
    enum { N = 6, C = 3 };
    const float x[N * C] = {1, -2, 0.5f, 3, 4, 0.5f, -1, 0, 0.5f, 2, 2, 0.5f, 0, 1, 0.5f, 1, 7, 0.5f};
    float y[N * C], rm[C] = {0, 0, 0}, rv[C] = {1, 1, 1}, m[C], r[C], g[C] = {1, 1, 1}, b[C] = {0, 0, 0};
    be->batch_norm_forward(be, y, x, N, C, g, b, rm, rv, NULL, m, r, 1, 0.1f, 1e-5f);
    /* column 0: 1 3 -1 2 0 1, mean 1, squared deviations 0 4 4 1 1 0 = 10;
     * column 1: -2 4 0 2 1 7, mean 2, 16 4 4 0 1 25 = 50; column 2 constant */
    const double mean[C] = {1, 2, 0.5}, sq[C] = {10, 50, 0};
    size_t bad = 0;
    for (size_t c = 0; c < C; c++) {
        bad += rm[c] != (float)(0.1 * mean[c]);
        bad += rv[c] != (float)(0.9 + 0.1 * sq[c] / (N - 1));
        bad += m[c] != (float)mean[c] || r[c] != (float)(1.0 / sqrt(sq[c] / N + 1e-5f));
    }
    CHECK_MSG(bad == 0, "one step from (0, 1): %zu running or saved statistics off the closed form", bad);
}

/* ---- 2. eval ---- */

static void check_eval(fc_backend *be, fc_backend *be1, size_t N, size_t C, float eps, uint64_t seed) {
    bn_run p;
    run_new(&p, N, C, eps, 0.1f, seed);
    be->batch_norm_forward(be, p.y, p.x, N, C, p.gamma, p.beta, p.rm, p.rv, &p.batches, p.mean, p.rstd, 0, 0.1f, eps);
    double worst = 0;
    for (size_t r = 0; r < N; r++)
        for (size_t c = 0; c < C; c++) {
            double d = (double)p.x[r * C + c] - p.rm0[c], rs = 1.0 / sqrt((double)p.rv0[c] + eps);
            double want = d * rs * p.gamma[c] + p.beta[c], s = fabs(d * rs * p.gamma[c]) + fabs(p.beta[c]);
            worst = worse(worst, fabs(p.y[r * C + c] - want) / s);
        }
    /* one rounding to float of a value computed in double: 2^-24 */
    CHECK_MSG(worst <= 2 * 0x1p-24, "eval N%zu C%zu: error %.3g", N, C, worst);
    size_t touched = 0;
    for (size_t c = 0; c < C; c++)
        touched += !isnan(p.mean[c]) + !isnan(p.rstd[c]) + (p.rm[c] != p.rm0[c]) + (p.rv[c] != p.rv0[c]);
    CHECK_MSG(touched == 0 && p.batches == 7.0f, "eval N%zu C%zu: %zu statistics or the counter written", N, C,
              touched);
    float *y1 = filled(N * C, NAN), *xi = copy_of(p.x, N * C);
    be1->batch_norm_forward(be1, y1, p.x, N, C, p.gamma, p.beta, p.rm, p.rv, NULL, p.mean, p.rstd, 0, 0.1f, eps);
    be->batch_norm_forward(be, xi, xi, N, C, p.gamma, p.beta, p.rm, p.rv, NULL, p.mean, p.rstd, 0, 0.1f, eps);
    CHECK_MSG(same_bits(p.y, y1, N * C) && same_bits(p.y, xi, N * C), "eval N%zu C%zu: one thread or in place differ",
              N, C);
    printf("eval     N%-5zu C%-4zu eps %g: max err / scale %.2e\n", N, C, (double)eps, worst);
    free(y1), free(xi);
    run_free(&p);
}

/* ---- 3. backward against finite differences ---- */

typedef struct {
    size_t N, C;
    float eps;
    float *x, *gamma, *beta, *R;   /* the point, and J's weights on y (dy) */
} fd_problem;

/* J = sum(R * y) through the double training forward. */
static double J_double(const fd_problem *p, const double *x, const double *gamma, const double *beta) {
    size_t n = p->N * p->C;
    double *y = malloc(n * sizeof *y), J = 0;
    bn_double(x, p->N, p->C, gamma, beta, p->eps, 0.1, y, NULL, NULL, NULL, NULL, BN_RIGHT);
    for (size_t i = 0; i < n; i++) J += (double)p->R[i] * y[i];
    free(y);
    return J;
}

/* J through the backend's float training forward. */
static double J_backend(fc_backend *be, const fd_problem *p, const float *x, const float *gamma, const float *beta) {
    size_t N = p->N, C = p->C;
    float *y = malloc(N * C * sizeof *y), *m = malloc(C * sizeof *m), *r = malloc(C * sizeof *r);
    float *rm = filled(C, 0), *rv = filled(C, 1);
    be->batch_norm_forward(be, y, x, N, C, gamma, beta, rm, rv, NULL, m, r, 1, 0.1f, p->eps);
    double J = 0;
    for (size_t i = 0; i < N * C; i++) J += (double)p->R[i] * y[i];
    free(y), free(m), free(r), free(rm), free(rv);
    return J;
}

/* The backend's forward, then backward with dy = R: dx overwritten,
 * dgamma and dbeta accumulated. */
static void backward_at(fc_backend *be, const fd_problem *p, float *dx, float *dgamma, float *dbeta) {
    size_t N = p->N, C = p->C;
    float *y = malloc(N * C * sizeof *y), *m = malloc(C * sizeof *m), *r = malloc(C * sizeof *r);
    float *rm = filled(C, 0), *rv = filled(C, 1);
    be->batch_norm_forward(be, y, p->x, N, C, p->gamma, p->beta, rm, rv, NULL, m, r, 1, 0.1f, p->eps);
    be->batch_norm_backward(be, dx, p->R, p->x, N, C, p->gamma, m, r, dgamma, dbeta);
    free(y), free(m), free(r), free(rm), free(rv);
}

typedef struct {
    double worst_d, worst_f;
    size_t bad_d, bad_f;
} fd_worst;

/* The float backward's own error (a few 2^-24 of its terms) dominates:
 * truncation ~1e-10 and rounding ~1e-11 at step 1e-5. */
static int fd_double_ok(double got, double fd) { return fabs(got - fd) <= 2e-6 + 1e-5 * fabs(fd); }

/* Central differences at one coordinate: in double (*xd, step 1e-5) and
 * through the backend's float forward (*xf, step 2^-7, exact in float). */
static void fd_check(fc_backend *be, const fd_problem *p, double *xd, double *pd[3], float *xf, float *pf[3],
                     double got, fd_worst *w) {
    double x0 = *xd, h = 1e-5;
    *xd = x0 + h;
    double jp = J_double(p, pd[0], pd[1], pd[2]);
    *xd = x0 - h;
    double jm = J_double(p, pd[0], pd[1], pd[2]);
    *xd = x0;
    double fd = (jp - jm) / (2 * h);
    w->worst_d = worse(w->worst_d, fabs(got - fd) / (1e-3 + fabs(fd)));
    w->bad_d += !fd_double_ok(got, fd);
    if (!be) return;
    float xf0 = *xf, hf = 0x1p-7f;
    *xf = xf0 + hf;
    jp = J_backend(be, p, pf[0], pf[1], pf[2]);
    *xf = xf0 - hf;
    jm = J_backend(be, p, pf[0], pf[1], pf[2]);
    *xf = xf0;
    fd = (jp - jm) / (2 * (double)hf);
    w->worst_f = worse(w->worst_f, fabs(got - fd));
    /* truncation ~hf^2 / 6 |J'''|, and the float forward's rounding over
     * 2 hf = 2^-6: a moved x re-rounds every y of its column, so J carries
     * ~sqrt(N C) roundings of 2^-24 |y| (|y| < 5 here), 2^-24 5 2^6 =
     * 1.9e-5 per sqrt(N C): 2e-5 sqrt(N C) (2.0e-4 seen at N C = 600) */
    w->bad_f += !(fabs(got - fd) <= 2e-4 + 2e-5 * sqrt((double)(p->N * p->C)) + 2e-3 * fabs(fd));
}

/* Every coordinate of x, gamma, beta against got (dx, dgamma, dbeta);
 * be NULL: the double differences only. */
static fd_worst fd_all(fc_backend *be, const fd_problem *p, const double *dx, const double *dgamma,
                       const double *dbeta) {
    size_t N = p->N, C = p->C;
    double *xd = to_double(p->x, N * C), *gd = to_double(p->gamma, C), *bd = to_double(p->beta, C);
    float *xf = copy_of(p->x, N * C), *gf = copy_of(p->gamma, C), *bf = copy_of(p->beta, C);
    double *pd[3] = {xd, gd, bd};
    float *pf[3] = {xf, gf, bf};
    fd_worst w = {0, 0, 0, 0};
    for (size_t i = 0; i < N * C; i++) fd_check(be, p, &xd[i], pd, &xf[i], pf, dx[i], &w);
    for (size_t c = 0; c < C; c++) {
        fd_check(be, p, &gd[c], pd, &gf[c], pf, dgamma[c], &w);
        fd_check(be, p, &bd[c], pd, &bf[c], pf, dbeta[c], &w);
    }
    free(xd), free(gd), free(bd), free(xf), free(gf), free(bf);
    return w;
}

static void fd_problem_new(fd_problem *p, size_t N, size_t C, float eps, uint64_t seed) {
    p->N = N, p->C = C, p->eps = eps;
    p->x = randu(N * C, seed, -2, 3);
    p->gamma = randu(C, seed + 1, -2, 2);
    p->beta = randu(C, seed + 2, -1, 1);
    p->R = randu(N * C, seed + 3, -1, 1);
}

static void fd_problem_free(fd_problem *p) { free(p->x), free(p->gamma), free(p->beta), free(p->R); }

static void check_backward(fc_backend *be, fc_backend *be1, size_t N, size_t C, float eps, uint64_t seed) {
    fd_problem p;
    fd_problem_new(&p, N, C, eps, seed);
    float *dx = filled(N * C, NAN), *dg = filled(C, 0), *db = filled(C, 0);
    backward_at(be, &p, dx, dg, db);
    double *dxd = to_double(dx, N * C), *dgd = to_double(dg, C), *dbd = to_double(db, C);
    fd_worst w = fd_all(be, &p, dxd, dgd, dbd);
    CHECK_MSG(w.bad_d == 0 && w.bad_f == 0, "backward N%zu C%zu: %zu off the double fd, %zu off the float fd", N, C,
              w.bad_d, w.bad_f);

    /* accumulation (x + x is exact), dx overwritten with the same bits */
    float *dx2 = filled(N * C, NAN), *dg2 = copy_of(dg, C), *db2 = copy_of(db, C);
    backward_at(be, &p, dx2, dg2, db2);
    size_t not_doubled = 0;
    for (size_t c = 0; c < C; c++) not_doubled += dg2[c] != 2 * dg[c] || db2[c] != 2 * db[c];
    CHECK_MSG(not_doubled == 0 && same_bits(dx, dx2, N * C), "backward N%zu C%zu: %zu not doubled, or dx differs",
              N, C, not_doubled);
    /* one thread, and dx == dy: the same bits */
    float *dx1 = filled(N * C, NAN), *dg1 = filled(C, 0), *db1 = filled(C, 0);
    backward_at(be1, &p, dx1, dg1, db1);
    CHECK_MSG(same_bits(dx, dx1, N * C) && same_bits(dg, dg1, C) && same_bits(db, db1, C),
              "backward N%zu C%zu: all cores and one thread differ", N, C);
    float *R0 = p.R, *g = copy_of(p.R, N * C), *dgi = filled(C, 0), *dbi = filled(C, 0);
    p.R = g;
    backward_at(be, &p, g, dgi, dbi);
    p.R = R0;
    CHECK_MSG(same_bits(dx, g, N * C) && same_bits(dg, dgi, C) && same_bits(db, dbi, C),
              "backward N%zu C%zu: in place differs from separate buffers", N, C);
    printf("backward N%-5zu C%-4zu eps %g: vs double fd max rel %.2e, vs float-forward fd max abs %.2e\n", N, C,
           (double)eps, w.worst_d, w.worst_f);
    free(dx), free(dg), free(db), free(dxd), free(dgd), free(dbd), free(dx2), free(dg2), free(db2);
    free(dx1), free(dg1), free(db1), free(g), free(dgi), free(dbi);
    fd_problem_free(&p);
}

/* Large blocks (the parallel paths): one thread and in place give the bits
 * of all cores. */
static void check_large(fc_backend *be, fc_backend *be1, size_t N, size_t C, uint64_t seed) {
    bn_run p, q;
    run_new(&p, N, C, 1e-5f, 0.1f, seed);
    run_new(&q, N, C, 1e-5f, 0.1f, seed);
    run_forward(be, &p);
    run_forward(be1, &q);
    bn_err e = forward_errors(&p, p.y, p.mean, p.rstd, p.rm, p.rv);
    CHECK_MSG(forward_ok(e) && same_bits(p.y, q.y, N * C) && same_bits(p.mean, q.mean, C) && same_bits(p.rv, q.rv, C),
              "large N%zu C%zu: errors y %.3g (or one thread differs)", N, C, e.y);
    float *dy = randu(N * C, seed + 9, -1, 1), *dx = filled(N * C, NAN), *dx1 = filled(N * C, NAN);
    float *dg = filled(C, 0), *db = filled(C, 0), *dg1 = filled(C, 0), *db1 = filled(C, 0);
    be->batch_norm_backward(be, dx, dy, p.x, N, C, p.gamma, p.mean, p.rstd, dg, db);
    be1->batch_norm_backward(be1, dx1, dy, p.x, N, C, p.gamma, p.mean, p.rstd, dg1, db1);
    CHECK_MSG(same_bits(dx, dx1, N * C) && same_bits(dg, dg1, C) && same_bits(db, db1, C),
              "large N%zu C%zu backward: all cores and one thread differ", N, C);
    free(dy), free(dx), free(dx1), free(dg), free(db), free(dg1), free(db1);
    run_free(&p), run_free(&q);
}

/* ---- 4. the GPU's lane bodies ---- */

/* One column as a CUDA block computes it: lane partials (a thread each),
 * the halving tree, then every point from the block's statistics. */
static void gpu_column(const bn_run *p, size_t c, float *y, float *mean, float *rstd, float *rm, float *rv) {
    double part[FC_BN_LANES];
    for (size_t l = 0; l < FC_BN_LANES; l++) part[l] = fc_bn_lane_sum(p->x, p->N, p->C, c, l);
    double m = fc_bn_mean(fc_bn_tree(part, 1), p->N);
    for (size_t l = 0; l < FC_BN_LANES; l++) part[l] = fc_bn_lane_sqdev(p->x, p->N, p->C, c, m, l);
    double q = fc_bn_tree(part, 1);
    mean[c] = (float)m, rstd[c] = fc_bn_rstd(q, p->N, p->eps);
    fc_bn_running(&rm[c], &rv[c], m, q, p->N, p->momentum);
    for (size_t r = 0; r < p->N; r++)
        y[r * p->C + c] = fc_bn_point(p->x[r * p->C + c], mean[c], rstd[c], p->gamma[c], p->beta[c]);
}

static void gpu_backward_column(const bn_run *p, const float *dy, size_t c, float *dx, float *dg, float *db) {
    double pb[FC_BN_LANES], pgx[FC_BN_LANES], mg, mgx;
    for (size_t l = 0; l < FC_BN_LANES; l++)
        fc_bn_lane_backward_sums(dy, p->x, p->N, p->C, c, p->mean[c], p->rstd[c], l, &pb[l], &pgx[l]);
    double sb = fc_bn_tree(pb, 1), sgx = fc_bn_tree(pgx, 1);
    fc_bn_backward_means(sb, sgx, p->gamma[c], p->N, &mg, &mgx);
    fc_bn_param_finish(&dg[c], &db[c], sb, sgx);
    for (size_t r = 0; r < p->N; r++) {
        size_t i = r * p->C + c;
        dx[i] = fc_bn_backward_point(dy[i], p->x[i], p->gamma[c], p->mean[c], p->rstd[c], mg, mgx);
    }
}

static void check_gpu_lanes(fc_backend *be, size_t N, size_t C, uint64_t seed) {
    bn_run p;
    run_new(&p, N, C, 1e-5f, 0.1f, seed);
    run_forward(be, &p);
    float *y = filled(N * C, NAN), *m = filled(C, NAN), *r = filled(C, NAN);
    float *rm = copy_of(p.rm0, C), *rv = copy_of(p.rv0, C);
    for (size_t c = 0; c < C; c++) gpu_column(&p, c, y, m, r, rm, rv);
    int same = same_bits(y, p.y, N * C) && same_bits(m, p.mean, C) && same_bits(r, p.rstd, C) &&
               same_bits(rm, p.rm, C) && same_bits(rv, p.rv, C);
    float *dy = randu(N * C, seed + 5, -1, 1), *dx = filled(N * C, NAN), *dxg = filled(N * C, NAN);
    float *dg = randu(C, seed + 6, -1, 1), *db = randu(C, seed + 7, -1, 1), *dgg = copy_of(dg, C),
          *dbg = copy_of(db, C);
    be->batch_norm_backward(be, dx, dy, p.x, N, C, p.gamma, p.mean, p.rstd, dg, db);
    for (size_t c = 0; c < C; c++) gpu_backward_column(&p, dy, c, dxg, dgg, dbg);
    same = same && same_bits(dx, dxg, N * C) && same_bits(dg, dgg, C) && same_bits(db, dbg, C);
    CHECK_MSG(same, "N%zu C%zu: the GPU's lane bodies do not give the CPU's bits", N, C);
    printf("gpu lanes N%-5zu C%-4zu: %s\n", N, C, same ? "the CPU's bits" : "DIFFER");
    free(y), free(m), free(r), free(rm), free(rv), free(dy), free(dx), free(dxg), free(dg), free(db), free(dgg),
        free(dbg);
    run_free(&p);
}

/* ---- 5. broken formulas fail ---- */

/* The outputs of a broken double forward, rounded to float, judged as the
 * backend's are: each must fail. */
static void check_broken_forward(void) {
    const bn_formula broken[] = {BN_UNBIASED, BN_NO_EPS, BN_BIASED_RUNNING};
    const char *names[] = {"unbiased variance", "no eps", "biased running_var"};
    for (size_t k = 0; k < 3; k++) {
        bn_run p;
        run_new(&p, 300, 3, 1e-5f, 0.1f, 71);
        size_t n = p.N * p.C;
        double *x = to_double(p.x, n), *g = to_double(p.gamma, 3), *b = to_double(p.beta, 3);
        double *rm = to_double(p.rm0, 3), *rv = to_double(p.rv0, 3), y[900], m[3], r[3];
        bn_double(x, p.N, p.C, g, b, p.eps, p.momentum, y, m, r, rm, rv, broken[k]);
        float *yf = to_float(y, n), *mf = to_float(m, 3), *rf = to_float(r, 3), *rmf = to_float(rm, 3),
              *rvf = to_float(rv, 3);
        bn_err e = forward_errors(&p, yf, mf, rf, rmf, rvf);
        CHECK_MSG(!forward_ok(e), "a forward with %s passes the checks (y %.3g rstd %.3g running %.3g)", names[k], e.y,
                  e.rstd, e.run);
        printf("broken: %-20s rejected (y %.2e rstd %.2e running %.2e)\n", names[k], e.y, e.rstd, e.run);
        free(x), free(g), free(b), free(rm), free(rv), free(yf), free(mf), free(rf), free(rmf), free(rvf);
        run_free(&p);
    }
}

/* dx without the xhat mean(g xhat) term (the variance's path) fails the
 * finite differences; the right double backward passes them. */
static void check_broken_backward(void) {
    enum { N = 6, C = 2 };
    fd_problem p;
    fd_problem_new(&p, N, C, 1e-5f, 81);
    double *x = to_double(p.x, N * C), y[N * C], m[C], rs[C], dx[N * C], dxb[N * C], dg[C], db[C];
    double zero[C] = {0, 0};
    double *g = to_double(p.gamma, C);
    bn_double(x, N, C, g, zero, p.eps, 0.1, y, m, rs, NULL, NULL, BN_RIGHT);
    for (size_t c = 0; c < C; c++) {
        double mg = 0, mgx = 0, sg = 0, sb = 0;
        for (size_t r = 0; r < N; r++) {
            double xh = (x[r * C + c] - m[c]) * rs[c], gg = p.R[r * C + c] * g[c];
            mg += gg / N, mgx += gg * xh / N, sg += p.R[r * C + c] * xh, sb += p.R[r * C + c];
        }
        for (size_t r = 0; r < N; r++) {
            double xh = (x[r * C + c] - m[c]) * rs[c], gg = p.R[r * C + c] * g[c];
            dx[r * C + c] = rs[c] * (gg - mg - xh * mgx);
            dxb[r * C + c] = rs[c] * (gg - mg);
        }
        dg[c] = sg, db[c] = sb;
    }
    fd_worst right = fd_all(NULL, &p, dx, dg, db), wrong = fd_all(NULL, &p, dxb, dg, db);
    CHECK_MSG(right.bad_d == 0 && wrong.bad_d > 0, "backward without its xhat term: %zu of the fd off (right: %zu)",
              wrong.bad_d, right.bad_d);
    printf("broken: backward without xhat mean(g xhat): %zu of %d coordinates rejected\n", wrong.bad_d,
           N * C + 2 * C);
    free(x), free(g);
    fd_problem_free(&p);
}

int main(void) {
    fc_backend *be = cpu_backend(0), *be1 = cpu_backend(1);
    check_train(be, be1, 2, 1, 1e-5f, 11);
    check_train(be, be1, 7, 3, 1e-5f, 12);
    check_train(be, be1, 300, 5, 1e-3f, 13);    /* more rows than lanes */
    check_train(be, be1, 1000, 33, 1e-5f, 14);  /* columns past a CPU block */
    check_running_closed_form(be);
    check_eval(be, be1, 1, 1, 1e-5f, 21);
    check_eval(be, be1, 37, 17, 1e-5f, 22);
    check_eval(be, be1, 2000, 20, 1e-5f, 23);   /* 40000 points: the parallel path */
    check_backward(be, be1, 2, 1, 1e-5f, 31);
    check_backward(be, be1, 5, 3, 1e-5f, 32);
    check_backward(be, be1, 40, 4, 1e-3f, 33);
    check_backward(be, be1, 300, 2, 1e-5f, 34);   /* past the lanes */
    check_large(be, be1, 3000, 40, 41);           /* 120000 points: the parallel paths */
    check_gpu_lanes(be, 2, 1, 51);
    check_gpu_lanes(be, 700, 19, 52);
    check_broken_forward();
    check_broken_backward();
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    return CHECK_DONE();
}
