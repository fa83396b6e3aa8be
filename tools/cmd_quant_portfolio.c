/* fcast quant portfolio: minimum-variance and (with --target-return)
 * mean-variance weights of the series of a price file, fully invested,
 * shorts allowed (closed form, src/quant/portfolio.h). Series are aligned on
 * ds (inner join) before returns are taken. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"
#include "core/error.h"
#include "quant/portfolio.h"
#include "quant/returns.h"
#include "quant/risk.h"

static void print_portfolio(const char *title, const fc_dataset *d, size_t N, const double *w,
                            const double *cov, const double *mu) {
    double mean, vol;
    fc_portfolio_stats(cov, mu, N, w, &mean, &vol);
    printf("%s: expected annual return %.6f, annual volatility %.6f\n", title, mean * FC_PERIODS_PER_YEAR,
           vol * sqrt(FC_PERIODS_PER_YEAR));
    for (size_t j = 0; j < N; j++) printf("  %-16s %12.6f\n", d->ids[j], w[j]);
}

static int run(const char *path, int target_given, double target_annual) {
    fc_dataset *d = NULL;
    fc_panel p = {0};
    double *mu = NULL, *cov = NULL, *w = NULL;
    fc_load_options opt = {0};
    opt.keep_gaps = 1;   /* prices on trading days: a weekend is not a missing value */
    opt.drop_exog = 1;
    fc_status st = fc_dataset_load_csv(path, &opt, &d);
    if (st == FC_OK) st = fc_panel_align(d, 3, &p);
    if (st == FC_OK) st = fc_panel_to_returns(&p);
    size_t N = p.n_series;
    if (st == FC_OK && N > PORTFOLIO_MAX_ASSETS)
        st = fc_error(FC_ERR_INVALID, "%s: %zu series; a portfolio takes 1 to %d assets", path, N, PORTFOLIO_MAX_ASSETS);
    if (st == FC_OK) {
        mu = fc_malloc(N * sizeof *mu, "means");
        cov = fc_malloc(N * N * sizeof *cov, "covariance");
        w = fc_malloc(N * sizeof *w, "weights");
        st = mu && cov && w ? fc_portfolio_moments(p.values, p.n_rows, N, mu, cov) : FC_ERR_MEMORY;
    }
    if (st == FC_OK) st = fc_portfolio_min_variance(cov, N, w);
    if (st == FC_OK) {
        printf("%s: %zu assets aligned on ds (inner join), %zu returns; fully invested, shorts allowed\n", path,
               N, p.n_rows);
        print_portfolio("minimum variance", d, N, w, cov, mu);
    }
    if (st == FC_OK && target_given) {
        st = fc_portfolio_target_return(cov, mu, N, target_annual / FC_PERIODS_PER_YEAR, w);
        if (st == FC_OK) {
            char title[96];
            snprintf(title, sizeof title, "target return %g a year", target_annual);
            print_portfolio(title, d, N, w, cov, mu);
        }
    }
    int rc = st == FC_OK ? 0 : cli_fail("quant portfolio");
    free(mu), free(cov), free(w);
    fc_panel_free(&p);
    fc_dataset_free(&d);
    return rc;
}

int cmd_quant_portfolio(int argc, char **argv, int first) {
    const char *data = NULL, *device = NULL;
    double target = 0.0;
    arg_spec specs[] = {
        {"data", ARG_STR, &data, "FILE", "long CSV (unique_id, ds, y) of prices", 1, 0},
        {"target-return", ARG_DOUBLE, &target, "R",
         "also the minimum-variance portfolio earning R a year (mean return x 252)", 0, 0},
        {"device", ARG_STR, &device, "DEV", DEVICE_CPU_ONLY_HELP, 0, 0},
        {0},
    };
    int rc = args_parse("quant portfolio",
                        "Minimum-variance and mean-variance (target return) weights from the sample covariance\n"
                        "of simple returns: fully invested, shorts allowed, closed form (KKT system, LAPACK).",
                        specs, argc, argv, first);
    if (rc) return args_exit(rc);
    if (device_cpu_only("quant portfolio", device) != FC_OK) return cli_fail("quant portfolio");
    return run(data, specs[1].seen, target);
}
