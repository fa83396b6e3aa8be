/* Geometric Brownian motion paths and option payoffs for Monte Carlo, shared
 * by the CPU loop (src/quant/mc_options.c) and the CUDA kernels
 * (src/backend/cuda/cuda_quant.cu: one thread per draw, one per chunk sum).
 *
 * Random numbers come from the counter of what is computed, never from who
 * computes it: the normals of draw d at step k are the Box-Muller pair of
 * Philox block (seed, FC_RNG_STREAM_PATHS, d * n_steps + k). The pair's two
 * normals drive two independent samples ("lanes"), so no random bit is
 * wasted; with antithetic variates each lane is a pair of paths (+z, -z)
 * whose payoffs are averaged into one sample. A draw thus yields 2 samples
 * and 2 (plain) or 4 (antithetic) paths, identically for any thread count.
 *
 * Paths evolve in log space with the exact GBM transition
 *   log S(t+dt) = log S(t) + (r - q - sigma^2/2) dt + sigma sqrt(dt) z,
 * so one step per fixing date is exact and adds no discretisation bias. */
#ifndef FC_KERNELS_QUANT_PATHS_H
#define FC_KERNELS_QUANT_PATHS_H

#include <math.h>
#include <stdint.h>
#include "core/hd.h"
#include "core/rng.h"
#include "kernels/quant_barrier.h"
#include "kernels/quant_lsm.h"


/* Everything a draw needs; the arrays are per time step. (Tagged so that
 * backend.h can name it without including this header.) */
typedef struct fc_mc_spec {
    double log_s0;
    double strike;
    double discount;              /* e^{-rT}, applied to every payoff */
    int is_call;
    int is_asian;                 /* 0: payoff on S(T); 1: on the averages */
    int antithetic;
    uint32_t n_steps;
    const double *drift;          /* (n_steps) (r - q - sigma^2/2) dt_k */
    const double *vol;            /* (n_steps) sigma sqrt(dt_k) */
    const unsigned char *fixing;  /* (n_steps) 1 if the end of step k is an averaging date */
    uint32_t n_fixings_at_zero;   /* fixings at t = 0: today's spot counts that often */
    uint32_t n_fixings;           /* all fixings, those at t = 0 included */
    double terminal_base;         /* S0 exp(sum_k drift_k): S(T) = terminal_base e^{sum_k vol_k z_k} */
    /* A barrier option (is_barrier 1): each draw is fc_barrier_mc_draw's
     * two paths, by value so that a device gets it with the spec; n_steps
     * and the arrays above still describe its grid (a backend stages them
     * whatever the option), the draw reads the barrier spec's own. */
    int is_barrier;
    fc_barrier_mc_spec barrier;
    /* The pricing pass of Longstaff-Schwartz (is_lsm 1): fc_lsm_price_draw
     * with the regression coefficients coef (n_coef), an array a backend
     * stages as it stages the grid's (lsm.beta is not read: coef is). */
    int is_lsm;
    fc_lsm_spec lsm;
    const double *coef;
    uint32_t n_coef;
} fc_mc_spec;

/* One Monte Carlo sample: x the discounted payoff priced (European, or the
 * arithmetic-average Asian), y the discounted geometric-average payoff, the
 * Asian's control variate (0 for European options). */
typedef struct {
    double x, y;
} fc_mc_sample;

/* Sums over a chunk of samples: x, y, x^2, y^2, xy. */
typedef struct fc_mc_sums {
    double x, y, xx, yy, xy;
} fc_mc_sums;

/* Adds one draw's two samples to a chunk's sums, lane 0 then lane 1: the
 * CPU and the GPU add every chunk through this one body, in draw order, so
 * equal samples give equal sums to the last bit. */
FC_HD void fc_mc_sums_add(fc_mc_sums *acc, const fc_mc_sample s[2]) {
    for (int l = 0; l < 2; l++) {
        acc->x += s[l].x;
        acc->y += s[l].y;
        acc->xx += s[l].x * s[l].x;
        acc->yy += s[l].y * s[l].y;
        acc->xy += s[l].x * s[l].y;
    }
}

FC_HD double fc_vanilla_payoff(int is_call, double s, double k) {
    double v = is_call ? s - k : k - s;
    return v > 0.0 ? v : 0.0;
}

FC_HD void fc_path_normals(uint64_t seed, uint64_t draw, uint32_t n_steps, uint32_t step,
                           double *z0, double *z1) {
    fc_philox_out r = fc_rng_block(seed, FC_RNG_STREAM_PATHS, draw * n_steps + step);
    fc_box_muller(r, z0, z1);
}

/* Discounted payoffs of one path given its terminal log price and, for an
 * Asian, the running sums of fixings (prices and log prices). */
FC_HD fc_mc_sample fc_mc_path_payoff(const fc_mc_spec *s, double log_st, double sum_s,
                                     double sum_log_s) {
    fc_mc_sample o;
    if (!s->is_asian) {
        o.x = s->discount * fc_vanilla_payoff(s->is_call, exp(log_st), s->strike);
        o.y = 0.0;
        return o;
    }
    double n = (double)s->n_fixings;
    o.x = s->discount * fc_vanilla_payoff(s->is_call, sum_s / n, s->strike);
    o.y = s->discount * fc_vanilla_payoff(s->is_call, exp(sum_log_s / n), s->strike);
    return o;
}

/* European draw: only S(T) matters, S(T) = terminal_base e^{W} with
 * W = sum_k vol_k z_k, and the antithetic path is terminal_base e^{-W}:
 * one exp per lane instead of one per path. */
FC_HD void fc_mc_draw_european(const fc_mc_spec *s, uint64_t seed, uint64_t draw, fc_mc_sample out[2]) {
    double w[2] = {0.0, 0.0};
    for (uint32_t k = 0; k < s->n_steps; k++) {
        double z0, z1;
        fc_path_normals(seed, draw, s->n_steps, k, &z0, &z1);
        w[0] += s->vol[k] * z0;
        w[1] += s->vol[k] * z1;
    }
    for (int lane = 0; lane < 2; lane++) {
        double e = exp(w[lane]), up = s->terminal_base * e;
        double v = fc_vanilla_payoff(s->is_call, up, s->strike);
        if (s->antithetic) v = 0.5 * (v + fc_vanilla_payoff(s->is_call, s->terminal_base / e, s->strike));
        out[lane].x = s->discount * v;
        out[lane].y = 0.0;
    }
}

/* Asian draw: paths are followed fixing by fixing in log space.
 * Path j of the draw: lane j >> 1, sign + for even j, - for odd j (antithetic). */
FC_HD void fc_mc_draw_asian(const fc_mc_spec *s, uint64_t seed, uint64_t draw, fc_mc_sample out[2]) {
    const int n_paths = s->antithetic ? 4 : 2;
    double log_s[4], sum_s[4], sum_log[4];
    for (int j = 0; j < 4; j++) {
        log_s[j] = s->log_s0;
        sum_s[j] = (double)s->n_fixings_at_zero * exp(s->log_s0);
        sum_log[j] = (double)s->n_fixings_at_zero * s->log_s0;
    }
    for (uint32_t k = 0; k < s->n_steps; k++) {
        double z[2];
        fc_path_normals(seed, draw, s->n_steps, k, &z[0], &z[1]);
        for (int j = 0; j < n_paths; j++) {
            double zj = s->antithetic ? ((j & 1) ? -z[j >> 1] : z[j >> 1]) : z[j];
            log_s[j] += s->drift[k] + s->vol[k] * zj;
            if (s->fixing[k]) {
                sum_s[j] += exp(log_s[j]);
                sum_log[j] += log_s[j];
            }
        }
    }
    for (int lane = 0; lane < 2; lane++) {
        if (s->antithetic) {
            int a = 2 * lane, b = 2 * lane + 1;
            fc_mc_sample pa = fc_mc_path_payoff(s, log_s[a], sum_s[a], sum_log[a]);
            fc_mc_sample pb = fc_mc_path_payoff(s, log_s[b], sum_s[b], sum_log[b]);
            out[lane].x = 0.5 * (pa.x + pb.x);
            out[lane].y = 0.5 * (pa.y + pb.y);
        } else {
            out[lane] = fc_mc_path_payoff(s, log_s[lane], sum_s[lane], sum_log[lane]);
        }
    }
}

/* Simulates draw `draw`: out[0] and out[1] are its two independent samples. */
FC_HD void fc_mc_draw(const fc_mc_spec *s, uint64_t seed, uint64_t draw, fc_mc_sample out[2]) {
    double v[2];
    if (s->is_barrier || s->is_lsm) {
        if (s->is_barrier) {
            fc_barrier_mc_draw(&s->barrier, seed, draw, v);
        } else {
            fc_lsm_spec l = s->lsm;
            l.beta = s->coef;   /* where this device holds them */
            fc_lsm_price_draw(&l, seed, draw, v);
        }
        out[0].x = v[0], out[0].y = 0.0;
        out[1].x = v[1], out[1].y = 0.0;
    } else if (s->is_asian)
        fc_mc_draw_asian(s, seed, draw, out);
    else
        fc_mc_draw_european(s, seed, draw, out);
}

#endif
