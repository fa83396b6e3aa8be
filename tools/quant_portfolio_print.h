/* The output of fcast quant portfolio (tools/cmd_quant_portfolio.c): each
 * portfolio's annual return, volatility, Sharpe ratio, weights and risk
 * contributions as a table or CSV rows (docs/quant-portfolio.md,
 * "Output"); the JSON object is the library's (fcast_portfolio_json). */
#ifndef FCAST_TOOLS_QUANT_PORTFOLIO_PRINT_H
#define FCAST_TOOLS_QUANT_PORTFOLIO_PRINT_H

#include <stdio.h>
#include "fcast.h"

#define PF_PERIODS_PER_YEAR 252.0   /* fcast_risk's year */

typedef enum { PF_TEXT, PF_CSV } pf_format;   /* --json: fcast_portfolio_json */

typedef struct {
    char name[32];        /* min_variance, target_return, max_sharpe, risk_parity, frontier_K */
    char title[96];       /* the table's heading */
    double target;        /* the annual target return, NaN when none */
    double *w;            /* n_assets weights */
    fcast_portfolio_report report;
    int solver;           /* 0: closed form (no report), 1: active set, 2: Newton */
} pf_result;

typedef struct {
    const char *path;
    const fcast_returns *r;
    const double *mu, *cov;   /* per period; cov the one the weights used */
    const char *cov_name;     /* "sample" or "ledoit-wolf" */
    double shrinkage;         /* NaN for the sample covariance */
    double rf_annual;
    const double *lo, *hi;    /* the bounds, NULL when unbounded */
    const pf_result *res;
    size_t n_res;
    pf_format format;
} pf_output;

/* The body of fcast_write_file for ctx = a pf_output. */
fc_status pf_write(FILE *f, void *ctx);

#endif
