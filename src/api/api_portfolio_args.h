/* The argument checks the constrained-portfolio functions of
 * fcast/quant_portfolio.h share (api_portfolio_qp.c, api_risk_parity.c,
 * api_ledoit_wolf.c): messages start with the function's name and name
 * the argument and the index at fault. */
#ifndef FC_API_API_PORTFOLIO_ARGS_H
#define FC_API_API_PORTFOLIO_ARGS_H

#include <stddef.h>
#include "fcast.h"

/* n_assets in 1 .. PORTFOLIO_MAX_ASSETS; cov non-NULL, finite and
 * symmetric (to 1e-12 of its largest entry); mean, when need_mean, non-NULL
 * and finite. */
fc_status fc_api_portfolio_moments_check(const char *fn, const double *mean, int need_mean, const double *cov,
                                         size_t n_assets);

/* A (n_periods, n_assets) row-major matrix of returns: non-NULL, n_periods
 * >= 2, n_assets in 1 .. PORTFOLIO_MAX_ASSETS, not beyond memory, every
 * value finite (the message names the period and the asset). */
fc_status fc_api_portfolio_returns_check(const char *fn, const double *R, size_t n_periods, size_t n_assets);

/* The bounds to use: lower/upper, or (both NULL) long-only in *owned
 * (2 n_assets, malloc'd; free it); one NULL without the other is an error. */
fc_status fc_api_portfolio_bounds(const char *fn, const double *lower, const double *upper, size_t n_assets,
                                  const double **lo, const double **hi, double **owned);

/* The engine's status, its message prefixed "fn: ". */
fc_status fc_api_portfolio_engine(fc_status st, const char *fn);

#endif
