/* Risk measures against empyrical (volatility, Sharpe, Sortino, annual
 * return, maximum drawdown), QuantLib's percentile convention for historical
 * VaR/CVaR and scipy's normal quantiles for parametric VaR/ES, all on the
 * bundled DAX/SMI/CAC/FTSE prices (fixture: python/make_risk_fixtures.py,
 * 1e-9 relative); hand-computed small cases; inner-join alignment; errors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "quant_fixture_csv.h"
#include "data/dataset.h"
#include "quant/returns.h"
#include "quant/risk.h"

static double metric(const double *r, size_t n, const char *name) {
    fc_risk_summary s;
    if (fc_risk_summarize(r, n, &s) != FC_OK) return NAN;
    if (!strcmp(name, "annual_return")) return s.annual_return;
    if (!strcmp(name, "annual_volatility")) return s.annual_volatility;
    if (!strcmp(name, "sharpe")) return s.sharpe;
    if (!strcmp(name, "sortino")) return s.sortino;
    if (!strcmp(name, "max_drawdown")) return s.max_drawdown;
    double level = 0, var = NAN, tail = NAN;
    char kind[32] = "";
    const char *us = strrchr(name, '_');
    if (!us) return NAN;
    level = strtod(us + 1, NULL);
    snprintf(kind, sizeof kind, "%.*s", (int)(us - name), name);
    if (!strncmp(kind, "hist", 4)) fc_var_historical(r, n, level, &var, &tail);
    else fc_var_normal(r, n, level, &var, &tail);
    return strstr(kind, "_var") ? var : tail;
}

static void test_against_fixture(void) {
    fc_dataset *d = NULL;
    fc_load_options opt = {0};
    CHECK(fc_dataset_load_csv(FC_SOURCE_DIR "/data/eu_stock_markets.csv", &opt, &d) == FC_OK);
    if (!d) return;
    fc_panel p;
    CHECK(fc_panel_align(d, 2, &p) == FC_OK);
    CHECK(p.n_rows == 1860 && p.n_series == 4);
    CHECK(fc_panel_to_returns(&p) == FC_OK);
    CHECK(p.n_rows == 1859);
    static fixture_row rows[256];
    int n = fixture_read(FC_SOURCE_DIR "/tests/fixtures/quant_risk_eu_stock.csv", rows, 256);
    CHECK(n == 84);
    double col[1859];
    int compared = 0;
    for (int i = 0; i < n; i++) {
        ssize_t s = fc_dataset_find(d, rows[i].a);
        CHECK(s >= 0);
        if (s < 0) continue;
        fc_panel_column(&p, (size_t)s, col);
        double got = metric(col, p.n_rows, rows[i].b);
        CHECK_MSG(fabs(got - rows[i].v) <= 1e-9 * fabs(rows[i].v) + 1e-15, "%s %s: %.17g vs %.17g",
                  rows[i].a, rows[i].b, got, rows[i].v);
        compared++;
    }
    CHECK(compared == 84);
    fc_panel_free(&p);
    fc_dataset_free(&d);
}

static void test_hand_cases(void) {
    const double r[5] = {0.1, -0.2, 0.05, -0.1, 0.3};
    /* wealth 1.1, 0.88, 0.924, 0.8316, 1.08108: worst drawdown 0.8316 / 1.1 - 1 */
    CHECK_CLOSE(fc_max_drawdown(r, 5), 0.8316 / 1.1 - 1.0, 1e-15, 0);
    const double up[3] = {0.01, 0.02, 0.03};
    CHECK(fc_max_drawdown(up, 3) == 0.0);
    const double drop[2] = {-0.5, 0.1}; /* the first period counts: W_0 = 1 */
    CHECK_CLOSE(fc_max_drawdown(drop, 2), -0.5, 1e-15, 0);
    double var, cvar;
    CHECK(fc_var_historical(r, 5, 0.8, &var, &cvar) == FC_OK); /* k = ceil(0.2*5) = 1 */
    CHECK_CLOSE(var, 0.2, 1e-15, 0);
    CHECK_CLOSE(cvar, 0.2, 1e-15, 0);
    CHECK(fc_var_historical(r, 5, 0.6, &var, &cvar) == FC_OK); /* k = 2: -0.2, -0.1 */
    CHECK_CLOSE(var, 0.1, 1e-15, 0);
    CHECK_CLOSE(cvar, 0.15, 1e-15, 0);
    CHECK(fc_var_historical(r, 5, 0.3, &var, &cvar) == FC_OK); /* k = ceil(3.5) = 4: a gain */
    CHECK_CLOSE(var, -0.1, 1e-15, 0);
    /* normal VaR with mean 0.03, sd: Phi^-1(0.975) = 1.959963984540054 */
    double sd = fc_std_ddof1(r, 5), es;
    CHECK(fc_var_normal(r, 5, 0.975, &var, &es) == FC_OK);
    CHECK_CLOSE(var, 1.959963984540054 * sd - 0.03, 1e-14, 0);
    CHECK_CLOSE(fc_sharpe_ratio(r, 5), 0.03 / sd * sqrt(252.0), 1e-14, 0);
    /* Sortino: downside over all 5 periods: sqrt((0.04 + 0.01) / 5) */
    CHECK_CLOSE(fc_sortino_ratio(r, 5), 0.03 * 252 / (sqrt(0.05 / 5) * sqrt(252.0)), 1e-12, 0);
    const double flat[3] = {0.01, 0.01, 0.01};
    CHECK(isnan(fc_sharpe_ratio(flat, 3)));
}

static void test_alignment_inner_join(void) {
    /* B lacks ds 1 and 4 (4 becomes a masked gap), A lacks 5: common ds are 2 and 3. */
    const char *csv = "unique_id,ds,y\nA,1,10\nA,2,11\nA,3,12\nA,4,13\nB,2,20\nB,3,22\nB,5,30\n";
    fc_dataset *d = NULL;
    fc_load_options opt = {0};
    CHECK(fc_dataset_load_buffer("mem.csv", csv, strlen(csv), &opt, &d) == FC_OK);
    if (!d) return;
    fc_panel p;
    CHECK(fc_panel_align(d, 2, &p) == FC_OK);
    CHECK(p.n_rows == 2);
    if (p.n_rows == 2) {
        CHECK(p.ds[0] == 2 && p.ds[1] == 3);
        CHECK(p.values[0] == 11 && p.values[1] == 20 && p.values[2] == 12 && p.values[3] == 22);
    }
    CHECK(fc_panel_to_returns(&p) == FC_OK);
    CHECK(p.n_rows == 1 && p.ds[0] == 3);
    CHECK_CLOSE(p.values[0], 12.0 / 11.0 - 1.0, 1e-15, 0);
    CHECK_CLOSE(p.values[1], 0.1, 1e-15, 0);
    fc_panel_free(&p);
    CHECK(fc_panel_align(d, 3, &p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "inner join");
    fc_dataset_free(&d);
}

static void test_errors(void) {
    const char *csv = "unique_id,ds,y\nA,1,10\nA,2,0\nA,3,12\n";
    fc_dataset *d = NULL;
    fc_load_options opt = {0};
    CHECK(fc_dataset_load_buffer("prices.csv", csv, strlen(csv), &opt, &d) == FC_OK);
    if (!d) return;
    fc_panel p;
    CHECK(fc_panel_align(d, 2, &p) == FC_OK);
    CHECK(fc_panel_to_returns(&p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "series A at ds 2");
    CHECK_CONTAINS(fc_last_error(), "positive");
    fc_panel_free(&p);
    fc_dataset_free(&d);
    const double r[3] = {0.1, 0.2, -0.1};
    double v, c;
    CHECK(fc_var_historical(r, 3, 1.0, &v, &c) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--level");
    CHECK(fc_var_normal(r, 3, 0.0, &v, &c) == FC_ERR_INVALID);
}

int main(void) {
    test_against_fixture();
    test_hand_cases();
    test_alignment_inner_join();
    test_errors();
    return CHECK_DONE();
}
