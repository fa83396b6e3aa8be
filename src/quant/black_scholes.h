/* Closed forms for options on a stock with continuous dividend yield q under
 * Black-Scholes-Merton: European price and Greeks, and the discrete
 * geometric-average Asian (Kemna & Vorst 1990, discrete version as in
 * QuantLib's AnalyticDiscreteGeometricAveragePriceAsianEngine), which is the
 * expectation of the Monte Carlo control variate.
 *
 * Units (QuantLib's): vega and rho per 1.00 of volatility / rate (divide by
 * 100 for "per point"), theta per year of calendar time (divide by 365 or 252
 * for per day). Times are in years. */
#ifndef FC_QUANT_BLACK_SCHOLES_H
#define FC_QUANT_BLACK_SCHOLES_H

#include <stddef.h>
#include "fcast/status.h"

typedef enum { FC_PUT = 0, FC_CALL = 1 } fc_option_type;

typedef struct {
    double spot;   /* S > 0 */
    double strike; /* K > 0 */
    double rate;   /* r, continuously compounded */
    double div;    /* q, continuous dividend yield */
    double vol;    /* sigma > 0 */
    double expiry; /* T > 0, years */
} fc_bs_market;

typedef struct {
    double price, delta, gamma, vega, theta, rho;
} fc_bs_greeks;

/* Checks S, K, sigma, T > 0 and finite r, q; the message names the field
 * with its CLI spelling (--S, --K, --sigma, --T, --r, --q). */
fc_status fc_bs_check(const fc_bs_market *m);

/* European price and Greeks (analytic). */
fc_status fc_bs_european(fc_option_type type, const fc_bs_market *m, fc_bs_greeks *out);

/* Discrete geometric-average price option: payoff max(+-(G - K), 0) at
 * m->expiry with G = (prod S(t_i))^(1/n) over the n fixing times t[0..n)
 * (sorted, in [0, expiry]; t = 0 means today's spot is a fixing). */
fc_status fc_geometric_asian_price(fc_option_type type, const fc_bs_market *m,
                                   const double *t, size_t n, double *price);

#endif
