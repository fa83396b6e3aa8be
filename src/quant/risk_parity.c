/* Risk budgeting by Spinu's convex programme and damped Newton steps (see
 * risk_parity.h). Each step solves the N x N Newton system by LAPACK's
 * Cholesky (dposv): the Hessian cov + diag(b / y^2) is positive definite. */
#include "quant/risk_parity.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "kernels/quant_portfolio.h"
#include "quant/portfolio.h"

extern void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda, double *b,
                   const int *ldb, int *info);

#define RISK_PARITY_MAX_STEPS 200

static void mat_vec(const double *S, size_t N, const double *x, double *out) {
    for (size_t i = 0; i < N; i++) {
        double s = 0.0;
        for (size_t j = 0; j < N; j++) s += S[i * N + j] * x[j];
        out[i] = s;
    }
}

void fc_risk_contributions(const double *cov, size_t N, const double *w, double *rc) {
    double var = 0.0;
    mat_vec(cov, N, w, rc);
    for (size_t i = 0; i < N; i++) var += w[i] * rc[i];
    for (size_t i = 0; i < N; i++) rc[i] = fc_risk_contribution(w[i], rc[i], var);
}

static double budget_error(const double *S, size_t N, const double *y, const double *b, double *rc) {
    fc_risk_contributions(S, N, y, rc);
    double e = 0.0;
    for (size_t i = 0; i < N; i++) e = fmax(e, fabs(rc[i] - b[i]));
    return isnan(e) ? INFINITY : e;
}

/* One damped Newton step of f(y) = 1/2 y'Sy - b'log y from y (in place);
 * work: 3N + N^2. Returns 0, or the LAPACK info of a failed solve. */
static int newton_step(const double *S, size_t N, const double *b, double *y, double *work) {
    double *g = work, *H = g + N, *y_new = H + N * N;
    mat_vec(S, N, y, g);
    for (size_t i = 0; i < N; i++) g[i] -= b[i] / y[i];
    memcpy(H, S, N * N * sizeof *H);
    for (size_t i = 0; i < N; i++) H[i * N + i] += b[i] / (y[i] * y[i]);
    double *delta = y_new + N;
    memcpy(delta, g, N * sizeof *delta);
    int n = (int)N, one = 1, info = 0;
    dposv_("L", &n, &one, H, &n, delta, &n, &info);
    if (info) return info;
    double decrement = 0.0;
    for (size_t i = 0; i < N; i++) decrement += g[i] * delta[i];
    double t = decrement > 0.0625 ? 1.0 / (1.0 + sqrt(decrement)) : 1.0;   /* sqrt(decrement) > 1/4: damped */
    for (int tries = 0; tries < 60; tries++, t *= 0.5) {   /* stays inside y > 0 (in exact arithmetic it does) */
        int inside = 1;
        for (size_t i = 0; i < N; i++) inside &= (y_new[i] = y[i] - t * delta[i]) > 0.0;
        if (inside) break;
    }
    for (size_t i = 0; i < N; i++)
        if (y_new[i] > 0.0) y[i] = y_new[i];
    return 0;
}

static fc_status check_budgets(const double *budgets, size_t N, double *b) {
    double sum = 0.0;
    for (size_t i = 0; i < N; i++) {
        b[i] = budgets ? budgets[i] : 1.0;
        if (!(b[i] > 0.0) || !isfinite(b[i]))
            return fc_error(FC_ERR_INVALID, "budgets[%zu] = %g: risk budgets must be positive numbers", i, b[i]);
        sum += b[i];
    }
    for (size_t i = 0; i < N; i++) b[i] /= sum;   /* budgets are shares of the risk */
    return FC_OK;
}

/* Newton from y = b / sqrt(b'Sb) until the contributions meet the budgets. */
static fc_status solve(const double *S, size_t N, const double *b, double *y, double *work, size_t *steps,
                       double *err) {
    mat_vec(S, N, b, work);
    double bsb = 0.0;
    for (size_t i = 0; i < N; i++) bsb += b[i] * work[i];
    if (!(bsb > 0.0)) return fc_error(FC_ERR_INVALID, "--risk-parity: the portfolio of the budgets has no variance");
    for (size_t i = 0; i < N; i++) y[i] = b[i] / sqrt(bsb);
    double *rc = work + 3 * N + N * N;
    *err = budget_error(S, N, y, b, rc);
    for (*steps = 0; *steps < RISK_PARITY_MAX_STEPS && *err > RISK_PARITY_TOL; ++*steps) {
        int info = newton_step(S, N, b, y, work);
        if (info)
            return fc_error(FC_ERR_INVALID, "--risk-parity: the Newton system is not positive definite (LAPACK "
                            "dposv info=%d): the covariance is singular (fewer returns than assets, or duplicate "
                            "series?); --shrink ledoit-wolf makes it definite", info);
        double e = budget_error(S, N, y, b, rc);
        if (!(e < *err) && *err <= RISK_PARITY_CHECK) break;   /* rounding reached */
        *err = e;
    }
    return FC_OK;
}

fc_status fc_risk_parity(const double *cov, size_t N, const double *budgets, double *w, size_t *iterations,
                         double *max_error) {
    if (N < 1 || N > PORTFOLIO_MAX_ASSETS)
        return fc_error(FC_ERR_INVALID, "portfolio: expected 1 to %d assets, got %zu", PORTFOLIO_MAX_ASSETS, N);
    for (size_t i = 0; i < N; i++)
        if (!(cov[i * N + i] > 0.0))
            return fc_error(FC_ERR_INVALID, "--risk-parity: asset %zu has variance %g: every asset needs risk to "
                            "contribute", i, cov[i * N + i]);
    double *b = fc_malloc(N * sizeof *b, "risk budgets");
    double *work = fc_malloc((4 * N + N * N) * sizeof *work, "Newton work");
    double *S = fc_malloc(N * N * sizeof *S, "scaled covariance");
    fc_status st = b && work && S ? check_budgets(budgets, N, b) : FC_ERR_MEMORY;
    size_t steps = 0;
    double err = INFINITY, smax = 0.0;
    if (st == FC_OK) {
        for (size_t i = 0; i < N * N; i++) smax = fmax(smax, fabs(cov[i]));
        for (size_t i = 0; i < N * N; i++) S[i] = cov[i] / smax;   /* scale-free: w is invariant */
        st = solve(S, N, b, w, work, &steps, &err);
    }
    if (st == FC_OK && !(err <= RISK_PARITY_CHECK))
        st = fc_error(FC_ERR_INVALID, "--risk-parity: the risk contributions are %.3g from the budgets after %zu "
                      "Newton steps (tolerance %g)", err, steps, RISK_PARITY_CHECK);
    double sum = 0.0;
    for (size_t i = 0; st == FC_OK && i < N; i++) sum += w[i];
    for (size_t i = 0; st == FC_OK && i < N; i++) w[i] /= sum;
    if (iterations) *iterations = steps;
    if (max_error) *max_error = err;
    free(b), free(work), free(S);
    return st;
}
