/* Barrier options (see barrier.h): the checks, the closed form over the
 * kernel's terms, and Monte Carlo through the engine every Monte Carlo
 * option shares (quant/mc_options.h: its chunks, their order, a GPU). */
#include "quant/barrier.h"

#include <math.h>
#include <stdlib.h>
#include "core/error.h"
#include "kernels/quant_barrier.h"
#include "kernels/quant_paths.h"
#include "quant/mc_options.h"

#define BARRIER_MAX_STEPS 100000
#define BARRIER_MAX_WORK 10000000000ULL   /* paths x steps, as the other Monte Carlo engines */

static const char *const KIND_NAMES[4] = {"down-and-in", "up-and-in", "down-and-out", "up-and-out"};

const char *fc_barrier_kind_name(int kind) { return kind >= 0 && kind < 4 ? KIND_NAMES[kind] : NULL; }

fc_status fc_barrier_check(const fc_barrier_option *o) {
    FC_TRY(fc_bs_check(&o->market));
    if (!fc_barrier_kind_name(o->kind))
        return fc_error(FC_ERR_INVALID, "--barrier: kind %d: expected down-and-in, up-and-in, down-and-out or "
                        "up-and-out", o->kind);
    if (!(o->barrier > 0.0) || !isfinite(o->barrier))
        return fc_error(FC_ERR_INVALID, "--barrier: the level must be a positive number, got %g", o->barrier);
    if (!(o->rebate >= 0.0) || !isfinite(o->rebate))
        return fc_error(FC_ERR_INVALID, "--rebate: must be a number >= 0, got %g", o->rebate);
    int up = o->kind == FC_BARRIER_UP_IN || o->kind == FC_BARRIER_UP_OUT;
    if (up ? !(o->market.spot < o->barrier) : !(o->market.spot > o->barrier))
        return fc_error(FC_ERR_INVALID, "--barrier: %s:%g with --S %g: the spot is already %s the barrier (the "
                        "option has knocked %s today)", KIND_NAMES[o->kind], o->barrier, o->market.spot,
                        up ? "at or above" : "at or below", o->kind <= FC_BARRIER_UP_IN ? "in" : "out");
    double mu = (o->market.rate - o->market.div) / (o->market.vol * o->market.vol) - 0.5;
    if (o->rebate > 0.0 && o->kind >= FC_BARRIER_DOWN_OUT &&
        !(mu * mu + 2.0 * o->market.rate / (o->market.vol * o->market.vol) >= 0.0))
        return fc_error(FC_ERR_INVALID, "--rebate with --r %g: the knock-out rebate's formula needs mu^2 + 2 r / "
                        "sigma^2 >= 0 (here %g)", o->market.rate,
                        mu * mu + 2.0 * o->market.rate / (o->market.vol * o->market.vol));
    return FC_OK;
}

static fc_barrier_inputs inputs_of(const fc_barrier_option *o) {
    const fc_bs_market *m = &o->market;
    return (fc_barrier_inputs){m->spot, m->strike, o->barrier, o->rebate, m->rate, m->div, m->vol, m->expiry};
}

fc_status fc_barrier_price(const fc_barrier_option *o, double *price) {
    FC_TRY(fc_barrier_check(o));
    fc_barrier_inputs in = inputs_of(o);
    *price = fc_barrier_price_closed(o->type == FC_CALL, o->kind, &in);
    if (!isfinite(*price))
        return fc_error(FC_ERR_INVALID, "the barrier price is not finite (%g): the inputs are beyond what double "
                        "precision represents", *price);
    return FC_OK;
}

static fc_status check_mc(size_t steps, uint64_t paths) {
    if (steps < 1 || steps > BARRIER_MAX_STEPS)
        return fc_error(FC_ERR_INVALID, "--steps: expected 1 to %d time steps, got %zu", BARRIER_MAX_STEPS, steps);
    if (paths < 2 || paths > BARRIER_MAX_WORK / steps)
        return fc_error(FC_ERR_INVALID, "--paths %llu x --steps %zu: expected 2 paths to %.0e path steps in all",
                        (unsigned long long)paths, steps, (double)BARRIER_MAX_WORK);
    return FC_OK;
}

/* The spec of fc_mc_draw for the option: the barrier's own per-step
 * figures, and the grid arrays a backend stages with any spec (filled as
 * a European option's would be, so the staging sees a usual grid). */
static fc_status barrier_spec(const fc_barrier_option *o, size_t steps, double *grid, fc_mc_spec *spec) {
    const fc_bs_market *m = &o->market;
    double dt = m->expiry / (double)steps, drift = (m->rate - m->div - 0.5 * m->vol * m->vol) * dt;
    fc_barrier_mc_spec s = {.log_s0 = log(m->spot), .log_barrier = log(o->barrier), .strike = m->strike,
                            .rebate = o->rebate, .is_call = o->type == FC_CALL,
                            .is_up = o->kind == FC_BARRIER_UP_IN || o->kind == FC_BARRIER_UP_OUT,
                            .is_in = o->kind <= FC_BARRIER_UP_IN, .n_steps = (uint32_t)steps,
                            .drift = drift, .vol_step = m->vol * sqrt(dt),
                            .two_over_var = 2.0 / (m->vol * m->vol * dt), .disc_step = exp(-m->rate * dt)};
    double *vol = grid + steps;
    unsigned char *fixing = (unsigned char *)(vol + steps);
    for (size_t k = 0; k < steps; k++) grid[k] = drift, vol[k] = s.vol_step, fixing[k] = 0;
    *spec = (fc_mc_spec){.log_s0 = s.log_s0, .strike = m->strike, .discount = exp(-m->rate * m->expiry),
                         .is_call = s.is_call, .n_steps = s.n_steps, .drift = grid, .vol = vol, .fixing = fixing,
                         .is_barrier = 1, .barrier = s};
    return FC_OK;
}

fc_status fc_barrier_mc_price(const fc_barrier_option *o, size_t steps, uint64_t paths, uint64_t seed,
                              struct fc_backend *be, fc_barrier_mc_result *out) {
    FC_TRY(fc_barrier_check(o));
    FC_TRY(check_mc(steps, paths));
    double *grid = fc_malloc(steps * (2 * sizeof(double) + 1), "barrier path grid");
    if (!grid) return FC_ERR_MEMORY;
    fc_mc_spec spec;
    fc_mc_sums sums;
    uint64_t draws = (paths + 1) / 2;
    fc_status st = barrier_spec(o, steps, grid, &spec);
    if (st == FC_OK) st = fc_mc_run_draws(be, &spec, seed, draws, &sums);
    free(grid);
    FC_TRY(st);
    double n = (double)(2 * draws);
    out->paths = 2 * draws;
    out->price = sums.x / n;
    double var = (sums.xx - n * out->price * out->price) / (n - 1.0);
    out->std_error = sqrt((var > 0.0 ? var : 0.0) / n);
    if (!isfinite(out->price) || !isfinite(out->std_error))
        return fc_error(FC_ERR_INVALID, "the Monte Carlo barrier price is not finite (%g): the inputs are beyond "
                        "what double precision can simulate", out->price);
    return FC_OK;
}
