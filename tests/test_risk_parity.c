/* Risk budgeting (src/quant/risk_parity.c, Spinu's programme by Newton):
 * equal risk contributions and linearly rising budgets on the bundled index
 * returns and the synthetic 20-asset panel, on the sample and the
 * Ledoit-Wolf covariance, against scipy.optimize.least_squares (Levenberg-
 * Marquardt on the contribution equations themselves, tolerances 1e-15;
 * python/make_portfolio_fixtures.py); the contributions to 1e-12; the
 * two-asset closed form; the errors. */
#include <math.h>
#include <stdio.h>

#include "portfolio_fixture.h"
#include "quant/ledoit_wolf.h"
#include "quant/risk_parity.h"

/* scipy's least squares (tolerances 1e-15) agrees to 1e-16 here; weights to 1e-12 */
#define W_TOL 1e-12

static void check_case(const pf_panel *p, const double *cov, const char *kase, const double *budgets) {
    const size_t N = p->N;
    double w[PF_MAX_ASSETS], want[PF_MAX_ASSETS], rc[PF_MAX_ASSETS], err = 1, sum = 0;
    size_t steps = 0;
    CHECK_MSG(fc_risk_parity(cov, N, budgets, w, &steps, &err) == FC_OK, "%s: %s", kase, fc_last_error());
    pf_weights(p, kase, want);
    for (size_t j = 0; j < N; j++)
        CHECK_MSG(fabs(w[j] - want[j]) <= W_TOL, "%s[%zu]: %.17g vs scipy %.17g", kase, j, w[j], want[j]);
    fc_risk_contributions(cov, N, w, rc);
    double bsum = 0;
    for (size_t j = 0; j < N; j++) bsum += budgets ? budgets[j] : 1.0;
    for (size_t j = 0; j < N; j++) {
        double b = (budgets ? budgets[j] : 1.0) / bsum;
        CHECK_MSG(fabs(rc[j] - b) <= RISK_PARITY_CHECK, "%s: RC[%zu] = %.17g, budget %.17g", kase, j, rc[j], b);
        CHECK(w[j] > 0);
        sum += w[j];
    }
    CHECK_CLOSE(sum, 1.0, 1e-15, 0);
    CHECK(err <= RISK_PARITY_CHECK);
    CHECK_MSG(steps <= 30, "%s: %zu Newton steps", kase, steps);   /* quadratic convergence */
}

static void test_panel(const char *panel) {
    pf_panel p;
    if (!pf_panel_load(panel, &p)) return;
    char kase[64];
    double budgets[PF_MAX_ASSETS], lw[PF_MAX_ASSETS * PF_MAX_ASSETS];
    snprintf(kase, sizeof kase, "%s:riskparity", panel);
    check_case(&p, p.cov, kase, NULL);
    snprintf(kase, sizeof kase, "%s:riskparity:budgets", panel);
    for (size_t j = 0; j < p.N; j++) {
        char key[80];
        snprintf(key, sizeof key, "_budget_%s", p.d->ids[j]);
        budgets[j] = pf_value(kase, key);
    }
    check_case(&p, p.cov, kase, budgets);
    CHECK(fc_ledoit_wolf(p.p.values, p.T, p.N, lw, NULL) == FC_OK);
    snprintf(kase, sizeof kase, "%s:lw:riskparity", panel);
    check_case(&p, lw, kase, NULL);
    pf_panel_free(&p);
}

/* Two assets: equal contributions whatever the correlation at
 * w1 = s2 / (s1 + s2); one asset: w = 1. */
static void test_closed_forms(void) {
    const double cov[4] = {0.04, 0.006, 0.006, 0.01};   /* s1 = 0.2, s2 = 0.1, rho = 0.3 */
    double w[2];
    CHECK(fc_risk_parity(cov, 2, NULL, w, NULL, NULL) == FC_OK);
    CHECK_CLOSE(w[0], 1.0 / 3.0, 1e-15, 0);
    CHECK_CLOSE(w[1], 2.0 / 3.0, 1e-15, 0);
    const double one[1] = {0.02};
    CHECK(fc_risk_parity(one, 1, NULL, w, NULL, NULL) == FC_OK);
    CHECK(w[0] == 1.0);
}

static void test_errors(void) {
    const double cov[4] = {0.04, 0.0, 0.0, 0.01}, zero_var[4] = {0.04, 0.0, 0.0, 0.0};
    const double bad[2] = {1.0, -0.5};
    double w[2];
    CHECK(fc_risk_parity(cov, 2, bad, w, NULL, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "budgets[1] = -0.5: risk budgets must be positive");
    CHECK(fc_risk_parity(zero_var, 2, NULL, w, NULL, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "asset 1 has variance 0");
}

int main(void) {
    test_closed_forms();
    test_errors();
    test_panel("eu");
    test_panel("syn");
    return CHECK_DONE();
}
