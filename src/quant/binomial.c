/* Binomial trees (see binomial.h): the node prices, the values at the last
 * step (payoffs, or Black-Scholes for bbs), the backward induction
 * (kernels/quant_binomial.h), and Richardson's extrapolation. */
#include "quant/binomial.h"

#include <math.h>
#include <stdlib.h>
#include "core/error.h"
#include "kernels/quant_binomial.h"

typedef struct {
    size_t n;                  /* steps */
    double dx, pu, pd, disc;
    double *even, *odd;        /* S0 e^{k dx} for k = -n..n: even[m] at k + n = 2m, odd[m] at 2m + 1 */
    double *v;                 /* (n + 1) node values */
} tree;

static void tree_free(tree *t) {
    free(t->even);
    free(t->odd);
    free(t->v);
}

/* The prices of step i's nodes, contiguous (see the kernel's header). */
static const double *row_prices(const tree *t, size_t i) {
    size_t shift = t->n - i;
    return shift % 2 == 0 ? t->even + shift / 2 : t->odd + (shift - 1) / 2;
}

/* QuantLib's CoxRossRubinstein: dx from the variance over dt, pu from the
 * log-price drift per step; both as QuantLib computes them. */
static fc_status tree_build(const fc_bs_market *m, size_t n, tree *t) {
    double dt = m->expiry / (double)n;
    t->n = n;
    t->dx = sqrt(m->vol * m->vol * dt);
    t->pu = 0.5 + 0.5 * ((m->rate - m->div - 0.5 * m->vol * m->vol) * dt) / t->dx;
    t->pd = 1.0 - t->pu;
    t->disc = exp(-m->rate * dt);
    if (!(t->pu >= 0.0 && t->pu <= 1.0))
        return fc_error(FC_ERR_INVALID, "--steps %zu: the tree's up probability %g is outside [0, 1] (the drift "
                        "r - q - sigma^2/2 is large against sigma sqrt(dt)): use more steps", n, t->pu);
    t->even = fc_malloc((n + 1) * sizeof(double), "tree prices");
    t->odd = fc_malloc((n + 1) * sizeof(double), "tree prices");
    t->v = fc_malloc((n + 1) * sizeof(double), "tree node values");
    if (!t->even || !t->odd || !t->v) return FC_ERR_MEMORY;
    for (size_t p = 0; p <= 2 * n; p++) {
        double s = m->spot * exp((double)((long long)p - (long long)n) * t->dx);
        if (p % 2 == 0) t->even[p / 2] = s;
        else t->odd[p / 2] = s;
    }
    return FC_OK;
}

static double payoff(int is_call, double s, double k) { return fmax(is_call ? s - k : k - s, 0.0); }

/* Step n - 1's node values for bbs: Black-Scholes over the last dt. */
static void last_step_black_scholes(const fc_tree_option *o, tree *t) {
    const double *s = row_prices(t, t->n - 1);
    fc_bs_market m = o->market;
    m.expiry = o->market.expiry / (double)t->n;
    for (size_t j = 0; j < t->n; j++) {
        fc_bs_greeks g;
        m.spot = s[j];
        (void)fc_bs_european(o->type, &m, &g);   /* m was checked: cannot fail */
        double ex = payoff(o->type == FC_CALL, s[j], m.strike);
        t->v[j] = o->american && ex > g.price ? ex : g.price;
    }
}

/* One tree of n steps; smoothed: bbs's last step. */
static fc_status tree_price(const fc_tree_option *o, size_t n, int smoothed, double *price) {
    tree t = {0};
    fc_status st = tree_build(&o->market, n, &t);
    if (st == FC_OK) {
        int call = o->type == FC_CALL;
        size_t first;   /* the step whose row the rollback starts from */
        if (smoothed) {
            last_step_black_scholes(o, &t);
            first = n - 1;
        } else {
            const double *s = row_prices(&t, n);
            for (size_t j = 0; j <= n; j++) t.v[j] = payoff(call, s[j], o->market.strike);
            first = n;
        }
        for (size_t i = first; i-- > 0;)
            fc_tree_step_back(t.v, i + 1, row_prices(&t, i), o->market.strike, call, o->american, t.pd, t.pu,
                              t.disc);
        *price = t.v[0];
    }
    tree_free(&t);
    return st;
}

fc_status fc_binomial_price(const fc_tree_option *o, double *price) {
    FC_TRY(fc_bs_check(&o->market));
    size_t min_steps = o->tree == FC_TREE_BBSR ? 2 : 1;
    if (o->steps < min_steps || o->steps > FC_TREE_MAX_STEPS)
        return fc_error(FC_ERR_INVALID, "--steps: expected %zu to %d time steps%s, got %zu", min_steps,
                        FC_TREE_MAX_STEPS, o->tree == FC_TREE_BBSR ? " for bbsr (it also prices N/2)" : "",
                        o->steps);
    if (o->tree == FC_TREE_CRR) return tree_price(o, o->steps, 0, price);
    double full;
    FC_TRY(tree_price(o, o->steps, 1, &full));
    if (o->tree == FC_TREE_BBS) {
        *price = full;
        return FC_OK;
    }
    /* Richardson on an error c / N: (N f(N) - M f(M)) / (N - M), M = N / 2
     * (2 f(N) - f(N/2) for even N). */
    size_t half_steps = o->steps / 2;
    double half;
    FC_TRY(tree_price(o, half_steps, 1, &half));
    double n = (double)o->steps, h = (double)half_steps;
    *price = (n * full - h * half) / (n - h);
    return FC_OK;
}
