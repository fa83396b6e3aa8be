/* Ledoit and Wolf's shrunk covariance (J. Multivariate Anal. 88, 2004),
 * exactly as scikit-learn's sklearn.covariance.ledoit_wolf computes it
 * (assume_centered=False): X = R - column means (T x N),
 *     S     = X'X / T                  (ddof 0: not the sample covariance's T - 1)
 *     m     = trace(S) / N             (the target is m I)
 *     d2    = |S - m I|_F^2 / N
 *     b2    = (sum_t |x_t|^4 / T - |S|_F^2) / (N T),  then min(b2, d2)
 *     shrinkage = b2 / d2 (0 when b2 = 0),  cov = (1 - shrinkage) S + shrinkage m I.
 * One asset: cov = S, shrinkage 0 (as scikit-learn). */
#ifndef FC_QUANT_LEDOIT_WOLF_H
#define FC_QUANT_LEDOIT_WOLF_H

#include <stddef.h>
#include "fcast/status.h"

/* R (T, N) row-major, T >= 2; cov (N, N); shrinkage may be NULL. */
fc_status fc_ledoit_wolf(const double *R, size_t T, size_t N, double *cov, double *shrinkage);

#endif
