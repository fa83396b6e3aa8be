/* Portfolio weights: a hand-solved 2-asset case, the fully invested and
 * target-return constraints, and numpy's Merton closed form on the bundled
 * DAX/SMI/CAC/FTSE returns (fixture: python/make_risk_fixtures.py). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "quant_fixture_csv.h"
#include "data/dataset.h"
#include "quant/portfolio.h"
#include "quant/returns.h"

static void test_two_assets_by_hand(void) {
    /* min w'Sw, w1 + w2 = 1: w1 = (s22 - s12) / (s11 + s22 - 2 s12) = 0.038 / 0.046 */
    const double cov[4] = {0.01, 0.002, 0.002, 0.04}, mu[2] = {0.01, 0.02};
    double w[2];
    CHECK(fc_portfolio_min_variance(cov, 2, w) == FC_OK);
    CHECK_CLOSE(w[0], 0.038 / 0.046, 1e-15, 0);
    CHECK_CLOSE(w[1], 0.008 / 0.046, 1e-15, 0);
    /* two constraints fix both weights: w1 = (R - mu2) / (mu1 - mu2) */
    CHECK(fc_portfolio_target_return(cov, mu, 2, 0.013, w) == FC_OK);
    CHECK_CLOSE(w[0], 0.7, 1e-14, 0);
    CHECK_CLOSE(w[1], 0.3, 1e-14, 0);
    /* the moments of a tiny return matrix, by hand */
    const double R[6] = {0.01, 0.03, -0.01, 0.0, 0.03, 0.06}; /* (3, 2) */
    double m[2], S[4];
    CHECK(fc_portfolio_moments(R, 3, 2, m, S) == FC_OK);
    CHECK_CLOSE(m[0], 0.01, 1e-16, 0);
    CHECK_CLOSE(m[1], 0.03, 1e-16, 0);
    CHECK_CLOSE(S[0], 0.0004, 1e-17, 0);           /* (0 + 4e-4 + 4e-4) / 2 */
    CHECK_CLOSE(S[3], 0.0009, 1e-17, 0);           /* (0 + 9e-4 + 9e-4) / 2 */
    CHECK_CLOSE(S[1], 0.0006, 1e-17, 0);           /* (0 + 6e-4 + 6e-4) / 2 */
    CHECK(S[1] == S[2]);
}

static void test_eu_stock_against_numpy(void) {
    fc_dataset *d = NULL;
    fc_load_options opt = {0};
    CHECK(fc_dataset_load_csv(FC_SOURCE_DIR "/data/eu_stock_markets.csv", &opt, &d) == FC_OK);
    if (!d) return;
    fc_panel p;
    CHECK(fc_panel_align(d, 3, &p) == FC_OK && fc_panel_to_returns(&p) == FC_OK);
    const size_t N = p.n_series;
    double mu[4], cov[16], wmin[4], wtgt[4], mean, vol;
    CHECK(N == 4);
    CHECK(fc_portfolio_moments(p.values, p.n_rows, N, mu, cov) == FC_OK);
    fixture_row rows[16];
    int n = fixture_read(FC_SOURCE_DIR "/tests/fixtures/quant_portfolio_eu_stock.csv", rows, 16);
    CHECK(n == 9);
    double target = n > 0 ? rows[0].v : 0;
    CHECK(fc_portfolio_min_variance(cov, N, wmin) == FC_OK);
    CHECK(fc_portfolio_target_return(cov, mu, N, target, wtgt) == FC_OK);
    for (int i = 1; i < n; i++) {
        ssize_t s = fc_dataset_find(d, rows[i].b);
        CHECK(s >= 0);
        if (s < 0) continue;
        double got = !strcmp(rows[i].a, "min_variance") ? wmin[s] : wtgt[s];
        CHECK_MSG(fabs(got - rows[i].v) <= 1e-9 * fabs(rows[i].v) + 1e-13, "%s %s: %.17g vs %.17g",
                  rows[i].a, rows[i].b, got, rows[i].v);
    }
    double sum_min = 0, sum_tgt = 0;
    for (size_t j = 0; j < N; j++) sum_min += wmin[j], sum_tgt += wtgt[j];
    CHECK_CLOSE(sum_min, 1.0, 1e-13, 0);
    CHECK_CLOSE(sum_tgt, 1.0, 1e-13, 0);
    fc_portfolio_stats(cov, mu, N, wtgt, &mean, &vol);
    CHECK_CLOSE(mean, target, 1e-15, 1e-12);
    /* the minimum-variance portfolio is no riskier than any other, e.g. the target one */
    double mean_min, vol_min;
    fc_portfolio_stats(cov, mu, N, wmin, &mean_min, &vol_min);
    CHECK(vol_min <= vol);
    fc_panel_free(&p);
    fc_dataset_free(&d);
}

static void test_singular(void) {
    const double cov[4] = {0.01, 0.01, 0.01, 0.01}; /* two copies of one asset */
    double w[2];
    CHECK(fc_portfolio_min_variance(cov, 2, w) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "singular");
    const double cov2[4] = {0.01, 0.0, 0.0, 0.02}, mu[2] = {0.01, 0.01};
    CHECK(fc_portfolio_target_return(cov2, mu, 2, 0.02, w) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "same mean return");
}

int main(void) {
    test_two_assets_by_hand();
    test_eu_stock_against_numpy();
    test_singular();
    return CHECK_DONE();
}
