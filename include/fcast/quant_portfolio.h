/* Constrained portfolios: long-only and box constraints, target return,
 * efficient frontier, maximum Sharpe, risk parity, Ledoit-Wolf shrinkage
 * (docs/quant-portfolio.md). Included by fcast.h; include that. */
#ifndef FCAST_QUANT_PORTFOLIO_H
#define FCAST_QUANT_PORTFOLIO_H

#include "fcast/quant.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __cplusplus
}
#endif
#endif
