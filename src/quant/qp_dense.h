/* A small dense strictly convex quadratic programme
 *     minimise  1/2 x'Gx + c'x
 *     subject to  n_k'x  = b_k   for k <  n_eq
 *                 n_k'x >= b_k   for n_eq <= k < n_con
 * solved exactly (to rounding) by Goldfarb and Idnani's dual active-set
 * method (Math. Programming 27, 1983; the algorithm of R's quadprog).
 *
 * Written here because Debian 12 packages no C QP solver (neither OSQP nor
 * qpOASES; `apt-cache search` finds only R's quadprog), and the portfolio
 * problems are small and dense: G is a covariance (N <= a few thousand),
 * the constraints bounds and one or two dense rows. An active-set method
 * ends on the exact active set, so the weights satisfy the KKT conditions
 * to rounding (an interior-point or ADMM solver stops at a tolerance).
 *
 * A constraint's normal is coef_index * e_index + coef_sum * 1 + row: a
 * bound (index, +-1), a budget (coef_sum 1), a homogenised bound of the
 * maximum-Sharpe problem (index, coef_sum), a return target (row = mu):
 * no N x N constraint matrix for N bounds. */
#ifndef FC_QUANT_QP_DENSE_H
#define FC_QUANT_QP_DENSE_H

#include <stddef.h>
#include "fcast/status.h"

typedef struct {
    size_t index;       /* the variable of coef_index (ignored when coef_index is 0) */
    double coef_index;
    double coef_sum;    /* the coefficient of every variable */
    const double *row;  /* n coefficients more, or NULL */
    double rhs;
} fc_qp_constraint;

/* G's factor, for several programmes with one G (a frontier's points):
 * J = L^-T of G / gmax = L L', gmax = max|G_ij|; n x n, column j at J + j n. */
typedef struct {
    size_t n;
    double gmax;
    double *J;
} fc_qp_factor;

fc_status fc_qp_factorise(const double *G, size_t n, fc_qp_factor *out);
void fc_qp_factor_free(fc_qp_factor *f);

typedef struct {
    size_t n;                     /* variables */
    const double *G;              /* n x n, symmetric positive definite */
    const fc_qp_factor *factor;   /* G's, or NULL: factorised here */
    const double *c;              /* n, or NULL for 0 */
    const fc_qp_constraint *con;  /* n_con constraints, the n_eq equalities first */
    size_t n_eq, n_con;
} fc_qp;

typedef struct {
    size_t iterations;    /* constraints added or dropped */
    size_t n_active;      /* constraints active at the solution, equalities included */
    /* The largest of the KKT residuals at the solution, G and c scaled by
     * 1 / max|G_ij| and each constraint by 1 / max(1, |its normal|_inf):
     * stationarity |Gx + c - sum_k u_k n_k|_inf, primal infeasibility,
     * dual infeasibility max(-u_k, 0) of the inequalities and
     * complementarity |u_k (n_k'x - b_k)|. */
    double kkt_residual;
} fc_qp_info;

/* x (n) at the optimum; multipliers (n_con, or NULL) u_k >= 0 of the
 * inequalities, of either sign for the equalities, 0 when inactive (in
 * the scaled units above); info may be NULL. Errors: G not positive
 * definite, infeasible constraints ("infeasible", the constraint at
 * fault), or no convergence within the iteration cap. */
fc_status fc_qp_solve(const fc_qp *qp, double *x, double *multipliers, fc_qp_info *info);

/* n_k'x of one constraint, and its dense normal into out (n). */
double fc_qp_constraint_dot(const fc_qp_constraint *k, const double *x, size_t n, double sum_x);
void fc_qp_constraint_normal(const fc_qp_constraint *k, size_t n, double *out);

#endif
