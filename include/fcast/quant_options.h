/* Options beyond Black-Scholes and European/Asian Monte Carlo: implied
 * volatility, American options (binomial tree, Longstaff-Schwartz), barrier
 * options and Monte Carlo Greeks (docs/quant-options.md). Included by
 * fcast.h; include that. */
#ifndef FCAST_QUANT_OPTIONS_H
#define FCAST_QUANT_OPTIONS_H

#include "fcast/quant.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
