/* Constrained portfolios (src/quant/portfolio_qp.c on the Goldfarb-Idnani
 * solver src/quant/qp_dense.c): long-only, box, per-asset bounds and
 * short-box minimum variance, target return, frontier and maximum Sharpe on
 * the bundled index returns and a synthetic 20-asset panel, against cvxpy
 * with CLARABEL (tolerances 1e-13) and scipy's SLSQP, from
 * python/make_portfolio_fixtures.py; the KKT conditions checked here from
 * the weights alone; hand-solved cases and the errors. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "portfolio_fixture.h"
#include "quant/portfolio_qp.h"

/* Weights against cvxpy: CLARABEL at tolerances 1e-13 agrees with fcast to
 * 2e-11 on these problems (its interior point stops short of the bounds by
 * about that), so 1e-9 absolute; the variance to 1e-9 relative (4e-13
 * measured, fcast's never above cvxpy's). */
#define W_TOL 1e-9
#define VAR_RTOL 1e-9
/* The KKT conditions of fcast's own solution, relative to max|cov|. */
#define KKT_TOL 1e-12

typedef struct {
    double lo[PF_MAX_ASSETS], hi[PF_MAX_ASSETS];
    fc_box box;
} bounds;

/* The fixture's boxes; "bounds" is --bounds DAX=0:0.5,SMI=0.1:0.6,CAC=0:0.3,FTSE=0.2:1. */
static void make_bounds(const char *name, const pf_panel *p, bounds *b) {
    static const char *eu_id[4] = {"DAX", "SMI", "CAC", "FTSE"};
    static const double eu_lo[4] = {0.0, 0.1, 0.0, 0.2}, eu_hi[4] = {0.5, 0.6, 0.3, 1.0};
    const size_t N = p->N;
    for (size_t i = 0; i < N; i++) {
        if (!strcmp(name, "long")) b->lo[i] = 0.0, b->hi[i] = INFINITY;
        else if (!strcmp(name, "box")) b->lo[i] = N == 4 ? 0.02 : 0.0, b->hi[i] = N == 4 ? 0.4 : 0.1;
        else if (!strcmp(name, "short")) b->lo[i] = -0.2, b->hi[i] = 0.5;
        else
            for (int k = 0; k < 4; k++)
                if (!strcmp(p->d->ids[i], eu_id[k])) b->lo[i] = eu_lo[k], b->hi[i] = eu_hi[k];
    }
    b->box = (fc_box){b->lo, b->hi};
}

static double quad(const double *S, size_t N, const double *w) {
    double v = 0.0;
    for (size_t i = 0; i < N; i++)
        for (size_t j = 0; j < N; j++) v += w[i] * S[i * N + j] * w[j];
    return v;
}

static double max_abs(const double *a, size_t n) {
    double m = 0.0;
    for (size_t i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
    return m;
}

static void check_weights(const char *what, const double *got, const double *want, size_t N, double tol) {
    for (size_t j = 0; j < N; j++)
        CHECK_MSG(fabs(got[j] - want[j]) <= tol, "%s[%zu]: %.17g vs reference %.17g", what, j, got[j], want[j]);
}

/* The KKT conditions of min w'Sw, 1'w = 1, (mu'w = target), lo <= w <= hi,
 * from w alone: the gradient g = 2 S w equals nu + gamma mu_i on the free
 * assets (nu, gamma fitted on them by least squares), is >= that at a
 * lower bound and <= at an upper one; w feasible. */
static void check_kkt(const char *what, const pf_panel *p, const bounds *b, const double *w, int with_target) {
    const size_t N = p->N;
    double g[PF_MAX_ASSETS], scale = max_abs(p->cov, N * N), sum = 0.0;
    for (size_t i = 0; i < N; i++) {
        g[i] = 0.0;
        for (size_t j = 0; j < N; j++) g[i] += 2.0 * p->cov[i * N + j] * w[j] / scale;
        sum += w[i];
        CHECK_MSG(w[i] >= b->lo[i] && w[i] <= b->hi[i], "%s: w[%zu] = %.17g outside [%g, %g] (bounds hold exactly)",
                  what, i, w[i], b->lo[i], b->hi[i]);
    }
    CHECK_MSG(fabs(sum - 1.0) <= 1e-14, "%s: weights sum to %.17g", what, sum);
    /* least squares of g_i = nu + gamma mu_i over the free assets */
    double s1 = 0, sm = 0, smm = 0, sg = 0, smg = 0;
    int free_n = 0;
    for (size_t i = 0; i < N; i++) {
        int free = w[i] > b->lo[i] + 1e-9 && w[i] < b->hi[i] - 1e-9;
        if (!free) continue;
        free_n++, s1 += 1, sm += p->mu[i], smm += p->mu[i] * p->mu[i], sg += g[i], smg += p->mu[i] * g[i];
    }
    if (free_n == 0) return;
    double nu = sg / s1, gamma = 0.0, det = s1 * smm - sm * sm;
    /* free assets of one mean: gamma is not identified, only their gradients' equality is checked */
    int identified = !with_target || (free_n >= 2 && det > 1e-12 * s1 * smm);
    if (with_target && identified) nu = (smm * sg - sm * smg) / det, gamma = (s1 * smg - sm * sg) / det;
    for (size_t i = 0; i < N; i++) {
        double r = g[i] - nu - gamma * p->mu[i];
        int at_lo = w[i] <= b->lo[i] + 1e-9, at_hi = w[i] >= b->hi[i] - 1e-9;
        if (!identified && (at_lo || at_hi)) continue;
        if (at_lo) CHECK_MSG(r >= -KKT_TOL, "%s: asset %zu at its lower bound, reduced gradient %.3g < 0", what, i, r);
        else if (at_hi)
            CHECK_MSG(r <= KKT_TOL, "%s: asset %zu at its upper bound, reduced gradient %.3g > 0", what, i, r);
        else CHECK_MSG(fabs(r) <= KKT_TOL, "%s: free asset %zu, stationarity residual %.3g", what, i, r);
    }
}

static void test_min_variance_and_target(const char *panel, const char *const *boxes, size_t n_boxes) {
    pf_panel p;
    if (!pf_panel_load(panel, &p)) return;
    const size_t N = p.N;
    for (size_t k = 0; k < n_boxes; k++) {
        bounds b;
        make_bounds(boxes[k], &p, &b);
        char kase[64];
        double w[PF_MAX_ASSETS], want[PF_MAX_ASSETS];
        fc_qp_info info;
        snprintf(kase, sizeof kase, "%s:%s:minvar", panel, boxes[k]);
        CHECK_MSG(fc_portfolio_box_min_variance(p.cov, p.mu, N, &b.box, NULL, w, &info) == FC_OK, "%s: %s", kase,
                  fc_last_error());
        pf_weights(&p, kase, want);
        check_weights(kase, w, want, N, W_TOL);
        CHECK_CLOSE(quad(p.cov, N, w), pf_value(kase, "_variance"), 0, VAR_RTOL);
        CHECK(quad(p.cov, N, w) <= pf_value(kase, "_variance") * (1 + 1e-12));   /* no worse than cvxpy */
        CHECK_MSG(info.kkt_residual <= KKT_TOL, "%s: KKT residual %.3g", kase, info.kkt_residual);
        check_kkt(kase, &p, &b, w, 0);
        snprintf(kase, sizeof kase, "%s:%s:range", panel, boxes[k]);
        double lo, hi;
        fc_box_return_range(&b.box, p.mu, N, &lo, &hi);
        CHECK_CLOSE(lo, pf_value(kase, "_lowest"), 0, 1e-13);
        CHECK_CLOSE(hi, pf_value(kase, "_highest"), 0, 1e-13);
        snprintf(kase, sizeof kase, "%s:%s:target", panel, boxes[k]);
        double target = pf_value(kase, "_target");
        CHECK_MSG(fc_portfolio_box_min_variance(p.cov, p.mu, N, &b.box, &target, w, &info) == FC_OK, "%s: %s", kase,
                  fc_last_error());
        pf_weights(&p, kase, want);
        check_weights(kase, w, want, N, W_TOL);
        CHECK_CLOSE(quad(p.cov, N, w), pf_value(kase, "_variance"), 0, VAR_RTOL);
        double m = 0.0;
        for (size_t j = 0; j < N; j++) m += w[j] * p.mu[j];
        CHECK_CLOSE(m, target, 0, 1e-13);
        CHECK_MSG(info.kkt_residual <= KKT_TOL, "%s: KKT residual %.3g", kase, info.kkt_residual);
        check_kkt(kase, &p, &b, w, 1);
    }
    pf_panel_free(&p);
}

/* Maximum Sharpe: cvxpy on the same homogenised programme to W_TOL, and a
 * Sharpe ratio no lower than scipy's SLSQP on the ratio itself (a
 * different route; its weights agree to 7e-9, SLSQP's own accuracy: 1e-7). */
static void test_max_sharpe(const char *panel, const char *const *boxes, size_t n_boxes) {
    pf_panel p;
    if (!pf_panel_load(panel, &p)) return;
    const size_t N = p.N;
    for (size_t k = 0; k < n_boxes; k++)
        for (int r = 0; r < 2; r++) {
            bounds b;
            make_bounds(boxes[k], &p, &b);
            char kase[64], scipy[80];
            snprintf(kase, sizeof kase, "%s:%s:maxsharpe:%s", panel, boxes[k], r ? "0.02" : "0");
            snprintf(scipy, sizeof scipy, "%s:scipy", kase);
            double rf = pf_value(kase, "_rf"), w[PF_MAX_ASSETS], want[PF_MAX_ASSETS], m = 0.0;
            fc_qp_info info;
            CHECK_MSG(fc_portfolio_box_max_sharpe(p.cov, p.mu, N, &b.box, rf, w, &info) == FC_OK, "%s: %s", kase,
                      fc_last_error());
            pf_weights(&p, kase, want);
            check_weights(kase, w, want, N, W_TOL);
            pf_weights(&p, scipy, want);
            check_weights(scipy, w, want, N, 1e-7);
            for (size_t j = 0; j < N; j++) m += w[j] * p.mu[j];
            double sharpe = (m - rf) / sqrt(quad(p.cov, N, w));
            CHECK_CLOSE(sharpe, pf_value(kase, "_sharpe"), 0, 1e-12);
            CHECK_MSG(sharpe >= pf_value(scipy, "_sharpe") * (1 - 1e-13), "%s: Sharpe %.17g below SLSQP's %.17g",
                      kase, sharpe, pf_value(scipy, "_sharpe"));
            CHECK_MSG(info.kkt_residual <= KKT_TOL, "%s: KKT residual %.3g", kase, info.kkt_residual);
            double sum = 0.0;
            for (size_t j = 0; j < N; j++) {
                sum += w[j];
                CHECK(w[j] >= b.lo[j] && w[j] <= b.hi[j]);
            }
            CHECK_CLOSE(sum, 1.0, 1e-14, 0);
        }
    pf_panel_free(&p);
}

static void test_frontier(const char *panel) {
    pf_panel p;
    if (!pf_panel_load(panel, &p)) return;
    const size_t N = p.N;
    bounds b;
    make_bounds("long", &p, &b);
    double targets[5], W[5 * PF_MAX_ASSETS], want[PF_MAX_ASSETS], lo, hi;
    fc_qp_info info;
    CHECK_MSG(fc_portfolio_box_frontier(p.cov, p.mu, N, &b.box, 5, targets, W, &info) == FC_OK, "%s", fc_last_error());
    for (int k = 0; k < 4; k++) {
        char kase[64];
        snprintf(kase, sizeof kase, "%s:long:frontier:%d", panel, k);
        /* the targets start at the minimum-variance return: cvxpy's to its accuracy */
        CHECK_CLOSE(targets[k], pf_value(kase, "_target"), 0, 1e-9);
        pf_weights(&p, kase, want);
        check_weights(kase, W + k * N, want, N, W_TOL);
    }
    fc_box_return_range(&b.box, p.mu, N, &lo, &hi);
    CHECK(targets[4] == hi);
    double m = 0.0, prev_var = 0.0;
    for (size_t j = 0; j < N; j++) m += W[4 * N + j] * p.mu[j];
    CHECK_CLOSE(m, hi, 0, 1e-14);
    for (int k = 0; k < 5; k++) {   /* variance rises along the frontier */
        double v = quad(p.cov, N, W + k * N);
        CHECK(v >= prev_var);
        prev_var = v;
    }
    CHECK(info.kkt_residual <= KKT_TOL);
    pf_panel_free(&p);
}

/* Deterministic uniforms in (0, 1) (xorshift64*) for the random problems. */
static double uniform(uint64_t *state) {
    *state ^= *state >> 12, *state ^= *state << 25, *state ^= *state >> 27;
    return ((double)((*state * 2685821657736338717ull) >> 11) + 0.5) / 9007199254740992.0;
}

/* 300 random problems (2 to 20 assets, returns of random scales and a
 * common factor, boxes long-only / capped / shorted / per asset, half with
 * a target inside the reachable range, a 3-point frontier, ties of means
 * in some): every
 * solution satisfies the KKT conditions (check_kkt, from the weights
 * alone: sufficient for a convex programme) and the solver's residual. */
static void test_random_problems(void) {
    uint64_t state = 38;
    int identified = 0;   /* problems whose target multiplier the check can fit */
    for (int trial = 0; trial < 300; trial++) {
        pf_panel p;
        memset(&p, 0, sizeof p);
        p.N = 2 + (size_t)(uniform(&state) * 19);
        p.T = p.N + 5 + (size_t)(uniform(&state) * 40);
        const size_t N = p.N, T = p.T;
        double R[80 * PF_MAX_ASSETS], scale[PF_MAX_ASSETS];
        for (size_t j = 0; j < N; j++) scale[j] = 0.005 + 0.03 * uniform(&state);
        for (size_t t = 0; t < T; t++) {
            double f = sqrt(-2 * log(uniform(&state))) * cos(6.283185307179586 * uniform(&state));
            for (size_t j = 0; j < N; j++) {
                double z = sqrt(-2 * log(uniform(&state))) * cos(6.283185307179586 * uniform(&state));
                R[t * N + j] = 0.0005 * (uniform(&state) - 0.3) + 0.01 * f * (j % 3) + scale[j] * z;
            }
        }
        CHECK(fc_portfolio_moments(R, T, N, p.mu, p.cov) == FC_OK);
        if (trial % 7 == 0) p.mu[1] = p.mu[0];   /* a tie of means */
        bounds b;
        int kind = trial % 4;
        for (size_t i = 0; i < N; i++) {
            b.lo[i] = kind == 2 ? -0.3 * uniform(&state) : kind == 3 ? 0.5 * uniform(&state) / (double)N : 0.0;
            b.hi[i] = kind == 0 ? INFINITY : fmax(b.lo[i], 0.0) + (1.5 + 3 * uniform(&state)) / (double)N;
        }
        b.box = (fc_box){b.lo, b.hi};
        double w[PF_MAX_ASSETS], lo, hi, target;
        fc_qp_info info;
        char what[64];
        snprintf(what, sizeof what, "random problem %d (%zu assets, box %d)", trial, N, kind);
        fc_status st = fc_portfolio_box_min_variance(p.cov, p.mu, N, &b.box, NULL, w, &info);
        CHECK_MSG(st == FC_OK, "%s: %s", what, fc_last_error());
        if (st != FC_OK) continue;
        check_kkt(what, &p, &b, w, 0);
        CHECK_MSG(info.kkt_residual <= KKT_TOL, "%s: KKT residual %.3g", what, info.kkt_residual);
        fc_box_return_range(&b.box, p.mu, N, &lo, &hi);
        target = lo + (hi - lo) * uniform(&state);
        st = fc_portfolio_box_min_variance(p.cov, p.mu, N, &b.box, &target, w, &info);
        CHECK_MSG(st == FC_OK, "%s target: %s", what, fc_last_error());
        if (st != FC_OK) continue;
        double m = 0.0;
        int free_n = 0;
        for (size_t j = 0; j < N; j++) m += w[j] * p.mu[j], free_n += w[j] > b.lo[j] + 1e-9 && w[j] < b.hi[j] - 1e-9;
        CHECK_CLOSE(m, target, 1e-18, 1e-12);
        CHECK_MSG(info.kkt_residual <= KKT_TOL, "%s target: KKT residual %.3g", what, info.kkt_residual);
        check_kkt(what, &p, &b, w, 1);
        identified += free_n >= 2;
        double targets[3], W[3 * PF_MAX_ASSETS];
        CHECK_MSG(fc_portfolio_box_frontier(p.cov, p.mu, N, &b.box, 3, targets, W, &info) == FC_OK, "%s frontier: %s",
                  what, fc_last_error());
        for (int k = 0; k < 3; k++) check_kkt(what, &p, &b, W + k * N, k > 0);
        CHECK_MSG(fc_portfolio_box_max_sharpe(p.cov, p.mu, N, &b.box, lo - 1e-4, w, &info) == FC_OK, "%s Sharpe: %s",
                  what, fc_last_error());
        CHECK_MSG(info.kkt_residual <= KKT_TOL, "%s Sharpe: KKT residual %.3g", what, info.kkt_residual);
    }
    CHECK(identified > 200);
}

/* Two assets, cov diag(0.04, 0.01): unconstrained w1 = 0.2; w1 >= 0.5
 * binds, so w = (0.5, 0.5). Max Sharpe with mu = (0.1, 0.05), rf 0: the
 * unconstrained tangency is S^-1 mu ~ (2.5, 5) -> (1/3, 2/3). */
static void test_by_hand(void) {
    const double cov[4] = {0.04, 0.0, 0.0, 0.01}, mu[2] = {0.1, 0.05};
    double lo[2] = {0.5, 0.0}, hi[2] = {INFINITY, INFINITY}, w[2];
    fc_box b = {lo, hi};
    CHECK(fc_portfolio_box_min_variance(cov, mu, 2, &b, NULL, w, NULL) == FC_OK);
    CHECK_CLOSE(w[0], 0.5, 1e-15, 0);
    CHECK_CLOSE(w[1], 0.5, 1e-15, 0);
    lo[0] = 0.0;
    CHECK(fc_portfolio_box_min_variance(cov, mu, 2, &b, NULL, w, NULL) == FC_OK);
    CHECK_CLOSE(w[0], 0.2, 1e-15, 0);
    CHECK(fc_portfolio_box_max_sharpe(cov, mu, 2, &b, 0.0, w, NULL) == FC_OK);
    CHECK_CLOSE(w[0], 1.0 / 3.0, 1e-15, 0);
    CHECK_CLOSE(w[1], 2.0 / 3.0, 1e-15, 0);
    /* the frontier's end on a face: assets 0 and 1 tie at the highest mean,
     * so the last point is the least variance on w0 + w1 = 1: (0.2, 0.8, 0) */
    const double cov3[9] = {0.04, 0, 0, 0, 0.01, 0, 0, 0, 0.02}, mu3[3] = {0.002, 0.002, 0.001};
    double lo3[3] = {0, 0, 0}, hi3[3] = {INFINITY, INFINITY, INFINITY}, t3[3], W3[9];
    fc_box b3 = {lo3, hi3};
    CHECK(fc_portfolio_box_frontier(cov3, mu3, 3, &b3, 3, t3, W3, NULL) == FC_OK);
    CHECK(t3[2] == 0.002);
    CHECK_CLOSE(W3[6], 0.2, 1e-15, 0);
    CHECK_CLOSE(W3[7], 0.8, 1e-15, 0);
    CHECK_CLOSE(W3[8], 0.0, 1e-15, 0);
    hi[1] = 0.6;   /* the cap binds: (0.4, 0.6) */
    CHECK(fc_portfolio_box_max_sharpe(cov, mu, 2, &b, 0.0, w, NULL) == FC_OK);
    CHECK_CLOSE(w[0], 0.4, 1e-15, 0);
    CHECK_CLOSE(w[1], 0.6, 1e-15, 0);
}

static void test_errors(void) {
    const double cov[4] = {0.04, 0.0, 0.0, 0.01}, mu[2] = {0.001, 0.0005};
    double lo[2] = {0.0, 0.0}, hi[2] = {0.4, 0.4}, w[2], t[3], W[6];
    fc_box b = {lo, hi};
    CHECK(fc_portfolio_box_min_variance(cov, mu, 2, &b, NULL, w, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--max-weight x 2 assets must be at least 1");
    hi[0] = hi[1] = 1.0, lo[0] = 0.7, lo[1] = 0.7;
    CHECK(fc_portfolio_box_min_variance(cov, mu, 2, &b, NULL, w, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "lower bounds sum to 1.4");
    lo[0] = 0.0, lo[1] = 0.5, hi[1] = 0.2;
    CHECK(fc_portfolio_box_min_variance(cov, mu, 2, &b, NULL, w, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "lower[1] = 0.5 > upper[1] = 0.2");
    lo[1] = -INFINITY, hi[1] = 1.0;
    CHECK(fc_portfolio_box_min_variance(cov, mu, 2, &b, NULL, w, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "lower[1] = -inf");
    lo[1] = 0.0;
    double target = 0.3 / 252;   /* the highest is 0.001 x 252 = 0.252 a year */
    CHECK(fc_portfolio_box_min_variance(cov, mu, 2, &b, &target, w, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--target-return 0.3 a year is above the highest return reachable under the "
                                    "bounds (reachable: 0.126 to 0.252 a year)");
    CHECK(fc_portfolio_box_max_sharpe(cov, mu, 2, &b, 0.3 / 252, w, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "risk-free rate 0.3 a year (the highest reachable return is 0.252 a year)");
    CHECK(fc_portfolio_box_frontier(cov, mu, 2, &b, 1, t, W, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--frontier 1: expected at least 2 points");
    const double singular[4] = {0.01, 0.01, 0.01, 0.01};
    CHECK(fc_portfolio_box_min_variance(singular, mu, 2, &b, NULL, w, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "not positive definite");
}

int main(void) {
    static const char *eu_boxes[] = {"long", "box", "short", "bounds"}, *syn_boxes[] = {"long", "box", "short"};
    test_by_hand();
    test_errors();
    test_min_variance_and_target("eu", eu_boxes, 4);
    test_min_variance_and_target("syn", syn_boxes, 3);
    test_max_sharpe("eu", eu_boxes, 4);
    test_max_sharpe("syn", syn_boxes, 3);
    test_frontier("eu");
    test_frontier("syn");
    test_random_problems();
    return CHECK_DONE();
}
