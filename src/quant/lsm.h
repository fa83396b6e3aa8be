/* American options by Longstaff-Schwartz least-squares Monte Carlo
 * (Longstaff & Schwartz 2001), the per-path bodies in kernels/quant_lsm.h.
 *
 * - Exercise dates: the N equal time steps t_k = k T / N (and today), a
 *   Bermudan option that approaches the American one as N grows.
 * - Calibration: `calibration_paths` paths walked backward by a Brownian
 *   bridge; at each date the discounted future cash flows of the paths in
 *   the money are regressed on 1, x, .., x^degree (x = S / K) by least
 *   squares (LAPACK dgelsd on the normal equations, accumulated in a fixed
 *   order), and a path exercises where its payoff is at least the fit.
 * - Pricing: `paths` further paths, independent of the calibration set,
 *   follow that exercise rule forward, each with its mirror (antithetic
 *   variates; the standard error is over the pair means). The rule is a feasible policy, not
 *   the optimal one, and it never sees the paths it prices, so the
 *   estimate is low-biased (no foresight); the price reported is this
 *   estimate, with its standard error, and max(it, today's exercise).
 * Memory: 2 doubles per calibration path and N x (degree + 1)
 * coefficients; no path is stored. Deterministic for a seed, whatever the
 * thread count (chunk sums are added in chunk order). */
#ifndef FC_QUANT_LSM_H
#define FC_QUANT_LSM_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"
#include "quant/black_scholes.h"

typedef struct {
    fc_option_type type;
    fc_bs_market market;
    size_t steps;                 /* exercise dates N, 2 to 100000 */
    uint64_t paths;               /* pricing paths (rounded up to a multiple of 4: two pairs a draw) */
    uint64_t calibration_paths;   /* regression paths (rounded up to even) */
    int degree;                   /* polynomial degree of the basis, 1 to FC_LSM_MAX_DEGREE */
    uint64_t seed;
} fc_lsm_option;

typedef struct {
    double price, std_error;   /* max(estimate, exercise today) and the estimate's standard error */
    double estimate;           /* the mean discounted cash flow of the pricing paths */
    double calibration_price;  /* the same on the calibration paths (in-sample: high-biased, a diagnostic) */
    uint64_t paths, calibration_paths;
} fc_lsm_result;

/* Validates (messages name the CLI flags) and prices. */
/* The calibration runs on the host; the pricing paths, on backend `be`
 * when it runs Monte Carlo (a GPU: the same draws through the shared
 * fc_mc_draw), else (NULL too) on the host. */
struct fc_backend;
fc_status fc_lsm_price(const fc_lsm_option *o, struct fc_backend *be, fc_lsm_result *out);

#endif
