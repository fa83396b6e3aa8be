/* fcast quant portfolio: minimum-variance and (with --target-return)
 * mean-variance weights of the series of a price file, fully invested,
 * shorts allowed (closed form), through the library API (fcast.h:
 * fcast_returns_read_csv, fcast_portfolio_*). Series are aligned on ds
 * (inner join) before returns are taken. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"

#define COMMAND "quant portfolio"
#define PERIODS_PER_YEAR 252.0   /* fcast_risk's year */
#define MAX_ASSETS 4096          /* fcast_portfolio_*'s bound */

/* The mean and volatility per period of weights w: w'mu and sqrt(w' cov w). */
static void portfolio_stats(const double *cov, const double *mu, size_t N, const double *w, double *mean,
                            double *vol) {
    double m = 0.0, v = 0.0;
    for (size_t i = 0; i < N; i++) {
        m += w[i] * mu[i];
        for (size_t j = 0; j < N; j++) v += w[i] * cov[i * N + j] * w[j];
    }
    *mean = m;
    *vol = sqrt(fmax(v, 0.0));
}

static void print_portfolio(const char *title, const fcast_returns *r, size_t N, const double *w,
                            const double *cov, const double *mu) {
    double mean, vol;
    portfolio_stats(cov, mu, N, w, &mean, &vol);
    printf("%s: expected annual return %.6f, annual volatility %.6f\n", title, mean * PERIODS_PER_YEAR,
           vol * sqrt(PERIODS_PER_YEAR));
    for (size_t j = 0; j < N; j++) printf("  %-16s %12.6f\n", fcast_returns_id(r, j), w[j]);
}

/* 0, or the exit code after the message. */
static int solve(const char *path, const fcast_returns *r, int target_given, double target_annual, double *mu,
                 double *cov, double *w) {
    const size_t T = fcast_returns_n_periods(r), N = fcast_returns_n_assets(r);
    const double *R = fcast_returns_values(r);
    if (fcast_portfolio_moments(R, T, N, mu, cov) != FC_OK || fcast_portfolio_min_variance(R, T, N, w) != FC_OK)
        return cli_fail(COMMAND);
    printf("%s: %zu assets aligned on ds (inner join), %zu returns; fully invested, shorts allowed\n", path, N, T);
    print_portfolio("minimum variance", r, N, w, cov, mu);
    if (!target_given) return 0;
    if (fcast_portfolio_target_return(R, T, N, target_annual / PERIODS_PER_YEAR, w) != FC_OK) return cli_fail(COMMAND);
    char title[96];
    snprintf(title, sizeof title, "target return %g a year", target_annual);
    print_portfolio(title, r, N, w, cov, mu);
    return 0;
}

static int run(const char *path, int target_given, double target_annual) {
    fcast_returns *r = NULL;
    if (fcast_returns_read_csv(path, 0, &r) != FC_OK) return cli_fail(COMMAND);
    size_t N = fcast_returns_n_assets(r);
    int rc = 0;
    if (N > MAX_ASSETS) {
        fprintf(stderr, "fcast " COMMAND ": %s: %zu series; a portfolio takes 1 to %d assets\n", path, N, MAX_ASSETS);
        rc = CLI_EXIT_INVALID;
    }
    double *mu = NULL, *cov = NULL, *w = NULL;
    if (!rc) {
        mu = malloc(N * sizeof *mu), cov = malloc(N * N * sizeof *cov), w = malloc(N * sizeof *w);
        if (!mu || !cov || !w) {
            fprintf(stderr, "fcast " COMMAND ": out of memory (the covariance of %zu assets)\n", N);
            rc = CLI_EXIT_MEMORY;
        }
    }
    if (!rc) rc = solve(path, r, target_given, target_annual, mu, cov, w);
    free(mu), free(cov), free(w);
    fcast_returns_free(r);
    return rc;
}

int cmd_quant_portfolio(int argc, char **argv, int first) {
    const char *data = NULL, *device = NULL;
    double target = 0.0;
    arg_spec specs[] = {
        {"data", ARG_IN, &data, "FILE", "long CSV (unique_id, ds, y) of prices", 1, 0},
        {"target-return", ARG_DOUBLE, &target, "R",
         "also the minimum-variance portfolio earning R a year (mean return x 252)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_CPU_ONLY_HELP, 0, 0},
        {0},
    };
    int rc = args_parse(COMMAND,
                        "Minimum-variance and mean-variance (target return) weights from the sample covariance\n"
                        "of simple returns: fully invested, shorts allowed, closed form (KKT system, LAPACK).",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if ((rc = device_cpu_only(COMMAND, device))) return rc;
    return run(data, specs[1].seen, target);
}
