/* Goldfarb-Idnani's dual active-set method for dense strictly convex QPs
 * (see qp_dense.h; the steps follow the paper's and quadprog's names).
 *
 * The method starts at the unconstrained minimum x = -G^-1 c and adds the
 * most violated constraint at a time, staying dual feasible: it keeps
 * J = L^-T Q (G = L L') and the upper triangular R with J' N_A = [R; 0]
 * for the normals N_A of the q active constraints, updated by Givens
 * rotations when a constraint comes in or goes out, so that each step
 * costs O(n^2) and nothing is refactorised. G is scaled to max|G_ij| = 1
 * and each constraint to |normal|_inf = 1 first, so the tolerances are
 * relative. */
#include "quant/qp_dense.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

/* LAPACK: Cholesky factor and triangular inverse, column-major. */
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
extern void dtrtri_(const char *uplo, const char *diag, const int *n, double *a, const int *lda, int *info);

/* A violation below this (relative to the constraint's scale) is rounding. */
#define QP_FEAS_TOL 1e-13
/* A new normal whose part outside the span of the active ones is below
 * this (relative) is taken as linearly dependent on them. */
#define QP_DEPENDENT_TOL 1e-13

typedef struct {
    size_t n, q, n_con;
    double *J, *R;             /* n x n each, column j at + j * n */
    double *d, *z, *r, *np, *u, *g, *gscaled, *cscaled, *cscale, *normal_work;
    size_t *active;            /* constraint index of active position j */
    signed char *sign;         /* +-1 per constraint: an equality with positive slack enters negated */
    unsigned char *is_active;
} qp_work;

double fc_qp_constraint_dot(const fc_qp_constraint *k, const double *x, size_t n, double sum_x) {
    double v = k->coef_sum * sum_x;
    if (k->coef_index != 0.0) v += k->coef_index * x[k->index];
    if (k->row)
        for (size_t i = 0; i < n; i++) v += k->row[i] * x[i];
    return v;
}

void fc_qp_constraint_normal(const fc_qp_constraint *k, size_t n, double *out) {
    for (size_t i = 0; i < n; i++) out[i] = k->coef_sum + (k->row ? k->row[i] : 0.0);
    if (k->coef_index != 0.0) out[k->index] += k->coef_index;
}

static void work_free(qp_work *w) {
    free(w->J), free(w->R), free(w->d), free(w->active), free(w->sign), free(w->is_active);
}

static fc_status work_alloc(qp_work *w, size_t n, size_t n_con) {
    memset(w, 0, sizeof *w);
    w->n = n, w->n_con = n_con;
    w->J = fc_malloc(n * n * sizeof *w->J, "QP factor J");
    w->R = fc_calloc(n * n, sizeof *w->R, "QP factor R");
    /* d, z, r, np, u (n + 1), g, G scaled (n * n), c scaled, constraint scales, a normal */
    w->d = fc_malloc((7 * n + 1 + n * n + n_con + n) * sizeof *w->d, "QP vectors");
    w->active = fc_malloc((n + 1) * sizeof *w->active, "QP active set");
    w->sign = fc_malloc((n_con ? n_con : 1) * sizeof *w->sign, "QP signs");
    w->is_active = fc_calloc(n_con ? n_con : 1, 1, "QP active flags");
    if (!w->J || !w->R || !w->d || !w->active || !w->sign || !w->is_active) {
        work_free(w);
        return FC_ERR_MEMORY;
    }
    w->z = w->d + n, w->r = w->z + n, w->np = w->r + n, w->u = w->np + n, w->g = w->u + n + 1;
    w->gscaled = w->g + n, w->cscaled = w->gscaled + n * n, w->cscale = w->cscaled + n;
    w->normal_work = w->cscale + n_con;
    return FC_OK;
}

/* J = L^-T of the Cholesky factor of G / gmax into J (n x n, by columns);
 * work: n x n. */
static fc_status chol_inverse(const double *G, size_t n, double gmax, double *J, double *work) {
    for (size_t i = 0; i < n * n; i++) work[i] = G[i] / gmax;   /* symmetric: row-major is column-major */
    int ni = (int)n, info = 0;
    dpotrf_("L", &ni, work, &ni, &info);
    if (info != 0)
        return fc_error(FC_ERR_INVALID, "QP: the covariance matrix is not positive definite (leading minor %d): "
                        "duplicate or constant series, or fewer returns than assets? (--shrink ledoit-wolf makes "
                        "it definite)", info);
    dtrtri_("L", "N", &ni, work, &ni, &info);
    if (info != 0)
        return fc_error(FC_ERR_INVALID, "QP: the covariance matrix is singular (LAPACK dtrtri info=%d)", info);
    for (size_t j = 0; j < n; j++)      /* J_ij = (L^-1)_ji */
        for (size_t i = 0; i < n; i++) J[j * n + i] = i <= j ? work[j + i * n] : 0.0;
    return FC_OK;
}

static fc_status largest_entry(const double *G, size_t n, double *gmax) {
    double m = 0.0;
    for (size_t i = 0; i < n * n; i++) m = fmax(m, fabs(G[i]));
    if (!(m > 0.0) || !isfinite(m)) return fc_error(FC_ERR_INVALID, "QP: the covariance matrix is zero or not finite");
    *gmax = m;
    return FC_OK;
}

fc_status fc_qp_factorise(const double *G, size_t n, fc_qp_factor *out) {
    *out = (fc_qp_factor){.n = n};
    FC_TRY(largest_entry(G, n, &out->gmax));
    out->J = fc_malloc(n * n * sizeof *out->J, "QP factor");
    double *work = fc_malloc(n * n * sizeof *work, "QP factor work");
    fc_status st = out->J && work ? chol_inverse(G, n, out->gmax, out->J, work) : FC_ERR_MEMORY;
    free(work);
    if (st != FC_OK) fc_qp_factor_free(out);
    return st;
}

void fc_qp_factor_free(fc_qp_factor *f) {
    free(f->J);
    f->J = NULL;
}

/* G / max|G_ij| into w->gscaled, c likewise; J from qp->factor or computed. */
static fc_status factorise(const fc_qp *qp, qp_work *w) {
    const size_t n = qp->n;
    double m = 0.0;
    if (qp->factor && qp->factor->n != n)
        return fc_error(FC_ERR_INVALID, "QP: a factor of %zu variables for %zu", qp->factor->n, n);
    if (qp->factor) m = qp->factor->gmax, memcpy(w->J, qp->factor->J, n * n * sizeof *w->J);
    else FC_TRY(largest_entry(qp->G, n, &m));
    for (size_t i = 0; i < n * n; i++) w->gscaled[i] = qp->G[i] / m;
    for (size_t i = 0; i < n; i++) w->cscaled[i] = qp->c ? qp->c[i] / m : 0.0;
    if (!qp->factor) FC_TRY(chol_inverse(qp->G, n, m, w->J, w->R));   /* R: scratch until a constraint enters */
    memset(w->R, 0, n * n * sizeof *w->R);
    return FC_OK;
}

/* x = -G^-1 c = -J J' c, the unconstrained minimum. */
static void unconstrained_minimum(qp_work *w, double *x) {
    const size_t n = w->n;
    for (size_t j = 0; j < n; j++) {
        double s = 0.0;
        for (size_t i = 0; i < n; i++) s += w->J[j * n + i] * w->cscaled[i];
        w->d[j] = s;
    }
    for (size_t i = 0; i < n; i++) x[i] = 0.0;
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++) x[i] -= w->J[j * n + i] * w->d[j];
}

static double sum_of(const double *x, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s;
}

/* The scaled slack (n_k'x - b_k) / scale_k, of the sign the constraint entered with. */
static double slack(const fc_qp *qp, const qp_work *w, size_t k, const double *x, double sum_x) {
    return w->sign[k] * (fc_qp_constraint_dot(&qp->con[k], x, qp->n, sum_x) - qp->con[k].rhs) / w->cscale[k];
}

static double max_abs(const double *x, size_t n) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
    return m;
}

/* xmax = max|x_i|, computed once per pass over the constraints. */
static double tolerance(const fc_qp *qp, const qp_work *w, size_t k, double xmax) {
    return QP_FEAS_TOL * (1.0 + fabs(qp->con[k].rhs) / w->cscale[k] + xmax);
}

/* The next constraint to add: the first equality not yet active, else the
 * most violated inequality; n_con when every constraint holds. */
static size_t pick_violated(const fc_qp *qp, const qp_work *w, const double *x, double *s_out) {
    const double sum_x = sum_of(x, qp->n);
    for (size_t k = 0; k < qp->n_eq; k++)
        if (!w->is_active[k]) {
            *s_out = slack(qp, w, k, x, sum_x);
            return k;
        }
    size_t best = qp->n_con;
    double worst = 0.0, xmax = max_abs(x, qp->n);
    for (size_t k = qp->n_eq; k < qp->n_con; k++) {
        if (w->is_active[k]) continue;
        double s = slack(qp, w, k, x, sum_x);
        if (s < -tolerance(qp, w, k, xmax) && s < worst) worst = s, best = k;
    }
    *s_out = worst;
    return best;
}

/* A bound's normal is f e_index: its J'np is row index of J times f, O(n)
 * rather than O(n^2) (the bounds are most of the constraints). */
static int is_bound(const fc_qp_constraint *k) { return k->coef_sum == 0.0 && !k->row && k->coef_index != 0.0; }

/* d = J' np (bound: the row of J), z = J2 d2 (the primal step),
 * r = R^-1 d1 (the dual step); returns |d2|^2 = z'np. */
static double step_directions(qp_work *w, const fc_qp_constraint *k, double f) {
    const size_t n = w->n, q = w->q;
    double d2 = 0.0;
    for (size_t j = 0; j < n; j++) {
        const double *col = w->J + j * n;
        double s = 0.0;
        if (is_bound(k)) s = col[k->index] * k->coef_index * f;
        else
            for (size_t i = 0; i < n; i++) s += col[i] * w->np[i];
        w->d[j] = s;
        if (j >= q) d2 += s * s;
    }
    memset(w->z, 0, n * sizeof *w->z);
    for (size_t j = q; j < n; j++)
        for (size_t i = 0; i < n; i++) w->z[i] += w->J[j * n + i] * w->d[j];
    /* back substitution by columns: R's columns are contiguous */
    memcpy(w->r, w->d, q * sizeof *w->r);
    for (size_t j = q; j-- > 0;) {
        const double *col = w->R + j * n;
        double rj = w->r[j] /= col[j];
        for (size_t i = 0; i < j; i++) w->r[i] -= col[i] * rj;
    }
    return d2;
}

/* The rotation zeroing b in (a, b): returns the new a. */
static double givens(double a, double b, double *c, double *s) {
    double h = hypot(a, b);
    *c = a / h, *s = b / h;
    return h;
}

static void rotate(double *x, double *y, size_t n, double c, double s) {
    for (size_t i = 0; i < n; i++) {
        double a = x[i], b = y[i];
        x[i] = c * a + s * b, y[i] = -s * a + c * b;
    }
}

/* Constraint k enters at position q, its d = J' np known: rotate d's tail
 * into d[q], the same rotations on J's columns, then R's column q = d[0..q]. */
static void add_constraint(qp_work *w, size_t k, double multiplier) {
    const size_t n = w->n, q = w->q;
    for (size_t j = n - 1; j > q; j--) {
        if (w->d[j] == 0.0) continue;
        double c, s;
        w->d[j - 1] = givens(w->d[j - 1], w->d[j], &c, &s);
        w->d[j] = 0.0;
        rotate(w->J + (j - 1) * n, w->J + j * n, n, c, s);
    }
    for (size_t i = 0; i <= q; i++) w->R[q * n + i] = w->d[i];
    w->active[q] = k, w->u[q] = multiplier;
    w->is_active[k] = 1;
    w->q++;
}

/* Active position p leaves: R's columns after it shift left and the
 * Hessenberg R is made triangular again by rotations of its rows (and the
 * same on J's columns). */
static void drop_constraint(qp_work *w, size_t p) {
    const size_t n = w->n, q = w->q;
    w->is_active[w->active[p]] = 0;
    for (size_t j = p; j + 1 < q; j++) {
        memcpy(w->R + j * n, w->R + (j + 1) * n, n * sizeof *w->R);
        w->active[j] = w->active[j + 1], w->u[j] = w->u[j + 1];
    }
    memset(w->R + (q - 1) * n, 0, n * sizeof *w->R);
    for (size_t j = p; j + 1 < q; j++) {
        double c, s;
        double a = w->R[j * n + j], b = w->R[j * n + j + 1];
        if (b == 0.0) continue;
        w->R[j * n + j] = givens(a, b, &c, &s);
        w->R[j * n + j + 1] = 0.0;
        for (size_t col = j + 1; col + 1 < q; col++) {
            double x = w->R[col * n + j], y = w->R[col * n + j + 1];
            w->R[col * n + j] = c * x + s * y, w->R[col * n + j + 1] = -s * x + c * y;
        }
        rotate(w->J + j * n, w->J + (j + 1) * n, n, c, s);
    }
    w->q--;
}

/* The scaled, signed normal of constraint k into w->np (not needed for a
 * bound); returns its factor sign / scale. */
static double load_normal(const fc_qp *qp, qp_work *w, size_t k) {
    const double f = w->sign[k] / w->cscale[k];
    if (is_bound(&qp->con[k])) return f;
    fc_qp_constraint_normal(&qp->con[k], qp->n, w->np);
    for (size_t i = 0; i < qp->n; i++) w->np[i] *= f;
    return f;
}

/* The partial (dual) step bound: the smallest u_j / r_j over the active
 * inequalities with r_j > 0, and its position (q when none). */
static double partial_step(const fc_qp *qp, const qp_work *w, size_t *drop) {
    double t = INFINITY;
    *drop = w->q;
    for (size_t j = 0; j < w->q; j++)
        if (w->active[j] >= qp->n_eq && w->r[j] > 0.0 && w->u[j] / w->r[j] < t) t = w->u[j] / w->r[j], *drop = j;
    return t;
}

static fc_status infeasible(const fc_qp *qp, size_t k, double s) {
    return fc_error(FC_ERR_INVALID, "QP: the constraints are infeasible (constraint %zu of %zu%s, violated by %.3g, "
                    "cannot be met with those already active)", k, qp->n_con, k < qp->n_eq ? ", an equality" : "",
                    fabs(s));
}

/* Adds constraint k (slack s < 0 after signing) with as many dual steps
 * (drops) as it takes; *iterations counts them. */
static fc_status satisfy(const fc_qp *qp, qp_work *w, size_t k, double s, double *x, size_t *iterations,
                         size_t cap) {
    const size_t n = qp->n;
    double u_plus = 0.0;
    for (;;) {
        if (++*iterations > cap)
            return fc_error(FC_ERR_INVALID, "QP: no convergence in %zu active-set changes (degenerate constraints?)",
                            cap);
        double f = load_normal(qp, w, k);
        double d2 = step_directions(w, &qp->con[k], f), dn = 0.0;
        for (size_t j = 0; j < n; j++) dn += w->d[j] * w->d[j];
        const int dependent = d2 <= QP_DEPENDENT_TOL * QP_DEPENDENT_TOL * dn;
        size_t drop;
        double t1 = partial_step(qp, w, &drop), t2 = dependent ? INFINITY : -s / d2;
        if (dependent && fabs(s) <= tolerance(qp, w, k, max_abs(x, n))) {
            w->is_active[k] = k < qp->n_eq;   /* an equality implied by the active ones: done with it */
            return FC_OK;
        }
        if (isinf(t1) && isinf(t2)) return infeasible(qp, k, s);
        double t = fmin(t1, t2);
        if (!isinf(t2)) {
            for (size_t i = 0; i < n; i++) x[i] += t * w->z[i];
            s += t * d2;
        }
        for (size_t j = 0; j < w->q; j++) w->u[j] -= t * w->r[j];
        u_plus += t;
        if (t == t2) {
            add_constraint(w, k, u_plus);
            return FC_OK;
        }
        drop_constraint(w, drop);
    }
}

/* The residuals of qp_dense.h's fc_qp_info at the solution. */
static double kkt_residual(const fc_qp *qp, qp_work *w, const double *x, const double *mult) {
    const size_t n = qp->n;
    double worst = 0.0, sum_x = sum_of(x, n);
    for (size_t i = 0; i < n; i++) {
        double s = w->cscaled[i];
        for (size_t j = 0; j < n; j++) s += w->gscaled[i * n + j] * x[j];
        w->g[i] = s;
    }
    for (size_t k = 0; k < qp->n_con; k++) {
        double s = (fc_qp_constraint_dot(&qp->con[k], x, n, sum_x) - qp->con[k].rhs) / w->cscale[k];
        worst = fmax(worst, k < qp->n_eq ? fabs(s) : fmax(-s, 0.0));
        if (k >= qp->n_eq) worst = fmax(worst, fmax(-mult[k], 0.0));
        worst = fmax(worst, fabs(mult[k] * s));
        if (mult[k] == 0.0) continue;
        fc_qp_constraint_normal(&qp->con[k], n, w->normal_work);
        for (size_t i = 0; i < n; i++) w->g[i] -= mult[k] * w->normal_work[i] / w->cscale[k];
    }
    for (size_t i = 0; i < n; i++) worst = fmax(worst, fabs(w->g[i]));
    return worst;
}

static fc_status check_problem(const fc_qp *qp) {
    if (qp->n < 1) return fc_error(FC_ERR_INVALID, "QP: no variables");
    if (qp->n_eq > qp->n_con)
        return fc_error(FC_ERR_INVALID, "QP: %zu equalities of %zu constraints", qp->n_eq, qp->n_con);
    for (size_t k = 0; k < qp->n_con; k++) {
        const fc_qp_constraint *c = &qp->con[k];
        if (c->coef_index != 0.0 && c->index >= qp->n)
            return fc_error(FC_ERR_INVALID, "QP: constraint %zu names variable %zu of %zu", k, c->index, qp->n);
        if (!isfinite(c->rhs)) return fc_error(FC_ERR_INVALID, "QP: constraint %zu's bound is not finite", k);
    }
    return FC_OK;
}

/* Each constraint's scale |normal|_inf (1 for a zero normal). */
static fc_status constraint_scales(const fc_qp *qp, qp_work *w) {
    for (size_t k = 0; k < qp->n_con; k++) {
        fc_qp_constraint_normal(&qp->con[k], qp->n, w->normal_work);
        double m = 0.0;
        for (size_t i = 0; i < qp->n; i++) m = fmax(m, fabs(w->normal_work[i]));
        if (!isfinite(m)) return fc_error(FC_ERR_INVALID, "QP: constraint %zu has a coefficient that is not finite", k);
        w->cscale[k] = m > 0.0 ? m : 1.0;
        w->sign[k] = 1;
    }
    return FC_OK;
}

static fc_status solve_in(const fc_qp *qp, qp_work *w, double *x, double *mult, fc_qp_info *info) {
    FC_TRY(factorise(qp, w));
    FC_TRY(constraint_scales(qp, w));
    unconstrained_minimum(w, x);
    size_t iterations = 0, cap = 10 * (qp->n + qp->n_con) + 100;
    for (;;) {
        double s;
        size_t k = pick_violated(qp, w, x, &s);
        if (k == qp->n_con) break;
        if (k < qp->n_eq && s > 0.0) w->sign[k] = -1, s = -s;   /* approach the equality from its violated side */
        FC_TRY(satisfy(qp, w, k, s, x, &iterations, cap));
    }
    for (size_t k = 0; k < qp->n_con; k++) mult[k] = 0.0;
    for (size_t j = 0; j < w->q; j++) mult[w->active[j]] = w->sign[w->active[j]] * w->u[j];
    for (size_t i = 0; i < qp->n; i++)
        if (!isfinite(x[i])) return fc_error(FC_ERR_INVALID, "QP: the solution is not finite (x[%zu])", i);
    if (info) {
        info->iterations = iterations;
        info->n_active = w->q;
        info->kkt_residual = kkt_residual(qp, w, x, mult);
    }
    return FC_OK;
}

fc_status fc_qp_solve(const fc_qp *qp, double *x, double *multipliers, fc_qp_info *info) {
    FC_TRY(check_problem(qp));
    qp_work w;
    FC_TRY(work_alloc(&w, qp->n, qp->n_con));
    double *mult = multipliers ? multipliers : fc_malloc((qp->n_con ? qp->n_con : 1) * sizeof *mult, "QP multipliers");
    fc_status st = mult ? solve_in(qp, &w, x, mult, info) : FC_ERR_MEMORY;
    if (mult != multipliers) free(mult);
    work_free(&w);
    return st;
}
