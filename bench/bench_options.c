/* Options beyond Black-Scholes, timed for docs/quant-options.md next to
 * QuantLib (python/bench_quantlib_options.py times the same contracts):
 *   implied volatility of 1M European options (a grid of strikes, expiries
 *   and vols; the prices from Black-Scholes), and the largest error;
 *   an American put on a 10,000-step binomial tree (crr and bbsr);
 *   the same put by Longstaff-Schwartz, 1M pricing paths x 50 dates
 *   (100,000 calibration paths, cubic basis), with its standard error.
 * Best of REPEATS runs (the machine is shared).
 *
 * usage: bench_options [REPEATS]   (threads: OMP_NUM_THREADS) */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "quant/binomial.h"
#include "quant/implied_vol.h"
#include "quant/lsm.h"
#include "kernels/quant_implied_vol.h"

#define N_IV 1000000

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The grid python/bench_quantlib_options.py builds too: option i has
 * strike 50 + 100 u, expiry 0.05 + 3 v, vol 0.05 + 0.95 w for
 * quasi-random (u, v, w) from i (golden-ratio sequences). */
static void iv_inputs(int *call, double *S, double *K, double *r, double *q, double *T, double *vol, double *price) {
    for (size_t i = 0; i < N_IV; i++) {
        double u = fmod(0.6180339887498949 * (double)i, 1.0), v = fmod(0.7548776662466927 * (double)i, 1.0);
        double w = fmod(0.5698402909980532 * (double)i, 1.0);
        call[i] = (int)(i & 1), S[i] = 100.0, K[i] = 50.0 + 100.0 * u, r[i] = 0.03, q[i] = 0.01;
        T[i] = 0.05 + 3.0 * v, vol[i] = 0.05 + 0.95 * w;
        fc_bs_market m = {S[i], K[i], r[i], q[i], vol[i], T[i]};
        fc_bs_greeks g;
        fc_bs_european(call[i] ? FC_CALL : FC_PUT, &m, &g);
        price[i] = g.price;
    }
}

static int bench_implied_vol(int repeats) {
    int *call = malloc(N_IV * sizeof *call), *code = malloc(N_IV * sizeof *code);
    double *a[9];
    for (int k = 0; k < 9; k++) a[k] = malloc(N_IV * sizeof(double));
    iv_inputs(call, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    fc_iv_batch b = {N_IV, call, a[0], a[1], a[2], a[3], a[4], a[6]};
    double best = 1e300;
    for (int rep = 0; rep < repeats; rep++) {
        double t0 = now_seconds();
        fc_implied_vols(&b, a[7], code);
        double dt = now_seconds() - t0;
        if (dt < best) best = dt;
    }
    double worst = 0.0;
    size_t failed = 0, counted = 0;
    for (size_t i = 0; i < N_IV; i++) {
        if (code[i] != FC_IV_OK) { failed++; continue; }
        fc_bs_market m = {a[0][i], a[1][i], a[2][i], a[3][i], a[5][i], a[4][i]};
        fc_bs_greeks g;
        fc_bs_european(call[i] ? FC_CALL : FC_PUT, &m, &g);
        /* where the price pins the vol down, and is a normal double (not subnormal) */
        if (!(g.price * 2.2e-16 / g.vega < 1e-12) || g.price < 1e-300) continue;
        counted++;
        worst = fmax(worst, fabs(a[7][i] - a[5][i]));
    }
    printf("implied_vol engine=fcast threads=%d options=%d seconds=%.4f failed=%zu max_abs_error=%.3g (over %zu "
           "well-conditioned)\n", omp_get_max_threads(), N_IV, best, failed, worst, counted);
    for (int k = 0; k < 9; k++) free(a[k]);
    free(call), free(code);
    return 0;
}

static int bench_tree(int repeats, fc_tree_kind kind, const char *name) {
    fc_tree_option o = {.type = FC_PUT, .american = 1, .market = {100, 100, 0.05, 0.0, 0.2, 1.0}, .steps = 10000,
                        .tree = kind};
    double best = 1e300, p = 0;
    for (int rep = 0; rep < repeats; rep++) {
        double t0 = now_seconds();
        if (fc_binomial_price(&o, &p) != FC_OK) {
            fprintf(stderr, "bench_options: %s\n", fc_last_error());
            return 1;
        }
        double dt = now_seconds() - t0;
        if (dt < best) best = dt;
    }
    printf("binomial engine=fcast tree=%s steps=10000 american_put=%.10f seconds=%.4f\n", name, p, best);
    return 0;
}

static int bench_lsm(int repeats) {
    fc_lsm_option o = {.type = FC_PUT, .market = {100, 100, 0.05, 0.0, 0.2, 1.0}, .steps = 50, .paths = 1000000,
                       .calibration_paths = 100000, .degree = 3, .seed = 42};
    fc_lsm_result r;
    double best = 1e300;
    for (int rep = 0; rep < repeats; rep++) {
        double t0 = now_seconds();
        if (fc_lsm_price(&o, NULL, &r) != FC_OK) {
            fprintf(stderr, "bench_options: %s\n", fc_last_error());
            return 1;
        }
        double dt = now_seconds() - t0;
        if (dt < best) best = dt;
    }
    printf("lsm engine=fcast threads=%d paths=%llu steps=50 calibration_paths=%llu price=%.6f std_error=%.6g "
           "seconds=%.4f\n", omp_get_max_threads(), (unsigned long long)r.paths,
           (unsigned long long)r.calibration_paths, r.price, r.std_error, best);
    return 0;
}

int main(int argc, char **argv) {
    int repeats = argc > 1 ? atoi(argv[1]) : 3;
    int rc = bench_implied_vol(repeats);
    rc |= bench_tree(repeats, FC_TREE_CRR, "crr");
    rc |= bench_tree(repeats, FC_TREE_BBSR, "bbsr");
    rc |= bench_lsm(repeats);
    return rc;
}
