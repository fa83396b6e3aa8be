/* Longstaff-Schwartz Monte Carlo for American options (src/quant/lsm.c):
 * the per-path bodies, shared by the CPU loop and any GPU that runs them
 * later.
 *
 * Paths are geometric Brownian motion on N equal steps, log S(t_k) =
 * log S0 + (r - q - sigma^2/2) t_k + sigma W(t_k), and the option may be
 * exercised at t_1 .. t_N (and today): a Bermudan option with N dates,
 * the usual stand-in for the American one.
 *
 * No path is ever stored. The regression (calibration) paths are walked
 * backward from expiry by a Brownian bridge: W(t_N) = sqrt(T) z_N, then
 *     W(t_k) = k/(k+1) W(t_{k+1}) + sqrt(k dt / (k+1)) z_k,
 * each z from the counter of its (path, step), so that one value per path
 * is kept whatever N. The pricing paths, independent of those, walk
 * forward and stop at the first date where exercise beats the regressed
 * continuation value; each pricing path has its mirror (-z, antithetic
 * variates), and a sample is the pair's mean. Normals come in Box-Muller
 * pairs: one Philox block drives two calibration paths ("lanes"), or two
 * pricing pairs, at a step.
 *
 * The two sets use streams of their own (not listed in core/rng.h, whose
 * owner may add them there): their draws are independent of each other
 * and of every other use of the generator. */
#ifndef FC_KERNELS_QUANT_LSM_H
#define FC_KERNELS_QUANT_LSM_H

#include <math.h>
#include <stdint.h>
#include "core/hd.h"
#include "core/rng.h"

#define FC_LSM_MAX_DEGREE 8

typedef struct {
    double spot, strike;
    int is_call;
    uint32_t n_steps;
    double dt, sqrt_dt;
    double mu;          /* r - q - sigma^2/2 */
    double log_k_over_s0;
    double vol;
    double disc_step;   /* e^{-r dt} */
    int degree;         /* basis 1, x, .., x^degree of x = S / K */
    const double *beta; /* (n_steps - 1) x (degree + 1): step k's coefficients at (k - 1) (degree + 1) */
} fc_lsm_spec;

FC_HD double fc_lsm_payoff(const fc_lsm_spec *s, double S) {
    double v = s->is_call ? S - s->strike : s->strike - S;
    return v > 0.0 ? v : 0.0;
}

FC_HD double fc_lsm_price_at(const fc_lsm_spec *s, uint32_t k, double w) {
    return s->spot * exp(s->mu * s->dt * (double)k + s->vol * w);
}

/* The basis at S: x^0 .. x^degree of x = S / K (K scales it near 1, which
 * keeps the normal equations well conditioned). */
FC_HD void fc_lsm_basis(const fc_lsm_spec *s, double S, double *phi) {
    double x = S / s->strike, p = 1.0;
    for (int j = 0; j <= s->degree; j++, p *= x) phi[j] = p;
}

/* The regressed continuation value at step k (1 <= k < n_steps). */
FC_HD double fc_lsm_continuation(const fc_lsm_spec *s, uint32_t k, double S) {
    const double *b = s->beta + (size_t)(k - 1) * (size_t)(s->degree + 1);
    double x = S / s->strike, v = 0.0;
    for (int j = s->degree; j >= 0; j--) v = v * x + b[j];   /* Horner */
    return v;
}

/* The two normals of draw d (two paths) at slot k of a stream. */
FC_HD void fc_lsm_normals(uint64_t seed, uint32_t stream, uint64_t draw, uint32_t n_steps, uint32_t k, double z[2]) {
    fc_philox_out r = fc_rng_block(seed, stream, draw * n_steps + k);
    fc_box_muller(r, &z[0], &z[1]);
}

/* Calibration: W(T) of draw d's two paths. */
FC_HD void fc_lsm_terminal(const fc_lsm_spec *s, uint64_t seed, uint64_t draw, double w[2]) {
    double z[2];
    fc_lsm_normals(seed, FC_RNG_STREAM_LSM_CALIBRATION, draw, s->n_steps, s->n_steps - 1, z);
    double sqrt_t = sqrt(s->dt * (double)s->n_steps);
    w[0] = sqrt_t * z[0];
    w[1] = sqrt_t * z[1];
}

/* Calibration: W(t_{k+1}) -> W(t_k) for draw d's two paths (1 <= k < n_steps). */
FC_HD void fc_lsm_bridge_back(const fc_lsm_spec *s, uint64_t seed, uint64_t draw, uint32_t k, double w[2]) {
    double z[2];
    fc_lsm_normals(seed, FC_RNG_STREAM_LSM_CALIBRATION, draw, s->n_steps, k - 1, z);
    double a = (double)k / (double)(k + 1), sd = sqrt(a * s->dt);
    w[0] = a * w[0] + sd * z[0];
    w[1] = a * w[1] + sd * z[1];
}

/* Whether path value w at step k is in the money, in log space (no exp:
 * most out-of-the-money steps need none). */
FC_HD int fc_lsm_in_money(const fc_lsm_spec *s, uint32_t k, double w) {
    double log_ratio = s->mu * s->dt * (double)k + s->vol * w;   /* ln(S / S0) */
    return s->is_call ? log_ratio > s->log_k_over_s0 : log_ratio < s->log_k_over_s0;
}

/* Pricing: draw d's two samples, each the mean discounted cash flow of a
 * path and its mirror (-z: antithetic), every path stopped at the first
 * date where exercise is worth at least the regressed continuation (or at
 * expiry). Path j: lane j >> 1, sign + for even j. */
FC_HD void fc_lsm_price_draw(const fc_lsm_spec *s, uint64_t seed, uint64_t draw, double out[2]) {
    double w[4] = {0.0, 0.0, 0.0, 0.0}, cash[4] = {0.0, 0.0, 0.0, 0.0}, disc = 1.0;
    int live[4] = {1, 1, 1, 1}, n_live = 4;
    for (uint32_t k = 1; k <= s->n_steps && n_live; k++) {
        double z[2];
        fc_lsm_normals(seed, FC_RNG_STREAM_LSM_PRICING, draw, s->n_steps, k - 1, z);
        disc *= s->disc_step;
        for (int j = 0; j < 4; j++) {
            if (!live[j]) continue;
            w[j] += s->sqrt_dt * ((j & 1) ? -z[j >> 1] : z[j >> 1]);
            if (!fc_lsm_in_money(s, k, w[j])) {
                if (k == s->n_steps) live[j] = 0, n_live--;   /* expires worthless */
                continue;
            }
            double S = fc_lsm_price_at(s, k, w[j]), ex = fc_lsm_payoff(s, S);
            if (k == s->n_steps || ex >= fc_lsm_continuation(s, k, S)) {
                cash[j] = disc * ex;
                live[j] = 0, n_live--;
            }
        }
    }
    out[0] = 0.5 * (cash[0] + cash[1]);
    out[1] = 0.5 * (cash[2] + cash[3]);
}

#endif
