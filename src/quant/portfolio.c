/* Minimum-variance and mean-variance weights via the KKT system and LAPACK
 * (see portfolio.h). */
#include "quant/portfolio.h"

#include <math.h>
#include <string.h>
#include "core/error.h"

/* LAPACK (liblapack-dev): solves A X = B by LU; A is column-major. */
extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
                   const int *ldb, int *info);


fc_status fc_portfolio_moments(const double *R, size_t T, size_t N, double *mu, double *cov) {
    if (T < 2) return fc_error(FC_ERR_INVALID, "a covariance needs at least 2 returns per asset, got %zu", T);
    for (size_t j = 0; j < N; j++) {
        double s = 0.0;
        for (size_t t = 0; t < T; t++) s += R[t * N + j];
        mu[j] = s / (double)T;
    }
    for (size_t i = 0; i < N; i++)
        for (size_t j = i; j < N; j++) {
            double s = 0.0;
            for (size_t t = 0; t < T; t++) s += (R[t * N + i] - mu[i]) * (R[t * N + j] - mu[j]);
            cov[i * N + j] = cov[j * N + i] = s / (double)(T - 1);
        }
    return FC_OK;
}

/* Below this the KKT solution is dominated by rounding: two series that
 * differ by 1e-13 gave weights of -213 and +214. */
#define PORTFOLIO_MIN_RCOND 1e-12

double dlange_(const char *norm, const int *m, const int *n, const double *a, const int *lda, double *work);
void dgecon_(const char *norm, const int *n, const double *a, const int *lda, const double *anorm, double *rcond,
             double *work, int *iwork, int *info);

/* LAPACK dgecon on the LU factors of K (n x n): 1-norm reciprocal condition. */
static int reciprocal_condition(const double *lu, size_t n, double anorm, double *rcond) {
    double *work = fc_malloc(4 * n * sizeof *work, "dgecon work");
    int *iwork = fc_malloc(n * sizeof *iwork, "dgecon work");
    int ni = (int)n, info = -1;
    if (work && iwork) dgecon_("1", &ni, lu, &ni, &anorm, rcond, work, iwork, &info);
    free(work), free(iwork);
    return info;
}

/* Builds and solves the KKT system with m equality constraints (rows of A,
 * each of length N) and right-hand side b; writes the N weights. */
static fc_status solve_kkt(const double *cov, size_t N, const double *const *A, const double *b, size_t m,
                           double *w) {
    if (N < 1 || N > PORTFOLIO_MAX_ASSETS)
        return fc_error(FC_ERR_INVALID, "portfolio: expected 1 to %d assets, got %zu", PORTFOLIO_MAX_ASSETS, N);
    size_t n = N + m;
    double *K = fc_calloc(n * n, sizeof *K, "KKT matrix");
    double *rhs = fc_calloc(n, sizeof *rhs, "KKT right-hand side");
    int *piv = fc_malloc(n * sizeof *piv, "KKT pivots");
    if (!K || !rhs || !piv) {
        free(K), free(rhs), free(piv);
        return FC_ERR_MEMORY;
    }
    /* K is symmetric, so row-major filling is also its column-major form. */
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) K[i * n + j] = cov[i * N + j];
    for (size_t c = 0; c < m; c++) {
        for (size_t j = 0; j < N; j++) K[(N + c) * n + j] = K[j * n + N + c] = A[c][j];
        rhs[N + c] = b[c];
    }
    int ni = (int)n, one = 1, info = 0;
    double anorm = dlange_("1", &ni, &ni, K, &ni, NULL), rcond = 0.0;
    dgesv_(&ni, &one, K, &ni, piv, rhs, &ni, &info);
    fc_status st = FC_OK;
    if (info == 0) info = reciprocal_condition(K, n, anorm, &rcond);
    if (info == 0 && rcond < PORTFOLIO_MIN_RCOND)
        st = fc_error(FC_ERR_INVALID, "portfolio: the KKT system is nearly singular (reciprocal condition number "
                      "%.2g): near-duplicate series make the weights meaningless", rcond);
    else if (info != 0)
        st = fc_error(FC_ERR_INVALID,
                      "portfolio: the KKT system is singular (LAPACK dgesv info=%d): the covariance matrix "
                      "is singular (duplicate or constant series?)%s",
                      info, m > 1 ? " or all assets have the same mean return" : "");
    else
        memcpy(w, rhs, N * sizeof *w);
    for (size_t j = 0; st == FC_OK && j < N; j++)
        if (!isfinite(w[j])) st = fc_error(FC_ERR_INVALID, "portfolio: the weights are not finite (target too large?)");
    free(K), free(rhs), free(piv);
    return st;
}

fc_status fc_portfolio_min_variance(const double *cov, size_t N, double *w) {
    double *ones = fc_malloc(N * sizeof *ones, "ones");
    if (!ones) return FC_ERR_MEMORY;
    for (size_t j = 0; j < N; j++) ones[j] = 1.0;
    const double *A[1] = {ones};
    const double b[1] = {1.0};
    fc_status st = solve_kkt(cov, N, A, b, 1, w);
    free(ones);
    return st;
}

fc_status fc_portfolio_target_return(const double *cov, const double *mu, size_t N, double target,
                                     double *w) {
    if (!isfinite(target)) return fc_error(FC_ERR_INVALID, "--target-return: expected a finite number");
    if (N < 2) return fc_error(FC_ERR_INVALID, "--target-return: needs at least 2 assets, got %zu", N);
    double *ones = fc_malloc(N * sizeof *ones, "ones");
    if (!ones) return FC_ERR_MEMORY;
    for (size_t j = 0; j < N; j++) ones[j] = 1.0;
    const double *A[2] = {ones, mu};
    const double b[2] = {1.0, target};
    fc_status st = solve_kkt(cov, N, A, b, 2, w);
    free(ones);
    return st;
}

void fc_portfolio_stats(const double *cov, const double *mu, size_t N, const double *w, double *mean,
                        double *vol) {
    double m = 0.0, v = 0.0;
    for (size_t i = 0; i < N; i++) {
        m += w[i] * mu[i];
        for (size_t j = 0; j < N; j++) v += w[i] * cov[i * N + j] * w[j];
    }
    *mean = m;
    *vol = sqrt(fmax(v, 0.0));
}
