/* Barrier options (see barrier.h): the checks, the closed form over the
 * kernel's terms, and the Monte Carlo loop in fixed chunks whose sums are
 * added in chunk order. */
#include "quant/barrier.h"

#include <math.h>
#include <stdlib.h>
#include "core/error.h"
#include "kernels/quant_barrier.h"

#define BARRIER_CHUNK_DRAWS 2048
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

fc_status fc_barrier_mc_price(const fc_barrier_option *o, size_t steps, uint64_t paths, uint64_t seed,
                              fc_barrier_mc_result *out) {
    FC_TRY(fc_barrier_check(o));
    FC_TRY(check_mc(steps, paths));
    const fc_bs_market *m = &o->market;
    double dt = m->expiry / (double)steps;
    fc_barrier_mc_spec s = {.log_s0 = log(m->spot), .log_barrier = log(o->barrier), .strike = m->strike,
                            .rebate = o->rebate, .is_call = o->type == FC_CALL,
                            .is_up = o->kind == FC_BARRIER_UP_IN || o->kind == FC_BARRIER_UP_OUT,
                            .is_in = o->kind <= FC_BARRIER_UP_IN, .n_steps = (uint32_t)steps,
                            .drift = (m->rate - m->div - 0.5 * m->vol * m->vol) * dt, .vol_step = m->vol * sqrt(dt),
                            .two_over_var = 2.0 / (m->vol * m->vol * dt), .disc_step = exp(-m->rate * dt)};
    uint64_t draws = (paths + 1) / 2, n_chunks = (draws + BARRIER_CHUNK_DRAWS - 1) / BARRIER_CHUNK_DRAWS;
    double *sums = fc_malloc((size_t)n_chunks * 2 * sizeof *sums, "Monte Carlo chunk sums");
    if (!sums) return FC_ERR_MEMORY;
    #pragma omp parallel for schedule(dynamic, 4)
    for (int64_t c = 0; c < (int64_t)n_chunks; c++) {
        uint64_t first = (uint64_t)c * BARRIER_CHUNK_DRAWS;
        uint64_t end = first + BARRIER_CHUNK_DRAWS < draws ? first + BARRIER_CHUNK_DRAWS : draws;
        double x = 0.0, xx = 0.0;
        for (uint64_t d = first; d < end; d++) {
            double v[2];
            fc_barrier_mc_draw(&s, seed, d, v);
            x += v[0] + v[1];
            xx += v[0] * v[0] + v[1] * v[1];
        }
        sums[2 * c] = x, sums[2 * c + 1] = xx;
    }
    double x = 0.0, xx = 0.0, n = (double)(2 * draws);
    for (uint64_t c = 0; c < n_chunks; c++) x += sums[2 * c], xx += sums[2 * c + 1];
    free(sums);
    out->paths = 2 * draws;
    out->price = x / n;
    double var = (xx - n * out->price * out->price) / (n - 1.0);
    out->std_error = sqrt((var > 0.0 ? var : 0.0) / n);
    if (!isfinite(out->price) || !isfinite(out->std_error))
        return fc_error(FC_ERR_INVALID, "the Monte Carlo barrier price is not finite (%g): the inputs are beyond "
                        "what double precision can simulate", out->price);
    return FC_OK;
}
