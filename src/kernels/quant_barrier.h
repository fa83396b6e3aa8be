/* Single-barrier European options under Black-Scholes-Merton, continuously
 * monitored: the closed form and the Monte Carlo per-path body, shared by
 * the CPU loops (src/quant/barrier.c) and any GPU that runs them later.
 *
 * Closed form: Reiner & Rubinstein (1991) as Haug writes it ("The Complete
 * Guide to Option Pricing Formulas", 4.17.1) and QuantLib's
 * AnalyticBarrierEngine computes it: the terms A..F below, combined per
 * kind, call/put and strike above/below the barrier. A knock-in's rebate is
 * paid at expiry if the barrier was never touched; a knock-out's at the
 * moment it is touched.
 *
 * Monte Carlo: exact GBM steps in log space; between two points on the
 * live side of the barrier the path's bridge crosses it with probability
 *     p = exp(-2 (b - x_k)(b - x_{k+1}) / (sigma^2 dt)),   b = ln barrier,
 * which is exact for Brownian motion with drift conditioned on its ends,
 * so weighting each path by its survival prod (1 - p_k), instead of
 * checking the points only, prices continuous monitoring without the
 * discrete-monitoring bias (Beaglehole, Dybvig & Zhou 1997). The one
 * approximation left is the knock-out rebate's discount, taken at the end
 * of the step in which the barrier was crossed. */
#ifndef FC_KERNELS_QUANT_BARRIER_H
#define FC_KERNELS_QUANT_BARRIER_H

#include <math.h>
#include <stdint.h>
#include "core/hd.h"
#include "core/rng.h"
#include "kernels/quant_normal.h"

enum { FC_BARRIER_DOWN_IN = 0, FC_BARRIER_UP_IN = 1, FC_BARRIER_DOWN_OUT = 2, FC_BARRIER_UP_OUT = 3 };

/* The inputs of the closed form. */
typedef struct {
    double spot, strike, barrier, rebate;
    double rate, div, vol, expiry;
} fc_barrier_inputs;

/* QuantLib's helpers: sd = sigma sqrt(T), mu = (r - q) / sigma^2 - 1/2. */
typedef struct {
    double S, K, H, R, sd, mu, mu_sigma, dr, dq, r, vol;
} fc_barrier_terms;

FC_HD fc_barrier_terms fc_barrier_setup(const fc_barrier_inputs *in) {
    fc_barrier_terms t;
    t.S = in->spot, t.K = in->strike, t.H = in->barrier, t.R = in->rebate, t.r = in->rate, t.vol = in->vol;
    t.sd = in->vol * sqrt(in->expiry);
    t.mu = (in->rate - in->div) / (in->vol * in->vol) - 0.5;
    t.mu_sigma = (1.0 + t.mu) * t.sd;
    t.dr = exp(-in->rate * in->expiry);
    t.dq = exp(-in->div * in->expiry);
    return t;
}

FC_HD double fc_barrier_A(const fc_barrier_terms *t, double phi) {
    double x1 = log(t->S / t->K) / t->sd + t->mu_sigma;
    return phi * (t->S * t->dq * fc_norm_cdf(phi * x1) - t->K * t->dr * fc_norm_cdf(phi * (x1 - t->sd)));
}

FC_HD double fc_barrier_B(const fc_barrier_terms *t, double phi) {
    double x2 = log(t->S / t->H) / t->sd + t->mu_sigma;
    return phi * (t->S * t->dq * fc_norm_cdf(phi * x2) - t->K * t->dr * fc_norm_cdf(phi * (x2 - t->sd)));
}

FC_HD double fc_barrier_C(const fc_barrier_terms *t, double eta, double phi) {
    double hs = t->H / t->S, pow0 = pow(hs, 2.0 * t->mu), pow1 = pow0 * hs * hs;
    double y1 = log(t->H * hs / t->K) / t->sd + t->mu_sigma;
    return phi * (t->S * t->dq * pow1 * fc_norm_cdf(eta * y1) - t->K * t->dr * pow0 * fc_norm_cdf(eta * (y1 - t->sd)));
}

FC_HD double fc_barrier_D(const fc_barrier_terms *t, double eta, double phi) {
    double hs = t->H / t->S, pow0 = pow(hs, 2.0 * t->mu), pow1 = pow0 * hs * hs;
    double y2 = log(t->H / t->S) / t->sd + t->mu_sigma;
    return phi * (t->S * t->dq * pow1 * fc_norm_cdf(eta * y2) - t->K * t->dr * pow0 * fc_norm_cdf(eta * (y2 - t->sd)));
}

/* The knock-in's rebate, paid at expiry when the barrier was never touched. */
FC_HD double fc_barrier_E(const fc_barrier_terms *t, double eta) {
    if (!(t->R > 0.0)) return 0.0;
    double pow0 = pow(t->H / t->S, 2.0 * t->mu);
    double x2 = log(t->S / t->H) / t->sd + t->mu_sigma, y2 = log(t->H / t->S) / t->sd + t->mu_sigma;
    return t->R * t->dr * (fc_norm_cdf(eta * (x2 - t->sd)) - pow0 * fc_norm_cdf(eta * (y2 - t->sd)));
}

/* The knock-out's rebate, paid when the barrier is touched. */
FC_HD double fc_barrier_F(const fc_barrier_terms *t, double eta) {
    if (!(t->R > 0.0)) return 0.0;
    double lambda = sqrt(t->mu * t->mu + 2.0 * t->r / (t->vol * t->vol));
    double hs = t->H / t->S, plus = pow(hs, t->mu + lambda), minus = pow(hs, t->mu - lambda);
    double z = log(t->H / t->S) / t->sd + lambda * t->sd;
    return t->R * (plus * fc_norm_cdf(eta * z) + minus * fc_norm_cdf(eta * (z - 2.0 * lambda * t->sd)));
}

/* The closed-form price (QuantLib's AnalyticBarrierEngine's cases). The
 * spot must be on the live side of the barrier (checked by the caller). */
FC_HD double fc_barrier_price_closed(int is_call, int kind, const fc_barrier_inputs *in) {
    fc_barrier_terms t = fc_barrier_setup(in);
    const fc_barrier_terms *p = &t;
    int above = in->strike >= in->barrier;
    if (is_call) {
        switch (kind) {
        case FC_BARRIER_DOWN_IN:
            return above ? fc_barrier_C(p, 1, 1) + fc_barrier_E(p, 1)
                         : fc_barrier_A(p, 1) - fc_barrier_B(p, 1) + fc_barrier_D(p, 1, 1) + fc_barrier_E(p, 1);
        case FC_BARRIER_UP_IN:
            return above ? fc_barrier_A(p, 1) + fc_barrier_E(p, -1)
                         : fc_barrier_B(p, 1) - fc_barrier_C(p, -1, 1) + fc_barrier_D(p, -1, 1) + fc_barrier_E(p, -1);
        case FC_BARRIER_DOWN_OUT:
            return above ? fc_barrier_A(p, 1) - fc_barrier_C(p, 1, 1) + fc_barrier_F(p, 1)
                         : fc_barrier_B(p, 1) - fc_barrier_D(p, 1, 1) + fc_barrier_F(p, 1);
        default: /* up-and-out */
            return above ? fc_barrier_F(p, -1)
                         : fc_barrier_A(p, 1) - fc_barrier_B(p, 1) + fc_barrier_C(p, -1, 1) - fc_barrier_D(p, -1, 1) +
                               fc_barrier_F(p, -1);
        }
    }
    switch (kind) {
    case FC_BARRIER_DOWN_IN:
        return above ? fc_barrier_B(p, -1) - fc_barrier_C(p, 1, -1) + fc_barrier_D(p, 1, -1) + fc_barrier_E(p, 1)
                     : fc_barrier_A(p, -1) + fc_barrier_E(p, 1);
    case FC_BARRIER_UP_IN:
        return above ? fc_barrier_A(p, -1) - fc_barrier_B(p, -1) + fc_barrier_D(p, -1, -1) + fc_barrier_E(p, -1)
                     : fc_barrier_C(p, -1, -1) + fc_barrier_E(p, -1);
    case FC_BARRIER_DOWN_OUT:
        return above ? fc_barrier_A(p, -1) - fc_barrier_B(p, -1) + fc_barrier_C(p, 1, -1) - fc_barrier_D(p, 1, -1) +
                           fc_barrier_F(p, 1)
                     : fc_barrier_F(p, 1);
    default: /* up-and-out */
        return above ? fc_barrier_B(p, -1) - fc_barrier_D(p, -1, -1) + fc_barrier_F(p, -1)
                     : fc_barrier_A(p, -1) - fc_barrier_C(p, -1, -1) + fc_barrier_F(p, -1);
    }
}

/* ---- Monte Carlo */


typedef struct {
    double log_s0, log_barrier, strike, rebate;
    int is_call, is_up, is_in;
    uint32_t n_steps;
    double drift, vol_step;   /* per step: (r - q - sigma^2/2) dt, sigma sqrt(dt) */
    double two_over_var;      /* 2 / (sigma^2 dt) */
    double disc_step;         /* e^{-r dt} */
} fc_barrier_mc_spec;

/* The probability that the bridge from x0 to x1 (both live) crossed b. */
FC_HD double fc_barrier_cross(const fc_barrier_mc_spec *s, double x0, double x1) {
    return exp(-s->two_over_var * (s->log_barrier - x0) * (s->log_barrier - x1));
}

/* One draw: two independent paths (the Box-Muller pair's lanes); out[l] is
 * path l's discounted value, its survival-weighted payoff (knock-out) or
 * its knocked-in weight (knock-in), rebates included. */
FC_HD void fc_barrier_mc_draw(const fc_barrier_mc_spec *s, uint64_t seed, uint64_t draw, double out[2]) {
    double x[2] = {s->log_s0, s->log_s0}, surv[2] = {1.0, 1.0}, rebate[2] = {0.0, 0.0}, disc = 1.0;
    for (uint32_t k = 0; k < s->n_steps; k++) {
        double z[2];
        fc_philox_out r = fc_rng_block(seed, FC_RNG_STREAM_BARRIER, draw * s->n_steps + k);
        fc_box_muller(r, &z[0], &z[1]);
        disc *= s->disc_step;
        for (int l = 0; l < 2; l++) {
            double next = x[l] + s->drift + s->vol_step * z[l];
            /* a point on the dead side (now, or earlier: the path may come
             * back) ends the path's survival; p's formula holds only between
             * two live points (across, it exceeds 1) */
            int crossed = s->is_up ? next >= s->log_barrier || x[l] >= s->log_barrier
                                   : next <= s->log_barrier || x[l] <= s->log_barrier;
            double p = crossed ? 1.0 : fc_barrier_cross(s, x[l], next);
            /* the knock-out rebate: paid (at this step's end) on the share of survival lost here */
            rebate[l] += disc * s->rebate * surv[l] * p;
            surv[l] *= 1.0 - p;
            x[l] = next;
        }
    }
    for (int l = 0; l < 2; l++) {
        double v = s->is_call ? exp(x[l]) - s->strike : s->strike - exp(x[l]);
        double payoff = disc * (v > 0.0 ? v : 0.0);
        out[l] = s->is_in ? payoff * (1.0 - surv[l]) + disc * s->rebate * surv[l] : payoff * surv[l] + rebate[l];
    }
}

#endif
