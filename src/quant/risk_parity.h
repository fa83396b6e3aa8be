/* Long-only risk budgeting (equal risk contributions by default): weights
 * w > 0, summing to 1, whose risk contributions
 *     RC_i = w_i (cov w)_i / (w' cov w)
 * equal the budgets b_i (> 0, summing to 1). Spinu's convex formulation
 * (2013): y minimises 1/2 y' cov y - sum_i b_i log y_i (strictly convex on
 * y > 0, its minimiser solves y_i (cov y)_i = b_i), w = y / 1'y; solved by
 * Newton's method, damped while the Newton decrement is above 1/4 (the
 * step 1 / (1 + decrement) of self-concordant functions), so it converges
 * from any start and quadratically at the end. */
#ifndef FC_QUANT_RISK_PARITY_H
#define FC_QUANT_RISK_PARITY_H

#include <stddef.h>
#include "fcast/status.h"

/* Stops when max_i |RC_i - b_i| <= this, or no Newton step improves. */
#define RISK_PARITY_TOL 1e-14
/* An error when the contributions end further than this from the budgets. */
#define RISK_PARITY_CHECK 1e-12

/* budgets NULL: 1/N each. iterations and the final max |RC_i - b_i| into
 * the pointers when not NULL. */
fc_status fc_risk_parity(const double *cov, size_t N, const double *budgets, double *w, size_t *iterations,
                         double *max_error);

/* RC_i of w into rc (N): w_i (cov w)_i / (w' cov w). */
void fc_risk_contributions(const double *cov, size_t N, const double *w, double *rc);

#endif
