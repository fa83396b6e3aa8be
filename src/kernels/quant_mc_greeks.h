/* Monte Carlo Greeks of a European option under GBM, per path, shared by
 * the CPU loop (src/quant/mc_greeks.c) and any GPU that runs it later.
 *
 * S_T = S0 exp((r - q - sigma^2/2) T + sigma sqrt(T) z), the payoff
 * f = max(theta (S_T - K), 0) discounted by D = e^{-rT}, theta = +-1.
 *   pathwise (differentiate the payoff along the path; f is Lipschitz):
 *     delta = D theta 1{ITM} S_T / S0
 *     vega  = D theta 1{ITM} S_T (sqrt(T) z - sigma T)
 *   likelihood ratio (differentiate the density of z instead; any payoff):
 *     delta = D f z / (S0 sigma sqrt(T))
 *     gamma = D f (z^2 - 1 - z sigma sqrt(T)) / (S0^2 sigma^2 T)
 *     vega  = D f ((z^2 - 1) / sigma - z sqrt(T))
 * (Glasserman, "Monte Carlo Methods in Financial Engineering", 7.2-7.3).
 * The normals are those of the European Monte Carlo price at one step
 * (kernels/quant_paths.h: draw d's Box-Muller pair, two paths), so the
 * Greeks come from the very paths of `fcast quant option`'s price. */
#ifndef FC_KERNELS_QUANT_MC_GREEKS_H
#define FC_KERNELS_QUANT_MC_GREEKS_H

#include <math.h>
#include <stdint.h>
#include "core/hd.h"
#include "kernels/quant_paths.h"

enum { FC_GREEKS_PATHWISE = 1, FC_GREEKS_LR = 2 };

typedef struct {
    double spot, strike, disc, sd, vol, expiry;   /* sd = sigma sqrt(T) */
    double base;                                  /* S0 exp((r - q - sigma^2/2) T) */
    int is_call, method, antithetic;
} fc_greeks_spec;

/* The three estimates (delta, gamma, vega) of one path with normal z;
 * pathwise has no gamma (its payoff derivative is a step): 0. */
FC_HD void fc_greeks_path(const fc_greeks_spec *s, double z, double g[3]) {
    double st = s->base * exp(s->sd * z), theta = s->is_call ? 1.0 : -1.0;
    double v = theta * (st - s->strike), f = s->disc * (v > 0.0 ? v : 0.0);
    if (s->method == FC_GREEKS_PATHWISE) {
        double itm = v > 0.0 ? s->disc * theta * st : 0.0;
        g[0] = itm / s->spot;
        g[1] = 0.0;
        g[2] = itm * (sqrt(s->expiry) * z - s->vol * s->expiry);
        return;
    }
    g[0] = f * z / (s->spot * s->sd);
    g[1] = f * (z * z - 1.0 - z * s->sd) / (s->spot * s->spot * s->sd * s->sd);
    g[2] = f * ((z * z - 1.0) / s->vol - z * sqrt(s->expiry));
}

/* Draw d's two samples (each the mean over +z and -z when antithetic). */
FC_HD void fc_greeks_draw(const fc_greeks_spec *s, uint64_t seed, uint64_t draw, double out[2][3]) {
    double z[2];
    fc_path_normals(seed, draw, 1, 0, &z[0], &z[1]);
    for (int l = 0; l < 2; l++) {
        fc_greeks_path(s, z[l], out[l]);
        if (!s->antithetic) continue;
        double m[3];
        fc_greeks_path(s, -z[l], m);
        for (int k = 0; k < 3; k++) out[l][k] = 0.5 * (out[l][k] + m[k]);
    }
}

#endif
