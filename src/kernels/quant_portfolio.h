/* Per-element formulas of the portfolio code, shared by the CPU loops
 * (src/quant/risk_parity.c, ledoit_wolf.c) and any later GPU kernel: a
 * risk contribution, one centred product of Ledoit-Wolf's empirical
 * covariance, one entry of the shrunk matrix, and the shrinkage from the
 * reductions of scikit-learn's ledoit_wolf_shrinkage. */
#ifndef FC_KERNELS_QUANT_PORTFOLIO_H
#define FC_KERNELS_QUANT_PORTFOLIO_H

#include <stddef.h>
#include "core/hd.h"

/* RC_i = w_i (S w)_i / (w' S w). */
FC_HD double fc_risk_contribution(double w_i, double sw_i, double variance) {
    return w_i * sw_i / variance;
}

/* Entry (i, j) of the shrunk covariance (1 - s) S_ij + s m [i == j]. */
FC_HD double fc_lw_shrunk_entry(double s_ij, int diagonal, double shrinkage, double m) {
    return (1.0 - shrinkage) * s_ij + (diagonal ? shrinkage * m : 0.0);
}

/* scikit-learn's shrinkage from the sums over the centred returns X
 * (T x N): beta_ = sum_t (sum_i x_ti^2)^2, frob = |S|_F^2 and trace = tr S
 * of S = X'X / T:
 *   b2 = (beta_ / T - frob) / (N T),  d2 = (frob - 2 m trace + N m^2) / N,
 *   m = trace / N;  min(b2, d2) / d2, 0 when that is 0. */
FC_HD double fc_lw_shrinkage(double beta_, double frob, double trace, size_t N, size_t T) {
    const double n = (double)N, t = (double)T, m = trace / n;
    double beta = 1.0 / (n * t) * (beta_ / t - frob);
    double delta = (frob - 2.0 * m * trace + n * m * m) / n;
    beta = beta < delta ? beta : delta;
    return beta == 0.0 ? 0.0 : beta / delta;
}

#endif
