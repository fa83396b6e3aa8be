/* The constrained portfolio problems of portfolio_qp.h, written as
 * qp_dense.h programmes: the budget 1'w = 1 (and the target mu'w = R) as
 * equalities, each finite bound as one inequality on one weight. */
#include "quant/portfolio_qp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "quant/portfolio.h"

/* Messages give returns a year too, as the CLI's flags take them. */
#define PERIODS_PER_YEAR 252.0

fc_status fc_box_check(const fc_box *b, size_t N) {
    if (N < 1 || N > PORTFOLIO_MAX_ASSETS)
        return fc_error(FC_ERR_INVALID, "portfolio: expected 1 to %d assets, got %zu", PORTFOLIO_MAX_ASSETS, N);
    double lo_sum = 0.0, hi_sum = 0.0;
    for (size_t i = 0; i < N; i++) {
        double lo = b->lower[i], hi = b->upper[i];
        if (!isfinite(lo))
            return fc_error(FC_ERR_INVALID, "lower[%zu] = %g: the lower bound of a weight must be finite "
                            "(-1 allows a short of the whole capital)", i, lo);
        if (isnan(hi) || hi == -INFINITY)
            return fc_error(FC_ERR_INVALID, "upper[%zu] = %g: expected a number or +inf", i, hi);
        if (lo > hi) return fc_error(FC_ERR_INVALID, "lower[%zu] = %g > upper[%zu] = %g", i, lo, i, hi);
        lo_sum += lo, hi_sum += hi;
    }
    /* 1e-12: bounds of 1/N each sum to 1 up to rounding */
    if (lo_sum > 1.0 + 1e-12)
        return fc_error(FC_ERR_INVALID, "the lower bounds sum to %.12g > 1: fully invested weights cannot reach them "
                        "(--min-weight x %zu assets must be at most 1)", lo_sum, N);
    if (hi_sum < 1.0 - 1e-12)
        return fc_error(FC_ERR_INVALID, "the upper bounds sum to %.12g < 1: fully invested weights cannot reach 1 "
                        "(--max-weight x %zu assets must be at least 1)", hi_sum, N);
    return FC_OK;
}

/* Asset order by mean, highest first (ties by index, for determinism). */
static const double *g_sort_mu;
static int by_mean_desc(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (g_sort_mu[i] != g_sort_mu[j]) return g_sort_mu[i] > g_sort_mu[j] ? -1 : 1;
    return i < j ? -1 : (i > j);
}

/* Greedy fill from w = lo of the mass 1 - sum lo in the order of `order`;
 * returns the position of the marginal asset (the last one filled). */
static size_t greedy_fill(const fc_box *b, const size_t *order, size_t N, double *w) {
    double mass = 1.0;
    for (size_t i = 0; i < N; i++) w[i] = b->lower[i], mass -= b->lower[i];
    size_t last = 0;
    for (size_t k = 0; k < N && mass > 0.0; k++) {
        size_t i = order[k];
        double room = b->upper[i] - b->lower[i], add = fmin(room, mass);
        w[i] = add == room ? b->upper[i] : w[i] + add;   /* lo + (hi - lo) may round off hi */
        mass -= add, last = k;
    }
    return last;
}

static size_t *mean_order(const double *mu, size_t N, int descending) {
    size_t *order = fc_malloc(N * sizeof *order, "asset order");
    if (!order) return NULL;
    for (size_t i = 0; i < N; i++) order[i] = i;
    g_sort_mu = mu;
    qsort(order, N, sizeof *order, by_mean_desc);
    if (!descending)
        for (size_t i = 0; i < N / 2; i++) {
            size_t t = order[i];
            order[i] = order[N - 1 - i], order[N - 1 - i] = t;
        }
    return order;
}

static double dot(const double *a, const double *b, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += a[i] * b[i];
    return s;
}

void fc_box_return_range(const fc_box *b, const double *mu, size_t N, double *lowest, double *highest) {
    double *w = fc_malloc(N * sizeof *w, "greedy weights");
    size_t *hi = mean_order(mu, N, 1), *lo = mean_order(mu, N, 0);
    *lowest = -INFINITY, *highest = INFINITY;
    if (w && hi && lo) {
        greedy_fill(b, hi, N, w), *highest = dot(w, mu, N);
        greedy_fill(b, lo, N, w), *lowest = dot(w, mu, N);
    }
    free(w), free(hi), free(lo);
}

int fc_box_highest_weights(const fc_box *b, const double *mu, size_t N, double *w) {
    size_t *order = mean_order(mu, N, 1);
    if (!order) return 0;
    size_t m = greedy_fill(b, order, N, w);
    /* unique unless another asset of the marginal mean could take its place */
    int unique = 1;
    for (size_t k = 0; k < N; k++)
        if (k != m && mu[order[k]] == mu[order[m]]) unique = 0;
    free(order);
    return unique;
}

/* The constraints of the fully invested box problem: budget, target (if
 * any), then lower and upper bounds (infinite upper bounds left out). */
static size_t box_constraints(const fc_box *b, const double *mu, size_t N, const double *target,
                              fc_qp_constraint *con, size_t *n_eq) {
    size_t m = 0;
    con[m++] = (fc_qp_constraint){.coef_sum = 1.0, .rhs = 1.0};
    if (target) con[m++] = (fc_qp_constraint){.row = mu, .rhs = *target};
    *n_eq = m;
    for (size_t i = 0; i < N; i++) con[m++] = (fc_qp_constraint){.index = i, .coef_index = 1.0, .rhs = b->lower[i]};
    for (size_t i = 0; i < N; i++)
        if (isfinite(b->upper[i])) con[m++] = (fc_qp_constraint){.index = i, .coef_index = -1.0, .rhs = -b->upper[i]};
    return m;
}

static fc_status check_target(const fc_box *b, const double *mu, size_t N, double target) {
    if (!isfinite(target)) return fc_error(FC_ERR_INVALID, "--target-return: expected a finite number");
    double lo, hi;
    fc_box_return_range(b, mu, N, &lo, &hi);
    const double slack = 1e-12 * fmax(fabs(lo), fabs(hi));   /* the range's own rounding */
    if (target > hi + slack || target < lo - slack)
        return fc_error(FC_ERR_INVALID, "--target-return %.6g a year is %s the %s return reachable under the bounds "
                        "(reachable: %.6g to %.6g a year)", target * PERIODS_PER_YEAR, target > hi ? "above" : "below",
                        target > hi ? "highest" : "lowest", lo * PERIODS_PER_YEAR, hi * PERIODS_PER_YEAR);
    return FC_OK;
}

/* The solver meets a bound to its feasibility tolerance (~1e-14): weights
 * a rounding error outside their box are set on the bound, and the sum's
 * change goes to the weight with the most room on both sides, so that the
 * bounds hold exactly and the weights still sum to 1 (to rounding). */
static void snap_to_box(const fc_box *b, size_t N, double *w) {
    double moved = 0.0, best_room = 0.0;
    size_t best = N;
    for (size_t i = 0; i < N; i++) {
        double v = fmin(fmax(w[i], b->lower[i]), b->upper[i]);
        moved += v - w[i], w[i] = v;
        double room = fmin(w[i] - b->lower[i], b->upper[i] - w[i]);
        if (room > best_room) best_room = room, best = i;
    }
    if (best < N && fabs(moved) < best_room) w[best] -= moved;
}

/* fc_portfolio_box_min_variance with cov's factor known (or NULL). */
static fc_status box_min_variance(const double *cov, const fc_qp_factor *factor, const double *mu, size_t N,
                                  const fc_box *b, const double *target, double *w, fc_qp_info *info) {
    FC_TRY(fc_box_check(b, N));
    if (target) FC_TRY(check_target(b, mu, N, *target));
    fc_qp_constraint *con = fc_malloc((2 * N + 2) * sizeof *con, "portfolio constraints");
    if (!con) return FC_ERR_MEMORY;
    size_t n_eq, m = box_constraints(b, mu, N, target, con, &n_eq);
    fc_qp qp = {.n = N, .G = cov, .factor = factor, .con = con, .n_eq = n_eq, .n_con = m};
    fc_status st = fc_qp_solve(&qp, w, NULL, info);
    if (st == FC_OK) snap_to_box(b, N, w);
    free(con);
    return st;
}

fc_status fc_portfolio_box_min_variance(const double *cov, const double *mu, size_t N, const fc_box *b,
                                        const double *target, double *w, fc_qp_info *info) {
    return box_min_variance(cov, NULL, mu, N, b, target, w, info);
}

fc_status fc_portfolio_box_frontier(const double *cov, const double *mu, size_t N, const fc_box *b,
                                    size_t n_points, double *targets, double *W, fc_qp_info *info) {
    if (n_points < 2) return fc_error(FC_ERR_INVALID, "--frontier %zu: expected at least 2 points", n_points);
    FC_TRY(fc_box_check(b, N));
    fc_qp_factor factor;   /* one Cholesky factor for all points */
    FC_TRY(fc_qp_factorise(cov, N, &factor));
    fc_status st = box_min_variance(cov, &factor, mu, N, b, NULL, W, info);
    double lo = dot(W, mu, N), hi, lowest;
    fc_box_return_range(b, mu, N, &lowest, &hi);
    for (size_t k = 0; st == FC_OK && k < n_points; k++) {
        targets[k] = k + 1 == n_points ? hi : lo + (hi - lo) * (double)k / (double)(n_points - 1);
        double *wk = W + k * N;
        if (k == 0) continue;
        fc_qp_info one = {0};
        /* the last point: the greedy weights when they are the only ones
         * earning the highest return (a QP there has a single feasible point) */
        if (k + 1 == n_points && fc_box_highest_weights(b, mu, N, wk)) continue;
        st = box_min_variance(cov, &factor, mu, N, b, &targets[k], wk, &one);
        if (info && st == FC_OK) {
            info->iterations += one.iterations;
            info->kkt_residual = fmax(info->kkt_residual, one.kkt_residual);
        }
    }
    fc_qp_factor_free(&factor);
    return st;
}

/* The homogenised box: y_i - lo_i 1'y >= 0, hi_i 1'y - y_i >= 0 (left out
 * when infinite, or implied: lo >= 0 everywhere and hi_i >= 1), 1'y >= 0. */
static size_t sharpe_constraints(const fc_box *b, const double *excess, size_t N, double scale, fc_qp_constraint *con) {
    int long_only = 1;
    for (size_t i = 0; i < N; i++) long_only &= b->lower[i] >= 0.0;
    size_t m = 0;
    con[m++] = (fc_qp_constraint){.row = excess, .rhs = scale};
    for (size_t i = 0; i < N; i++)
        con[m++] = (fc_qp_constraint){.index = i, .coef_index = 1.0, .coef_sum = -b->lower[i], .rhs = 0.0};
    for (size_t i = 0; i < N; i++)
        if (isfinite(b->upper[i]) && !(long_only && b->upper[i] >= 1.0))
            con[m++] = (fc_qp_constraint){.index = i, .coef_index = -1.0, .coef_sum = b->upper[i], .rhs = 0.0};
    con[m++] = (fc_qp_constraint){.coef_sum = 1.0, .rhs = 0.0};
    return m;
}

fc_status fc_portfolio_box_max_sharpe(const double *cov, const double *mu, size_t N, const fc_box *b, double rf,
                                      double *w, fc_qp_info *info) {
    FC_TRY(fc_box_check(b, N));
    if (!isfinite(rf)) return fc_error(FC_ERR_INVALID, "--risk-free: expected a finite number");
    double lo, hi;
    fc_box_return_range(b, mu, N, &lo, &hi);
    if (!(hi > rf))
        return fc_error(FC_ERR_INVALID, "--max-sharpe: no fully invested portfolio under the bounds earns more than "
                        "the risk-free rate %.6g a year (the highest reachable return is %.6g a year): the Sharpe "
                        "ratio has no positive maximum", rf * PERIODS_PER_YEAR, hi * PERIODS_PER_YEAR);
    double *excess = fc_malloc(N * sizeof *excess, "excess returns");
    fc_qp_constraint *con = fc_malloc((2 * N + 2) * sizeof *con, "portfolio constraints");
    fc_status st = excess && con ? FC_OK : FC_ERR_MEMORY;
    if (st == FC_OK) {
        for (size_t i = 0; i < N; i++) excess[i] = mu[i] - rf;
        /* (mu - rf)'y = hi - rf: y of the scale of w, for relative tolerances */
        fc_qp qp = {.n = N, .G = cov, .con = con, .n_eq = 1, .n_con = sharpe_constraints(b, excess, N, hi - rf, con)};
        st = fc_qp_solve(&qp, w, NULL, info);
    }
    double kappa = 0.0;
    for (size_t i = 0; st == FC_OK && i < N; i++) kappa += w[i];
    if (st == FC_OK && !(kappa > 0.0))
        st = fc_error(FC_ERR_INVALID, "--max-sharpe: the tangency problem's weights sum to %g, not a positive number",
                      kappa);
    for (size_t i = 0; st == FC_OK && i < N; i++) w[i] /= kappa;
    if (st == FC_OK) snap_to_box(b, N, w);
    free(excess), free(con);
    return st;
}
