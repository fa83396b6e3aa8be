/* Monte Carlo options against independent truth: Black-Scholes (within 3
 * standard errors), the Levy (1997) arithmetic Asian values of QuantLib's
 * test-suite (testMCDiscreteArithmeticAveragePrice, with its fixing dates and
 * its 2e-2 tolerance), the exact two-fixing Asian (half a European on a
 * shifted strike), and the Kemna-Vorst closed form as the expectation of the
 * geometric control variate. Also: antithetic variates lower the variance at
 * equal paths, the result does not depend on the thread count, and it
 * scales with S = K from 1e-300 to 1e300. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "quant/mc_options.h"

static fc_mc_option european(fc_option_type t, uint64_t paths, int anti) {
    fc_mc_option o = {.type = t, .market = {100, 100, 0.05, 0.0, 0.2, 1.0}, .steps = 1,
                      .paths = paths, .antithetic = anti, .seed = 2024};
    return o;
}

static void test_european_vs_black_scholes(void) {
    const double bs[2] = {5.573526, 10.450584}; /* put, call */
    for (int t = 0; t < 2; t++)
        for (int anti = 0; anti < 2; anti++) {
            fc_mc_option o = european((fc_option_type)t, 1000000, anti);
            fc_mc_result r;
            CHECK(fc_mc_price(&o, &r) == FC_OK);
            CHECK_MSG(fabs(r.price - bs[t]) < 3 * r.std_error, "type %d anti %d: %.6f +- %.6f vs %.6f",
                      t, anti, r.price, r.std_error, bs[t]);
            CHECK(r.std_error > 0 && r.std_error < 0.02);
            CHECK_CLOSE(r.ci_high - r.ci_low, 2 * 1.959963984540054 * r.std_error, 1e-12, 0);
            CHECK(r.paths == 1000000);
        }
    /* with a dividend yield and several steps (exact GBM: no bias) */
    fc_mc_option o = european(FC_CALL, 400000, 1);
    o.market.div = 0.03;
    o.steps = 8;
    fc_mc_result r;
    fc_bs_greeks g;
    CHECK(fc_mc_price(&o, &r) == FC_OK && fc_bs_european(FC_CALL, &o.market, &g) == FC_OK);
    CHECK_MSG(fabs(r.price - g.price) < 3 * r.std_error, "%.6f +- %.6f vs %.6f", r.price, r.std_error, g.price);
}

static void test_antithetic_lowers_variance(void) {
    for (int t = 0; t < 2; t++) {
        fc_mc_option plain = european((fc_option_type)t, 200000, 0), anti = plain;
        anti.antithetic = 1;
        fc_mc_result a, b;
        CHECK(fc_mc_price(&plain, &a) == FC_OK && fc_mc_price(&anti, &b) == FC_OK);
        CHECK(a.paths == b.paths);
        CHECK_MSG(b.std_error < 0.9 * a.std_error, "type %d: antithetic %.6f vs plain %.6f", t,
                  b.std_error, a.std_error);
    }
}

static void test_thread_count_independence(void) {
    fc_mc_option o = european(FC_CALL, 300001, 1);
    fc_mc_result one, two;
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    CHECK(fc_mc_price(&o, &one) == FC_OK);
    omp_set_num_threads(2);
    CHECK(fc_mc_price(&o, &two) == FC_OK);
    omp_set_num_threads(saved);
    CHECK(memcmp(&one, &two, sizeof one) == 0);
    CHECK(one.paths == 300004); /* rounded up to whole draws of 4 paths */
}

/* QuantLib's fixing schedule: t_i = first + i length/(n-1), rounded to whole
 * days of an Actual360 year; the expiry is the last fixing. */
static void levy_schedule(double first, double length, size_t n, double *t) {
    double dt = length / (double)(n - 1);
    for (size_t i = 0; i < n; i++) t[i] = floor((first + (double)i * dt) * 360.0 + 0.5) / 360.0;
}

static void test_levy_arithmetic_asian(void) {
    /* Levy (1997) via QuantLib asianoptions.cpp, cases4: put, S=90, K=87, q=6%, r=2.5%,
     * vol 13%, length 11/12; rows by first fixing (0, 1/12, 3/12) and fixing count. */
    static const size_t counts[10] = {2, 4, 8, 12, 26, 52, 100, 250, 500, 1000};
    static const double firsts[3] = {0.0, 1.0 / 12.0, 3.0 / 12.0};
    static const double levy[3][10] = {
        {1.3942835683, 1.5852442983, 1.66970673, 1.6980019214, 1.7255070456, 1.7401553533,
         1.7478303712, 1.7490291943, 1.7515113291, 1.7537344885},
        {1.8496053697, 2.0111495205, 2.0852138818, 2.1105094397, 2.1346526695, 2.147489651,
         2.154728109, 2.1564276565, 2.1594238588, 2.1595367326},
        {2.63315092584, 2.76723962361, 2.83124836881, 2.84290301412, 2.88179560417, 2.88447044543,
         2.89985329603, 2.90047296063, 2.89813412160, 2.89703362437}};
    static double t[1000];
    for (int f = 0; f < 3; f++)
        for (int c = 0; c < 10; c++) {
            size_t n = counts[c];
            levy_schedule(firsts[f], 11.0 / 12.0, n, t);
            fc_mc_option o = {.type = FC_PUT, .asian = 1, .market = {90, 87, 0.025, 0.06, 0.13, t[n - 1]},
                              .fixing_times = t, .n_fixings = n, .paths = n > 100 ? 20000 : 100000,
                              .antithetic = 1, .control_variate = 1, .seed = 7 + (uint64_t)c};
            fc_mc_result r;
            CHECK(fc_mc_price(&o, &r) == FC_OK);
            CHECK_MSG(fabs(r.price - levy[f][c]) < 2e-2, "first %g, %zu fixings: %.6f +- %.6f vs Levy %.6f",
                      firsts[f], n, r.price, r.std_error, levy[f][c]);
            /* the control variate pays: its error is a fraction of the plain one */
            CHECK(r.std_error < 0.2 * r.plain_std_error);
            /* the control variate's own expectation is the Kemna-Vorst closed form */
            CHECK_MSG(fabs(r.geo_mc - r.geo_exact) < 3.5 * r.geo_mc_std_error,
                      "first %g, %zu fixings: geometric MC %.6f +- %.6f vs closed form %.6f", firsts[f], n,
                      r.geo_mc, r.geo_mc_std_error, r.geo_exact);
        }
}

/* Two fixings, today and the expiry: max(K - (S0 + S_T)/2, 0) = 0.5 max(2K - S0 - S_T, 0),
 * half a European put struck at 2K - S0. */
static void test_two_fixing_asian_is_exact(void) {
    double t[2] = {0.0, 330.0 / 360.0};
    fc_mc_option o = {.type = FC_PUT, .asian = 1, .market = {90, 87, 0.025, 0.06, 0.13, t[1]},
                      .fixing_times = t, .n_fixings = 2, .paths = 400000, .antithetic = 1,
                      .control_variate = 0, .seed = 3};
    fc_mc_result r;
    fc_bs_greeks g;
    fc_bs_market shifted = o.market;
    shifted.strike = 2 * 87 - 90;
    CHECK(fc_mc_price(&o, &r) == FC_OK && fc_bs_european(FC_PUT, &shifted, &g) == FC_OK);
    /* Levy's row (1.3942835683) is within 3.1e-4 of this exact value (1.3939809367). */
    CHECK_CLOSE(0.5 * g.price, 1.3939809367, 1e-9, 0);
    CHECK_MSG(fabs(r.price - 0.5 * g.price) < 3 * r.std_error, "%.6f +- %.6f vs %.6f", r.price,
              r.std_error, 0.5 * g.price);
}

/* Price and standard error are homogeneous of degree 1 in (S, K): at
 * S = K = c they are c times those at S = K = 1, with the same draws. In the
 * quote's units the squares of payoffs near 1e159 overflowed (and near
 * 1e-301 underflowed), and the standard error came out 0. */
static void check_scales_with(fc_mc_option o, double c) {
    fc_mc_result one, big;
    o.market.spot = o.market.strike = 1.0;
    CHECK(fc_mc_price(&o, &one) == FC_OK);
    o.market.spot = o.market.strike = c;
    CHECK_MSG(fc_mc_price(&o, &big) == FC_OK, "S = K = %g: %s", c, fc_last_error());
    CHECK(one.std_error > 0.0);
    CHECK_CLOSE(big.price, c * one.price, 0, 1e-12);
    CHECK_CLOSE(big.std_error, c * one.std_error, 0, 1e-12);
    CHECK_CLOSE(big.ci_high - big.ci_low, c * (one.ci_high - one.ci_low), 0, 1e-12);
    CHECK_CLOSE(big.plain_std_error, c * one.plain_std_error, 0, 1e-12);
}

static void test_large_and_small_prices(void) {
    double t[4] = {0.25, 0.5, 0.75, 1.0};
    fc_mc_option asian = {.type = FC_CALL, .asian = 1, .market = {1, 1, 0.05, 0.0, 0.2, 1.0}, .fixing_times = t,
                          .n_fixings = 4, .paths = 20000, .antithetic = 1, .control_variate = 1, .seed = 5};
    const double scales[] = {1e160, 1e300, 1e-300, 1e-150};
    for (size_t i = 0; i < sizeof scales / sizeof *scales; i++) {
        check_scales_with(european(FC_CALL, 1000, 0), scales[i]);
        check_scales_with(european(FC_PUT, 1000, 1), scales[i]);
        check_scales_with(asian, scales[i]);
    }
    /* a standard error below the normal doubles (~3e-309 here) has lost its bits: refused, not printed */
    fc_mc_option o = european(FC_CALL, 1000, 0);
    fc_mc_result r;
    o.market.spot = o.market.strike = 1e-306;
    CHECK(fc_mc_price(&o, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--S = 1e-306, --K = 1e-306: the price");
    CHECK_CONTAINS(fc_last_error(), "outside the range of normal doubles");
    /* S/K beyond double range */
    o.market.spot = 1e300, o.market.strike = 1e-30;
    CHECK(fc_mc_price(&o, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--S = 1e+300 and --K = 1e-30");
}

static void test_bad_input(void) {
    fc_mc_option o = european(FC_CALL, 1000, 0);
    fc_mc_result r;
    o.market.vol = -0.2;
    CHECK(fc_mc_price(&o, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--sigma");
    o = european(FC_CALL, 1, 0);
    CHECK(fc_mc_price(&o, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--paths");
    o = european(FC_CALL, 1000, 0);
    o.asian = 1;
    o.n_fixings = 0;
    CHECK(fc_mc_price(&o, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--fixings");
}

int main(void) {
    test_european_vs_black_scholes();
    test_antithetic_lowers_variance();
    test_thread_count_independence();
    test_levy_arithmetic_asian();
    test_two_fixing_asian_is_exact();
    test_large_and_small_prices();
    test_bad_input();
    return CHECK_DONE();
}
