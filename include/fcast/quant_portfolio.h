/* Constrained portfolios: long-only and box constraints, target return,
 * efficient frontier, maximum Sharpe, risk parity, Ledoit-Wolf shrinkage
 * (docs/quant-portfolio.md). Included by fcast.h; include that. */
#ifndef FCAST_QUANT_PORTFOLIO_H
#define FCAST_QUANT_PORTFOLIO_H

#include "fcast/quant.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Constrained portfolios of n_assets from per-period moments: mean     */
/* (n_assets) and cov (n_assets x n_assets, row-major, symmetric        */
/* positive definite), from fcast_portfolio_moments (sample, ddof 1) or */
/* fcast_portfolio_ledoit_wolf. Weights are fully invested (sum 1) and  */
/* within per-asset bounds lower[i] <= w_i <= upper[i]: lower finite,   */
/* upper finite or +INFINITY; lower and upper NULL mean long-only       */
/* (0 and +INFINITY). Returns are per period (an annual R is R / 252).  */
/* The quadratic programmes are solved exactly by a dense active-set    */
/* method (Goldfarb-Idnani): the KKT conditions hold to ~1e-13.         */
/* Errors name the argument and index at fault ("upper[2] = -1") and    */
/* give the reachable range of a target that cannot be met.             */
/* ------------------------------------------------------------------ */

/* How a solve went. */
typedef struct {
    size_t iterations;  /* active-set changes (quadratic programmes) or Newton steps (risk parity), in all */
    size_t n_active;    /* constraints active at the solution, the budget (and target) included; 0 for risk parity */
    /* the quadratic programmes: the largest KKT residual (stationarity,
     * primal and dual feasibility, complementarity), cov scaled to
     * max|cov_ij| = 1; risk parity: max_i |RC_i - b_i| */
    double residual;
} fcast_portfolio_report;

/* Ledoit-Wolf's shrunk covariance of returns (n_periods x n_assets,
 * row-major, finite, n_periods >= 2) into cov, exactly as scikit-learn's
 * sklearn.covariance.ledoit_wolf: the returns centred on their means,
 * S = X'X / n_periods (ddof 0, unlike fcast_portfolio_moments' ddof 1),
 * cov = (1 - s) S + s (trace(S) / n_assets) I with Ledoit and Wolf's s in
 * [0, 1] (into *shrinkage unless NULL; 0 for one asset). */
fc_status fcast_portfolio_ledoit_wolf(const double *returns, size_t n_periods, size_t n_assets, double *cov,
                                      double *shrinkage);

/* Without bounds (shorts allowed, any size): the closed forms of
 * fcast_portfolio_min_variance and fcast_portfolio_target_return
 * (include/fcast/quant.h) from a covariance instead of returns, e.g.
 * fcast_portfolio_ledoit_wolf's. */
fc_status fcast_portfolio_unbounded_min_variance(const double *cov, size_t n_assets, double *weights);
fc_status fcast_portfolio_unbounded_target_return(const double *mean, const double *cov, size_t n_assets,
                                                  double target, double *weights);

/* The lowest and highest mean'w over fully invested weights in the bounds
 * (a linear programme, solved exactly): the targets that can be met. */
fc_status fcast_portfolio_return_range(const double *mean, size_t n_assets, const double *lower, const double *upper,
                                       double *lowest, double *highest);

/* The fully invested portfolio of least variance in the bounds. mean may
 * be NULL here (only the reported statistics need it elsewhere); report
 * may be NULL. */
fc_status fcast_portfolio_bounded_min_variance(const double *mean, const double *cov, size_t n_assets,
                                               const double *lower, const double *upper, double *weights,
                                               fcast_portfolio_report *report);

/* ... of least variance earning mean'w = target per period, target within
 * fcast_portfolio_return_range (else an error giving the range). */
fc_status fcast_portfolio_bounded_target_return(const double *mean, const double *cov, size_t n_assets,
                                                const double *lower, const double *upper, double target,
                                                double *weights, fcast_portfolio_report *report);

/* The efficient frontier: n_points >= 2 targets (into targets) evenly
 * spaced from the bounded minimum-variance portfolio's return to the
 * highest reachable return, and the least-variance weights earning each
 * (row k of weights, n_points x n_assets row-major). The last point is
 * the linear programme's corner when it is unique. */
fc_status fcast_portfolio_frontier(const double *mean, const double *cov, size_t n_assets, const double *lower,
                                   const double *upper, size_t n_points, double *targets, double *weights,
                                   fcast_portfolio_report *report);

/* The maximum-Sharpe (tangency) portfolio in the bounds for a risk-free
 * return per period: the convex reformulation min y'cov y subject to
 * (mean - risk_free)'y = 1, lower_i 1'y <= y_i <= upper_i 1'y, 1'y >= 0,
 * then w = y / 1'y. An error when no fully invested weights in the bounds
 * earn more than risk_free (long-only: no asset's mean above it). */
fc_status fcast_portfolio_max_sharpe(const double *mean, const double *cov, size_t n_assets, const double *lower,
                                     const double *upper, double risk_free, double *weights,
                                     fcast_portfolio_report *report);

/* Long-only risk budgeting: w > 0, sum 1, with risk contributions
 * RC_i = w_i (cov w)_i / (w'cov w) equal to budgets[i] / sum(budgets)
 * (budgets > 0; NULL: equal risk contributions, 1 / n_assets each), to
 * 1e-12 (Spinu's convex programme, Newton's method); an error otherwise. */
fc_status fcast_portfolio_risk_parity(const double *cov, size_t n_assets, const double *budgets, double *weights,
                                      fcast_portfolio_report *report);

/* RC_i of weights (any, w'cov w > 0) into contributions (n_assets): they sum to 1. */
fc_status fcast_portfolio_risk_contributions(const double *cov, size_t n_assets, const double *weights,
                                             double *contributions);

/* ------------------------------------------------------------------ */
/* `fcast quant portfolio --json` as a call: the portfolios it asks for */
/* solved and written as its one JSON object (docs/quant-portfolio.md,  */
/* "Output"), the CLI's and fcast serve's POST /v1/quant/portfolio's    */
/* one writer. Annual figures: a return R a year is R / 252 per period. */
/* ------------------------------------------------------------------ */

#define FCAST_PORTFOLIO_MAX_ASSETS 4096
#define FCAST_PORTFOLIO_MAX_FRONTIER 1000

typedef struct {
    const char *data;             /* the answer's "data": the file (or source) of the returns; NULL: "" */
    const double *returns;        /* n_periods x n_assets simple returns, row-major, finite */
    size_t n_periods, n_assets;   /* n_periods >= 2; 1 <= n_assets <= FCAST_PORTFOLIO_MAX_ASSETS */
    const char *const *ids;       /* the assets' names, in the order of the columns */
    int target_given;             /* also the minimum-variance portfolio earning target_return a year */
    double target_return;
    /* NULL both: fully invested, shorts allowed (closed forms); else the
     * per-asset bounds (lower finite, upper finite or +INFINITY) and the
     * bounded quadratic programmes */
    const double *lower, *upper;
    size_t frontier;              /* 0: none; else 2 to FCAST_PORTFOLIO_MAX_FRONTIER points (bounded only) */
    int max_sharpe;               /* the maximum-Sharpe portfolio (bounded only) */
    double risk_free;             /* a year, for Sharpe ratios and max_sharpe */
    int risk_parity;              /* the long-only risk-budgeting portfolio */
    const double *budgets;        /* its budgets (n_assets, > 0), NULL: equal; only with risk_parity */
    int ledoit_wolf;              /* 1: the Ledoit-Wolf covariance; 0: the sample one (ddof 1) */
} fcast_portfolio_request;

/* Minimum variance, then the target return, maximum Sharpe, risk parity
 * and the frontier's points as asked, into *json (malloc'd, no trailing
 * newline; free it): {"data", "n_assets", "n_returns", "periods_per_year",
 * "covariance", "shrinkage", "risk_free", "bounds", "portfolios": [{"name",
 * "target_return", "annual_return", "annual_volatility", "sharpe",
 * "weights", "risk_contributions", "solver", ...}]}, reals as %.17g, null
 * where not finite. *json is NULL on an error (the failing solve's message). */
fc_status fcast_portfolio_json(const fcast_portfolio_request *request, char **json);

/* The same portfolios in any of `fcast quant portfolio`'s outputs, into
 * *text (malloc'd; free it): its one JSON object (as fcast_portfolio_json,
 * no trailing newline), its CSV (`--csv`: a header, then a row per
 * portfolio: portfolio, target_return, annual_return, annual_volatility,
 * sharpe and a weight per asset, %.17g, empty where NaN) or its table (the
 * default: a heading line per portfolio with its annual return,
 * volatility and Sharpe, then its weights; the frontier as one table). */
typedef enum { FCAST_PORTFOLIO_JSON = 0, FCAST_PORTFOLIO_CSV = 1, FCAST_PORTFOLIO_TABLE = 2 } fcast_portfolio_format;
fc_status fcast_portfolio_answer(const fcast_portfolio_request *request, fcast_portfolio_format format, char **text);

#ifdef __cplusplus
}
#endif
#endif
