/* Implied volatility (quant/implied_vol.h) against the committed QuantLib
 * fixture (python/make_option_fixtures.py: options_implied_vol.csv): every
 * row within 1e-10 of the volatility that made the price, and of
 * QuantLib's blackFormulaImpliedStdDev where its answer is meaningful to
 * that (ql_ok); a round trip through Black-Scholes over a wide grid and a
 * sweep far beyond it; the bounds as clear errors. */
#include <float.h>
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

/* A deterministic sweep far beyond the fixture (K / S from 1e-3 to 1e3, T
 * from 1e-4 to 50 years, sigma from 1e-4 to 5, r and q from -10% to 20%):
 * every price gets a volatility, within 1e-10 of the one that made it
 * wherever the price, computed in double, pins it down (the rounding of
 * its terms, (S e^{-qT} + K e^{-rT}) 2^-52, over vega, below 1e-12), or
 * is refused only as being the upper bound itself to rounding (sigma
 * sqrt(T) so large that the price rounds to it). The first three inputs are tails where
 * the solver once stalled on rounding noise (prices of 1e-82 to 1e-190). */
static double sweep_u01(unsigned long long *st) {
    *st = *st * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*st >> 11) / 9007199254740992.0;
}

static void test_sweep(void) {
    const double tails[3][6] = {{20082.780618905104, 25.101423127543569, 0.00066095566538640588,
                                 0.17038619735652996, -0.038339674853249649, 1},
                                {1351.9686363901092, 22.49153286660167, 0.0018518362595910068, 0.17389821476734882,
                                 0.047861006308367371, 0},
                                {106.60818347160135, 0.0034432551534525351, 0.037188754248286597,
                                 0.095314897452531688, 0.016471513583510539, 1}};
    unsigned long long st = 1;
    int solved = 0, counted = 0;
    double worst = 0.0;
    for (int i = 0; i < 200000; i++) {
        double K, T, vol, r, q;
        int call;
        if (i < 3) {
            K = tails[i][0], T = tails[i][1], vol = tails[i][2], r = tails[i][3], q = tails[i][4], call = (int)tails[i][5];
        } else {
            K = 100 * exp(log(1e-3) + sweep_u01(&st) * log(1e6)), T = exp(log(1e-4) + sweep_u01(&st) * log(5e5));
            vol = exp(log(1e-4) + sweep_u01(&st) * log(5e4)), r = -0.1 + 0.3 * sweep_u01(&st);
            q = -0.1 + 0.3 * sweep_u01(&st), call = sweep_u01(&st) < 0.5;
        }
        fc_bs_market m = {100, K, r, q, vol, T};
        fc_bs_greeks g;
        if (vol * vol * T > 700 || fc_bs_european(call ? FC_CALL : FC_PUT, &m, &g) != FC_OK) continue;
        double iv;
        int code = solve(call, 100, K, r, q, T, g.price, &iv);
        double lower, upper;
        fc_iv_bounds(call, 100, K, r, q, T, &lower, &upper);
        double rounding = FC_IV_ROUNDING * DBL_EPSILON * (100 * exp(-q * T) + K * exp(-r * T));
        CHECK_MSG(code == FC_IV_OK || (code == FC_IV_ABOVE_UPPER && g.price >= upper - rounding), "sweep %d: code %d",
                  i, code);
        if (code != FC_IV_OK) continue;
        solved++;
        double terms = 100 * exp(-q * T) + K * exp(-r * T);
        if (!(g.price > 1e-300 && g.vega > 0 && terms * 2.2e-16 / g.vega < 1e-12)) continue;
        counted++;
        worst = fmax(worst, fabs(iv - vol));
        CHECK_MSG(fabs(iv - vol) <= 1e-10, "sweep %d: %s K %.17g T %.17g vol %.17g r %.17g q %.17g: %.17g", i,
                  call ? "call" : "put", K, T, vol, r, q, iv);
    }
    CHECK(solved > 190000 && counted > 15000);
    printf("sweep: %d solved, %d well-conditioned, max |error| %.3g\n", solved, counted, worst);
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
    test_sweep();
    test_bounds();
    return CHECK_DONE();
}
