/* Barrier options (quant/barrier.h) against the committed QuantLib fixture
 * (python/make_option_fixtures.py: options_barrier.csv, QuantLib's
 * AnalyticBarrierEngine): the closed form to 1e-10 relative (1e-12
 * absolute for prices near 0) on calls and puts, all four kinds, barriers
 * above and below the strike, with and without rebates; in-out parity
 * against Black-Scholes; Monte Carlo with the Brownian-bridge correction
 * within 4 standard errors of the closed form at only 20 steps (where
 * checking the points alone is biased by many standard errors, which is
 * checked too); and the errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/quant_barrier.h"
#include "quant/barrier.h"
#include "quant_fixture_csv.h"

#define FIXTURE FC_SOURCE_DIR "/tests/fixtures/quant/options_barrier.csv"

static int kind_of(const char *name) {
    for (int k = 0; k < 4; k++)
        if (!strcmp(name, fc_barrier_kind_name(k))) return k;
    return -1;
}

static void test_against_quantlib(void) {
    FILE *f = fopen(FIXTURE, "r");
    CHECK_MSG(f != NULL, "missing %s", FIXTURE);
    if (!f) return;
    char line[512], *c[11];
    int rows = 0;
    double worst = 0.0;
    CHECK(fgets(line, sizeof line, f) != NULL);
    while (fgets(line, sizeof line, f)) {
        if (csv_split(line, c, 11) != 11) continue;
        double v[11];
        for (int k = 2; k < 11; k++) v[k] = strtod(c[k], NULL);
        fc_barrier_option o = {.type = strcmp(c[0], "call") ? FC_PUT : FC_CALL, .kind = kind_of(c[1]),
                               .market = {v[2], v[3], v[6], v[7], v[9], v[8]}, .barrier = v[4], .rebate = v[5]};
        double p = NAN;
        CHECK_MSG(fc_barrier_price(&o, &p) == FC_OK, "%s", fc_last_error());
        double err = fabs(p - v[10]);
        if (v[10] > 1e-3) worst = fmax(worst, err / v[10]);
        CHECK_MSG(err <= 1e-12 + 1e-10 * fabs(v[10]), "line %d: %s %s K %g H %g rebate %g: %.17g, QuantLib %.17g",
                  rows + 2, c[0], c[1], v[3], v[4], v[5], p, v[10]);
        rows++;
    }
    fclose(f);
    CHECK(rows == 288);
    printf("closed form vs QuantLib: %d rows, max relative difference %.3g\n", rows, worst);
}

/* Without rebates, knock-in + knock-out = the vanilla option. */
static void test_parity(void) {
    fc_bs_market m = {100, 100, 0.04, 0.01, 0.3, 0.75};
    for (int call = 0; call < 2; call++)
        for (int up = 0; up < 2; up++) {
            fc_barrier_option in = {.type = call ? FC_CALL : FC_PUT, .kind = up ? FC_BARRIER_UP_IN : FC_BARRIER_DOWN_IN,
                                    .market = m, .barrier = up ? 120 : 85};
            fc_barrier_option out = in;
            out.kind = up ? FC_BARRIER_UP_OUT : FC_BARRIER_DOWN_OUT;
            double a, b;
            fc_bs_greeks g;
            CHECK(fc_barrier_price(&in, &a) == FC_OK && fc_barrier_price(&out, &b) == FC_OK);
            CHECK(fc_bs_european(in.type, &m, &g) == FC_OK);
            CHECK_CLOSE(a + b, g.price, 1e-12, 1e-12);
        }
}

/* Monte Carlo at 20 steps against the closed form. */
static void test_monte_carlo(void) {
    const struct { int call, kind; double K, H, rebate; } cases[] = {
        {1, FC_BARRIER_DOWN_OUT, 100, 90, 0}, {0, FC_BARRIER_UP_OUT, 100, 115, 1.5}, {1, FC_BARRIER_UP_IN, 95, 120, 0},
        {0, FC_BARRIER_DOWN_IN, 105, 90, 2.0}, {1, FC_BARRIER_DOWN_OUT, 85, 90, 3.0}};
    fc_bs_market m = {100, 100, 0.05, 0.02, 0.25, 1.0};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        m.strike = cases[i].K;
        fc_barrier_option o = {.type = cases[i].call ? FC_CALL : FC_PUT, .kind = cases[i].kind, .market = m,
                               .barrier = cases[i].H, .rebate = cases[i].rebate};
        double exact;
        fc_barrier_mc_result r;
        CHECK(fc_barrier_price(&o, &exact) == FC_OK);
        CHECK_MSG(fc_barrier_mc_price(&o, 20, 100000, 11, NULL, &r) == FC_OK, "%s", fc_last_error());
        printf("%s %s K %g H %g rebate %g: closed %.5f, MC %.5f +- %.5f (%.2f se)\n", cases[i].call ? "call" : "put",
               fc_barrier_kind_name(cases[i].kind), cases[i].K, cases[i].H, cases[i].rebate, exact, r.price,
               r.std_error, (r.price - exact) / r.std_error);
        CHECK_MSG(fabs(r.price - exact) <= 4 * r.std_error, "case %zu: MC %.6f +- %.6f, closed form %.6f", i, r.price,
                  r.std_error, exact);
        CHECK(r.paths == 100000 && r.std_error > 0);
    }
}

/* The correction matters: checking only the 20 points over-prices a
 * down-and-out call by many standard errors (the path between them may
 * have crossed). */
static void test_bridge_matters(void) {
    fc_barrier_mc_spec s = {.log_s0 = log(100.0), .log_barrier = log(90.0), .strike = 100, .is_call = 1,
                            .n_steps = 20, .drift = (0.05 - 0.02 - 0.5 * 0.0625) / 20, .vol_step = 0.25 / sqrt(20.0),
                            .two_over_var = 1e300, .disc_step = exp(-0.05 / 20)};   /* 1e300: p = 0 unless crossed */
    double x = 0, xx = 0;
    for (uint64_t d = 0; d < 50000; d++) {
        double v[2];
        fc_barrier_mc_draw(&s, 11, d, v);
        x += v[0] + v[1], xx += v[0] * v[0] + v[1] * v[1];
    }
    double mean = x / 100000, se = sqrt((xx / 100000 - mean * mean) / 100000);
    fc_barrier_option o = {.type = FC_CALL, .kind = FC_BARRIER_DOWN_OUT, .market = {100, 100, 0.05, 0.02, 0.25, 1.0},
                           .barrier = 90};
    double exact;
    CHECK(fc_barrier_price(&o, &exact) == FC_OK);
    CHECK_MSG(mean - exact > 8 * se, "points only: %.5f +- %.5f vs %.5f", mean, se, exact);
}

static void test_errors(void) {
    fc_barrier_option o = {.type = FC_CALL, .kind = FC_BARRIER_DOWN_OUT, .market = {100, 100, 0.05, 0, 0.2, 1},
                           .barrier = 105};
    double p;
    CHECK(fc_barrier_price(&o, &p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--barrier: down-and-out:105 with --S 100: the spot is already at or below");
    o.barrier = 90, o.rebate = -1;
    CHECK(fc_barrier_price(&o, &p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--rebate");
    o.rebate = 0;
    fc_barrier_mc_result r;
    CHECK(fc_barrier_mc_price(&o, 0, 1000, 1, NULL, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--steps");
    CHECK(fc_barrier_mc_price(&o, 50, 1000000000000ULL, 1, NULL, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--paths");
}

int main(void) {
    test_against_quantlib();
    test_parity();
    test_monte_carlo();
    test_bridge_matters();
    test_errors();
    return CHECK_DONE();
}
