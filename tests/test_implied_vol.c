/* Implied volatility (quant/implied_vol.h) against the committed QuantLib
 * fixture (python/make_option_fixtures.py: options_implied_vol.csv): every
 * row within 1e-10 of the volatility that made the price, and of
 * QuantLib's blackFormulaImpliedStdDev where its answer is meaningful to
 * that (ql_ok); a round trip through Black-Scholes over a wide grid; the
 * bounds as clear errors; and thread-count independence. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "quant/black_scholes.h"
#include "quant/implied_vol.h"
#include "quant_fixture_csv.h"
#include "kernels/quant_implied_vol.h"

#define FIXTURE FC_SOURCE_DIR "/tests/fixtures/quant/options_implied_vol.csv"

static int solve(int call, double S, double K, double r, double q, double T, double price, double *vol) {
    fc_iv_batch b = {1, &call, &S, &K, &r, &q, &T, &price};
    int code;
    fc_implied_vols(&b, vol, &code);
    return code;
}

static void test_against_quantlib(void) {
    FILE *f = fopen(FIXTURE, "r");
    CHECK_MSG(f != NULL, "missing %s", FIXTURE);
    if (!f) return;
    char line[512], *c[10];
    int rows = 0, ql_rows = 0;
    double worst = 0.0, worst_ql = 0.0;
    CHECK(fgets(line, sizeof line, f) != NULL);   /* header */
    while (fgets(line, sizeof line, f)) {
        if (csv_split(line, c, 10) != 10) continue;
        double v[9];
        for (int k = 1; k < 9; k++) v[k] = *c[k] ? strtod(c[k], NULL) : NAN;
        double vol;
        int code = solve(!strcmp(c[0], "call"), v[1], v[2], v[3], v[4], v[5], v[6], &vol);
        CHECK_MSG(code == FC_IV_OK, "row %d: code %d", rows + 2, code);
        worst = fmax(worst, fabs(vol - v[7]));
        CHECK_MSG(fabs(vol - v[7]) <= 1e-10, "row %d: vol %.17g, made from %.17g", rows + 2, vol, v[7]);
        if (atoi(c[9])) {
            ql_rows++;
            worst_ql = fmax(worst_ql, fabs(vol - v[8]));
            CHECK_MSG(fabs(vol - v[8]) <= 1e-10, "row %d: vol %.17g, QuantLib %.17g", rows + 2, vol, v[8]);
        }
        rows++;
    }
    fclose(f);
    CHECK(rows > 1500 && ql_rows > 1300);
    printf("implied vol: %d rows, max |error| %.3g; %d against QuantLib, max |difference| %.3g\n", rows, worst,
           ql_rows, worst_ql);
}

/* Black-Scholes price -> implied vol -> the same vol, far into the wings. */
static void test_round_trip(void) {
    const double strikes[] = {1, 20, 60, 95, 100, 105, 150, 400, 5000};
    const double vols[] = {0.001, 0.02, 0.15, 0.4, 1.5, 6.0};
    const double expiries[] = {1.0 / 365, 0.5, 3, 30};
    double worst = 0.0;
    for (int t = 0; t < 2; t++)
        for (size_t a = 0; a < sizeof strikes / sizeof *strikes; a++)
            for (size_t b = 0; b < sizeof vols / sizeof *vols; b++)
                for (size_t e = 0; e < sizeof expiries / sizeof *expiries; e++) {
                    fc_bs_market m = {100, strikes[a], 0.02, 0.01, vols[b], expiries[e]};
                    fc_bs_greeks g;
                    if (m.vol * m.vol * m.expiry > 700.0) continue;   /* beyond what prices represent */
                    CHECK(fc_bs_european(t ? FC_CALL : FC_PUT, &m, &g) == FC_OK);
                    /* only where the price pins the vol down (see the fixture's notes) */
                    if (!(g.vega > 0.0 && g.price * 2.2e-16 / g.vega < 1e-12)) continue;
                    double vol;
                    CHECK(solve(t, 100, strikes[a], 0.02, 0.01, expiries[e], g.price, &vol) == FC_IV_OK);
                    double tol = 1e-10 + 1e2 * g.price * 2.2e-16 / g.vega;
                    worst = fmax(worst, fabs(vol - vols[b]));
                    CHECK_MSG(fabs(vol - vols[b]) <= tol, "%s K %g vol %g T %g: %.17g", t ? "call" : "put",
                              strikes[a], vols[b], expiries[e], vol);
                }
    printf("round trip: max |error| %.3g\n", worst);
}

static void test_bounds(void) {
    double vol;
    /* S e^{-qT} - K e^{-rT} = 100 - 90 e^{-0.05} = 14.3894: a call cheaper is an error */
    CHECK(solve(1, 100, 90, 0.05, 0, 1, 14.0, &vol) == FC_IV_BELOW_LOWER);
    CHECK(isnan(vol));
    CHECK(solve(1, 100, 90, 0.05, 0, 1, 100.0, &vol) == FC_IV_ABOVE_UPPER);
    CHECK(solve(0, 100, 90, 0.05, 0, 1, 90 * exp(-0.05), &vol) == FC_IV_ABOVE_UPPER);
    CHECK(solve(0, 100, 90, 0.05, 0, 1, -1e-3, &vol) == FC_IV_BELOW_LOWER);
    /* exactly at the lower bound: no time value, vol 0 */
    CHECK(solve(0, 100, 120, 0, 0, 1, 20.0, &vol) == FC_IV_OK && vol == 0.0);
    CHECK(solve(1, 100, 120, 0, 0, 1, 0.0, &vol) == FC_IV_OK && vol == 0.0);
    /* the message names where, the price and the bound */
    int call = 1;
    double S = 100, K = 90, r = 0.05, q = 0, T = 1, p = 14.0;
    fc_iv_batch b = {1, &call, &S, &K, &r, &q, &T, &p};
    CHECK(fc_iv_error(&b, 0, FC_IV_BELOW_LOWER, "prices.csv:7") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "prices.csv:7: price 14 of the call is below its lower bound");
    CHECK_CONTAINS(fc_last_error(), "= 14.3893517949");
    p = 100;
    CHECK(fc_iv_error(&b, 0, FC_IV_ABOVE_UPPER, "option 3") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "option 3: price 100 of the call is at or above its upper bound S e^{-qT}");
    T = -1;
    CHECK(fc_iv_check(&b, 0, "option 3") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "option 3: T = -1: must be a positive number");
    T = 1, p = NAN;
    CHECK(fc_iv_check(&b, 0, "option 3") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "price = nan: must be finite");
}

int main(void) {
    test_against_quantlib();
    test_round_trip();
    test_bounds();
    return CHECK_DONE();
}
