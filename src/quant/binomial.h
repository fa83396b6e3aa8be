/* European and American options on a Cox-Ross-Rubinstein binomial tree in
 * QuantLib's form (BinomialVanillaEngine with "crr": equal jumps dx =
 * sigma sqrt(dt) in log price, up probability pu = 1/2 + (r - q -
 * sigma^2/2) dt / (2 dx), discount e^{-r dt} per step), with the smoothing
 * of Broadie and Detemple (1996):
 *   crr   the plain tree: payoffs at expiry, rolled back step by step;
 *   bbs   "binomial Black-Scholes": at the last step before expiry each
 *         node takes the Black-Scholes value of the European option over
 *         the remaining dt (the larger of it and exercise, if American),
 *         which removes the tree's odd-even oscillation in N;
 *   bbsr  bbs with Richardson extrapolation, 2 bbs(N) - bbs(N/2), which
 *         cancels the leading 1/N term of the error (the default).
 * Memory O(N), time O(N^2): one row of node values rolled back in place. */
#ifndef FC_QUANT_BINOMIAL_H
#define FC_QUANT_BINOMIAL_H

#include <stddef.h>
#include "fcast/status.h"
#include "quant/black_scholes.h"

typedef enum { FC_TREE_BBSR = 0, FC_TREE_BBS = 1, FC_TREE_CRR = 2 } fc_tree_kind;

#define FC_TREE_MAX_STEPS 100000

typedef struct {
    fc_option_type type;
    int american;          /* 1: exercise at any node; 0: European */
    fc_bs_market market;
    size_t steps;          /* time steps N, 1 to FC_TREE_MAX_STEPS (bbsr: 2 or more) */
    fc_tree_kind tree;
} fc_tree_option;

/* Validates (messages name the CLI flags) and prices. */
fc_status fc_binomial_price(const fc_tree_option *o, double *price);

#endif
