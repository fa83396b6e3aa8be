/* A long-only efficient frontier of many assets: seconds of fcast's
 * active-set solver (src/quant/portfolio_qp.c, qp_dense.c) for N points,
 * best of REPEATS, for comparison with cvxpy on the same problems
 * (bench/portfolio_cvxpy.py runs both and prints the ratio).
 *
 * usage: bench_portfolio RETURNS.f64 T N [POINTS] [REPEATS] [WEIGHTS_OUT]
 *   RETURNS.f64: T x N float64, row-major (written by portfolio_cvxpy.py);
 *   WEIGHTS_OUT: the frontier's targets then weights, float64, for the
 *   comparison of the answers. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "quant/portfolio.h"
#include "quant/portfolio_qp.h"

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double *read_matrix(const char *path, size_t n) {
    FILE *f = fopen(path, "rb");
    double *R = f ? malloc(n * sizeof *R) : NULL;
    if (R && fread(R, sizeof *R, n, f) != n) free(R), R = NULL;
    if (f) fclose(f);
    return R;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: bench_portfolio RETURNS.f64 T N [POINTS] [REPEATS] [WEIGHTS_OUT]\n");
        return 2;
    }
    size_t T = strtoull(argv[2], NULL, 10), N = strtoull(argv[3], NULL, 10);
    size_t points = argc > 4 ? strtoull(argv[4], NULL, 10) : 20;
    int repeats = argc > 5 ? atoi(argv[5]) : 3;
    double *R = read_matrix(argv[1], T * N), *mu = malloc(N * sizeof *mu), *cov = malloc(N * N * sizeof *cov);
    double *lo = calloc(N, sizeof *lo), *hi = malloc(N * sizeof *hi);
    double *targets = malloc(points * sizeof *targets), *W = malloc(points * N * sizeof *W);
    if (!R || !mu || !cov || !lo || !hi || !targets || !W) {
        fprintf(stderr, "bench_portfolio: cannot read %s as %zu x %zu doubles\n", argv[1], T, N);
        return 1;
    }
    for (size_t i = 0; i < N; i++) hi[i] = INFINITY;
    fc_box box = {lo, hi};
    fc_portfolio_moments(R, T, N, mu, cov);
    double best = 1e300;
    fc_qp_info info = {0};
    for (int r = 0; r < repeats; r++) {   /* best of N: the machine is shared */
        double t0 = now_seconds();
        if (fc_portfolio_box_frontier(cov, mu, N, &box, points, targets, W, &info) != FC_OK) {
            fprintf(stderr, "bench_portfolio: %s\n", fc_last_error());
            return 1;
        }
        best = fmin(best, now_seconds() - t0);
    }
    printf("engine=fcast assets=%zu periods=%zu points=%zu seconds=%.4f iterations=%zu kkt_residual=%.3g\n", N, T,
           points, best, info.iterations, info.kkt_residual);
    if (argc > 6) {
        FILE *f = fopen(argv[6], "wb");
        if (!f || fwrite(targets, sizeof *targets, points, f) != points ||
            fwrite(W, sizeof *W, points * N, f) != points * N) {
            fprintf(stderr, "bench_portfolio: cannot write %s\n", argv[6]);
            return 1;
        }
        fclose(f);
    }
    free(R), free(mu), free(cov), free(lo), free(hi), free(targets), free(W);
    return 0;
}
