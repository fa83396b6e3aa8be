/* Monte Carlo prices of European and arithmetic-average Asian options under
 * geometric Brownian motion, with a standard error and a 95% interval.
 *
 * - Paths: exact log-normal steps (kernels/quant_paths.h), Philox normals
 *   indexed by (draw, step): the result is bitwise identical for any number
 *   of threads (per-chunk sums are combined in a fixed order), and a GPU
 *   runs the same draws in the same order.
 * - Antithetic variates: each sample is the mean payoff of a path and its
 *   mirror (-z); the standard error is computed over those pair means.
 * - Asian options: the arithmetic average uses the geometric-average payoff
 *   as a control variate, whose expectation is known in closed form
 *   (Kemna-Vorst, black_scholes.h). The coefficient beta = cov(X,Y)/var(Y)
 *   is estimated from the same samples (QuantLib fixes it to 1); the
 *   small-sample bias this brings is O(1/n) and is ignored, as usual. */
#ifndef FC_QUANT_MC_OPTIONS_H
#define FC_QUANT_MC_OPTIONS_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"
#include "quant/black_scholes.h"

struct fc_backend;

typedef struct {
    fc_option_type type;
    int asian;                   /* 0 European, 1 arithmetic-average-price Asian */
    fc_bs_market market;
    const double *fixing_times;  /* Asian: (n_fixings) sorted, in [0, T]; NULL: i*T/n, i = 1..n */
    size_t n_fixings;            /* Asian only */
    size_t steps;                /* European only: time steps per path (GBM is exact: 1 suffices) */
    uint64_t paths;              /* rounded up to whole draws (2 paths, 4 with antithetic) */
    int antithetic;
    int control_variate;         /* Asian only: use the geometric-average control variate */
    uint64_t seed;
    /* Where the draws run: NULL, or a backend without mc_chunk_sums (the
     * CPU), runs them on the host over OpenMP; a GPU backend runs the same
     * draws in the same order (backend.h), equal to the host's but for the
     * last bits of its exp, log, sin and cos (docs/gpu.md). */
    struct fc_backend *backend;
} fc_mc_option;

typedef struct {
    double price, std_error, ci_low, ci_high; /* 95%: price -+ 1.959964 std_error */
    uint64_t paths;         /* paths simulated */
    uint64_t samples;       /* independent samples (antithetic pairs count once) */
    /* Asian only: */
    double plain_price, plain_std_error; /* the same samples without control variate */
    double geo_mc, geo_mc_std_error;     /* MC mean of the geometric-average payoff */
    double geo_exact;                    /* its closed form (Kemna-Vorst) */
    double cv_beta;                      /* control-variate coefficient used */
} fc_mc_result;

/* Validates the option (errors name the CLI flag) and prices it. */
fc_status fc_mc_price(const fc_mc_option *o, fc_mc_result *out);

/* Every draw 0 .. draws - 1 of spec (kernels/quant_paths.h: a European,
 * Asian or barrier option) summed into *total: on `be` when it has a Monte
 * Carlo entry (a GPU), else on the host over OpenMP; the chunk sums are
 * added in chunk order on the host whoever computed them, so the total
 * depends neither on the threads nor on the device's geometry. */
struct fc_mc_spec;
struct fc_mc_sums;
fc_status fc_mc_run_draws(struct fc_backend *be, const struct fc_mc_spec *spec, uint64_t seed, uint64_t draws,
                          struct fc_mc_sums *total);

#endif
