/* Single-barrier European options, continuously monitored: the closed form
 * (Reiner-Rubinstein, as QuantLib's AnalyticBarrierEngine) and Monte Carlo
 * with the Brownian-bridge crossing correction (kernels/quant_barrier.h). */
#ifndef FC_QUANT_BARRIER_H
#define FC_QUANT_BARRIER_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"
#include "quant/black_scholes.h"

typedef struct {
    fc_option_type type;
    int kind;              /* FC_BARRIER_DOWN_IN, _UP_IN, _DOWN_OUT, _UP_OUT (kernels/quant_barrier.h) */
    fc_bs_market market;
    double barrier;        /* > 0; the spot must be on the live side (above a down barrier, below an up one) */
    double rebate;         /* >= 0: knock-in at expiry if never touched; knock-out when touched */
} fc_barrier_option;

/* Checks the option; messages name the CLI flags (--barrier, --rebate). */
fc_status fc_barrier_check(const fc_barrier_option *o);

/* The closed form. */
fc_status fc_barrier_price(const fc_barrier_option *o, double *price);

typedef struct {
    double price, std_error;
    uint64_t paths;
} fc_barrier_mc_result;

/* Monte Carlo on `steps` equal steps (1 to 100000) with `paths` paths
 * (rounded up to even), deterministic for a seed on any thread count;
 * on backend `be` when it runs Monte Carlo (a GPU: the same draws, by the
 * shared fc_mc_draw), else (NULL too) on the host. */
struct fc_backend;
fc_status fc_barrier_mc_price(const fc_barrier_option *o, size_t steps, uint64_t paths, uint64_t seed,
                              struct fc_backend *be, fc_barrier_mc_result *out);

/* "down-and-out" etc. for a kind; NULL for none. */
const char *fc_barrier_kind_name(int kind);

#endif
