/* scikit-learn's ledoit_wolf, formula for formula (see ledoit_wolf.h),
 * without its blocks (they only bound its memory). */
#include "quant/ledoit_wolf.h"

#include <math.h>
#include <stdlib.h>

#include "core/error.h"
#include "kernels/quant_portfolio.h"

/* X = R - column means (T x N) into X. */
static void center(const double *R, size_t T, size_t N, double *X) {
    for (size_t j = 0; j < N; j++) {
        double m = 0.0;
        for (size_t t = 0; t < T; t++) m += R[t * N + j];
        m /= (double)T;
        for (size_t t = 0; t < T; t++) X[t * N + j] = R[t * N + j] - m;
    }
}

/* S = X'X / T into cov. */
static void empirical(const double *X, size_t T, size_t N, double *cov) {
    for (size_t i = 0; i < N; i++)
        for (size_t j = i; j < N; j++) {
            double s = 0.0;
            for (size_t t = 0; t < T; t++) s += X[t * N + i] * X[t * N + j];
            cov[i * N + j] = cov[j * N + i] = s / (double)T;
        }
}

/* The shrinkage of scikit-learn's ledoit_wolf_shrinkage given S. */
static double shrinkage_of(const double *X, size_t T, size_t N, const double *S) {
    double trace = 0.0, frob = 0.0, beta_ = 0.0;
    for (size_t i = 0; i < N; i++) trace += S[i * N + i];
    for (size_t i = 0; i < N * N; i++) frob += S[i] * S[i];
    for (size_t t = 0; t < T; t++) {   /* sum_ij (X2'X2)_ij = sum_t (sum_i x_ti^2)^2 */
        double r = 0.0;
        for (size_t i = 0; i < N; i++) r += X[t * N + i] * X[t * N + i];
        beta_ += r * r;
    }
    return fc_lw_shrinkage(beta_, frob, trace, N, T);
}

fc_status fc_ledoit_wolf(const double *R, size_t T, size_t N, double *cov, double *shrinkage) {
    if (T < 2) return fc_error(FC_ERR_INVALID, "a covariance needs at least 2 returns per asset, got %zu", T);
    double *X = fc_malloc(T * N * sizeof *X, "centred returns");
    if (!X) return FC_ERR_MEMORY;
    center(R, T, N, X);
    empirical(X, T, N, cov);
    double s = N == 1 ? 0.0 : shrinkage_of(X, T, N, cov);
    double trace = 0.0;
    for (size_t i = 0; i < N; i++) trace += cov[i * N + i];
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++)
            cov[i * N + j] = fc_lw_shrunk_entry(cov[i * N + j], i == j, s, trace / (double)N);
    free(X);
    if (shrinkage) *shrinkage = s;
    return isfinite(s) ? FC_OK : fc_error(FC_ERR_INVALID, "--shrink ledoit-wolf: the shrinkage is not finite "
                                                         "(constant series?)");
}
