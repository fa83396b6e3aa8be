/* Ledoit-Wolf shrinkage (src/quant/ledoit_wolf.c) against
 * sklearn.covariance.ledoit_wolf on the bundled index returns and the
 * synthetic 20-asset panel (python/make_portfolio_fixtures.py): the
 * shrinkage and every entry to 1e-12 relative; its relation to the sample
 * covariance; the constrained portfolios on it against cvxpy; one asset. */
#include <math.h>
#include <stdio.h>

#include "portfolio_fixture.h"
#include "quant/ledoit_wolf.h"
#include "quant/portfolio_qp.h"

static void test_panel(const char *panel) {
    pf_panel p;
    if (!pf_panel_load(panel, &p)) return;
    const size_t N = p.N;
    double lw[PF_MAX_ASSETS * PF_MAX_ASSETS], s = -1, kase_w[PF_MAX_ASSETS], want[PF_MAX_ASSETS];
    char kase[64];
    CHECK(fc_ledoit_wolf(p.p.values, p.T, N, lw, &s) == FC_OK);
    snprintf(kase, sizeof kase, "%s:lw", panel);
    CHECK_CLOSE(s, pf_value(kase, "_shrinkage"), 0, 1e-12);
    CHECK(s > 0 && s < 1);
    double trace = 0.0;
    for (size_t i = 0; i < N; i++) trace += p.cov[i * N + i];
    for (size_t i = 0; i < N; i++)
        for (size_t j = i; j < N; j++) {
            char key[160];
            snprintf(key, sizeof key, "cov_%s_%s", p.d->ids[i], p.d->ids[j]);
            CHECK_CLOSE(lw[i * N + j], pf_value(kase, key), 0, 1e-12);
            CHECK(lw[i * N + j] == lw[j * N + i]);
            /* (1 - s) (T - 1) / T S_sample + s m I, m = trace(S_sample) (T - 1) / (T N) */
            double ddof0 = (double)(p.T - 1) / (double)p.T;
            double want_ij = (1 - s) * ddof0 * p.cov[i * N + j] + (i == j ? s * ddof0 * trace / (double)N : 0.0);
            CHECK_CLOSE(lw[i * N + j], want_ij, 1e-20, 1e-12);
        }
    double zero[PF_MAX_ASSETS] = {0}, inf[PF_MAX_ASSETS];
    for (size_t i = 0; i < N; i++) inf[i] = INFINITY;
    fc_box box = {zero, inf};
    snprintf(kase, sizeof kase, "%s:lw:long:minvar", panel);
    CHECK(fc_portfolio_box_min_variance(lw, p.mu, N, &box, NULL, kase_w, NULL) == FC_OK);
    pf_weights(&p, kase, want);
    for (size_t j = 0; j < N; j++) CHECK_CLOSE(kase_w[j], want[j], 1e-9, 0);
    snprintf(kase, sizeof kase, "%s:lw:long:maxsharpe:0", panel);
    CHECK(fc_portfolio_box_max_sharpe(lw, p.mu, N, &box, 0.0, kase_w, NULL) == FC_OK);
    pf_weights(&p, kase, want);
    for (size_t j = 0; j < N; j++) CHECK_CLOSE(kase_w[j], want[j], 1e-9, 0);
    pf_panel_free(&p);
}

/* One asset: the variance with ddof 0 and no shrinkage, as scikit-learn. */
static void test_one_asset(void) {
    const double R[3] = {0.01, -0.02, 0.04};
    double cov, s = -1;
    CHECK(fc_ledoit_wolf(R, 3, 1, &cov, &s) == FC_OK);
    CHECK(s == 0.0);
    CHECK_CLOSE(cov, (0.0 + 0.0009 + 0.0009) / 3.0, 1e-18, 1e-14);   /* mean 0.01: deviations 0, -0.03, 0.03 */
    CHECK(fc_ledoit_wolf(R, 1, 1, &cov, &s) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "at least 2 returns");
}

int main(void) {
    test_one_asset();
    test_panel("eu");
    test_panel("syn");
    return CHECK_DONE();
}
