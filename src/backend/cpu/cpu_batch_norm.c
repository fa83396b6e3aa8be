/* Batch norm of the CPU backend (kernels/batch_norm.h). Training: the
 * columns in blocks of FC_CPU_BN_COLS, one block per iteration of an
 * OpenMP loop; a block walks the rows in order once per column sum,
 * adding row r into lane r mod FC_BN_LANES of each of its columns (the
 * GPU's thread per lane adds the same rows in the same order), then runs
 * the lanes' tree per column: the same bits for any thread count and as
 * the GPU. A column at a time would fetch a cache line per element. Eval
 * is per point, a row per iteration. */
#include <omp.h>
#include <string.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/batch_norm.h"

/* Columns per block: a 64-byte line of each row. The lanes of a block take
 * FC_BN_LANES x 16 doubles (32 KB) per sum, on the thread's stack. */
#define FC_CPU_BN_COLS 16

typedef double fc_bn_lanes[FC_BN_LANES][FC_CPU_BN_COLS];

/* A block of n columns from c0. */
typedef struct {
    size_t c0, n;
} bn_block;

static bn_block block_of(size_t k, size_t C) {
    bn_block b = {k * FC_CPU_BN_COLS, 0};
    b.n = C - b.c0 < FC_CPU_BN_COLS ? C - b.c0 : FC_CPU_BN_COLS;
    return b;
}

/* total[i] = sum over rows of x[r][c0 + i], or of (x - m[i])^2 when m is
 * not NULL, in the lanes-then-tree order of kernels/batch_norm.h. */
static void block_sums(fc_bn_lanes part, double *total, const float *x, size_t N, size_t C, bn_block b,
                       const double *m) {
    memset(part, 0, sizeof(fc_bn_lanes));
    for (size_t r = 0; r < N; r++) {
        const float *xr = x + r * C + b.c0;
        double *p = part[r % FC_BN_LANES];
        if (m)
            for (size_t i = 0; i < b.n; i++) p[i] += fc_bn_sqdev_term(xr[i], m[i]);
        else
            for (size_t i = 0; i < b.n; i++) p[i] += (double)xr[i];
    }
    for (size_t i = 0; i < b.n; i++) total[i] = fc_bn_tree(&part[0][i], FC_CPU_BN_COLS);
}

typedef struct {
    float *y;
    const float *x;
    size_t N, C;
    const float *gamma, *beta;
    float *running_mean, *running_var, *mean, *rstd;
    float momentum, eps;
} bn_forward;

/* One block in training: statistics (two passes), running updates, y.
 * y may be x: every x of the block is read before its y is written. */
static void train_block(const bn_forward *f, bn_block b) {
    fc_bn_lanes part;
    double m[FC_CPU_BN_COLS], q[FC_CPU_BN_COLS];
    float mf[FC_CPU_BN_COLS], rf[FC_CPU_BN_COLS];
    block_sums(part, m, f->x, f->N, f->C, b, NULL);
    for (size_t i = 0; i < b.n; i++) m[i] = fc_bn_mean(m[i], f->N);
    block_sums(part, q, f->x, f->N, f->C, b, m);
    for (size_t i = 0; i < b.n; i++) {
        size_t c = b.c0 + i;
        mf[i] = (float)m[i];
        rf[i] = fc_bn_rstd(q[i], f->N, f->eps);
        f->mean[c] = mf[i];
        f->rstd[c] = rf[i];
        fc_bn_running(&f->running_mean[c], &f->running_var[c], m[i], q[i], f->N, f->momentum);
    }
    for (size_t r = 0; r < f->N; r++) {
        const float *xr = f->x + r * f->C + b.c0;
        float *yr = f->y + r * f->C + b.c0;
        for (size_t i = 0; i < b.n; i++)
            yr[i] = fc_bn_point(xr[i], mf[i], rf[i], f->gamma[b.c0 + i], f->beta[b.c0 + i]);
    }
}

static void eval_rows(fc_backend *be, const bn_forward *f) {
    size_t C = f->C;
#pragma omp parallel for if (f->N * C >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < f->N; r++)
        for (size_t c = 0; c < C; c++)
            f->y[r * C + c] = fc_bn_eval_point(f->x[r * C + c], f->running_mean[c], f->running_var[c], f->gamma[c],
                                               f->beta[c], f->eps);
}

void fc_cpu_batch_norm_forward(fc_backend *be, float *y, const float *x, size_t N, size_t C, const float *gamma,
                               const float *beta, float *running_mean, float *running_var, float *batches,
                               float *mean, float *rstd, int training, float momentum, float eps) {
    bn_forward f = {y, x, N, C, gamma, beta, running_mean, running_var, mean, rstd, momentum, eps};
    if (!training) {
        eval_rows(be, &f);
        return;
    }
    FC_ASSERT(N >= 2);   /* backend.h: the unbiased variance divides by N - 1 */
    size_t blocks = (C + FC_CPU_BN_COLS - 1) / FC_CPU_BN_COLS;
#pragma omp parallel for if (N * C >= FC_CPU_PAR_MIN && blocks > 1) num_threads(be->threads) schedule(static)
    for (size_t k = 0; k < blocks; k++) train_block(&f, block_of(k, C));
    if (batches) *batches += 1.0f;
}

typedef struct {
    float *dx;
    const float *dy, *x;
    size_t N, C;
    const float *gamma, *mean, *rstd;
    float *dgamma, *dbeta;
} bn_backward;

/* One block: the column sums of dy and dy xhat (lanes, then trees), the
 * gradients of gamma and beta, then dx, which may be dy: every dy of the
 * block is read by the sums before dx is written. */
static void backward_block(const bn_backward *g, bn_block b) {
    fc_bn_lanes pb, pgx;
    double mg[FC_CPU_BN_COLS], mgx[FC_CPU_BN_COLS];
    memset(pb, 0, sizeof pb);
    memset(pgx, 0, sizeof pgx);
    for (size_t r = 0; r < g->N; r++) {
        const float *dyr = g->dy + r * g->C + b.c0, *xr = g->x + r * g->C + b.c0;
        double *p = pb[r % FC_BN_LANES], *q = pgx[r % FC_BN_LANES];
        for (size_t i = 0; i < b.n; i++)
            fc_bn_backward_terms(&p[i], &q[i], dyr[i], xr[i], g->mean[b.c0 + i], g->rstd[b.c0 + i]);
    }
    for (size_t i = 0; i < b.n; i++) {
        size_t c = b.c0 + i;
        double sb = fc_bn_tree(&pb[0][i], FC_CPU_BN_COLS), sgx = fc_bn_tree(&pgx[0][i], FC_CPU_BN_COLS);
        fc_bn_backward_means(sb, sgx, g->gamma[c], g->N, &mg[i], &mgx[i]);
        fc_bn_param_finish(&g->dgamma[c], &g->dbeta[c], sb, sgx);
    }
    for (size_t r = 0; r < g->N; r++) {
        size_t o = r * g->C + b.c0;
        for (size_t i = 0; i < b.n; i++) {
            size_t c = b.c0 + i;
            g->dx[o + i] = fc_bn_backward_point(g->dy[o + i], g->x[o + i], g->gamma[c], g->mean[c], g->rstd[c], mg[i],
                                                mgx[i]);
        }
    }
}

void fc_cpu_batch_norm_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t N, size_t C,
                                const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                float *dbeta) {
    bn_backward g = {dx, dy, x, N, C, gamma, mean, rstd, dgamma, dbeta};
    size_t blocks = (C + FC_CPU_BN_COLS - 1) / FC_CPU_BN_COLS;
#pragma omp parallel for if (N * C >= FC_CPU_PAR_MIN && blocks > 1) num_threads(be->threads) schedule(static)
    for (size_t k = 0; k < blocks; k++) backward_block(&g, block_of(k, C));
}
