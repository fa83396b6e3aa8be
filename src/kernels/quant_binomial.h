/* One step back through a recombining binomial tree (Cox-Ross-Rubinstein
 * in QuantLib's form), shared by the CPU loop (src/quant/binomial.c) and
 * any GPU that runs it later: a row of node values becomes the row one
 * time step earlier, with early exercise for an American option.
 *
 * Node j of step i (j = 0..i) has the price S0 e^{(2j - i) dx}; the prices
 * come from one table of S0 e^{k dx}, k = -N..N, so that a step costs no
 * exp, and a row's prices are every other entry: the table is kept split
 * into even and odd k, which makes them contiguous (the loop vectorises). */
#ifndef FC_KERNELS_QUANT_BINOMIAL_H
#define FC_KERNELS_QUANT_BINOMIAL_H

#include <stddef.h>
#include "core/hd.h"

/* v[0..n] (n + 1 nodes of step i + 1) -> v[0..n-1] (n nodes of step i):
 * v[j] = (pd v[j] + pu v[j+1]) disc, QuantLib's order of operations (its
 * BlackScholesLattice::stepback), then, when american, the larger of
 * that and the exercise value theta (s[j] - K). s: the n prices of step i.
 * In place: v[j] is written after v[j] and v[j+1] are read. */
FC_HD void fc_tree_step_back(double *v, size_t n, const double *s, double strike, int is_call, int american,
                             double pd, double pu, double disc) {
    if (!american) {
        for (size_t j = 0; j < n; j++) v[j] = (pd * v[j] + pu * v[j + 1]) * disc;
        return;
    }
    double sign = is_call ? 1.0 : -1.0;
    for (size_t j = 0; j < n; j++) {
        double hold = (pd * v[j] + pu * v[j + 1]) * disc;
        double exercise = sign * (s[j] - strike);
        v[j] = hold > exercise ? hold : exercise;
    }
}

#endif
