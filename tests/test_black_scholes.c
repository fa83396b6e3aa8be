/* Black-Scholes-Merton closed forms against published values (Hull's
 * textbook case, Haug's dividend-yield example), QuantLib 1.29's
 * BlackScholesCalculator Greeks, finite differences of the price, put-call
 * parity, and the discrete geometric Asian against QuantLib's test-suite
 * value (Clewlow & Strickland). */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "quant/black_scholes.h"

static fc_bs_market market(double S, double K, double r, double q, double v, double T) {
    fc_bs_market m = {.spot = S, .strike = K, .rate = r, .div = q, .vol = v, .expiry = T};
    return m;
}

static double price(fc_option_type t, fc_bs_market m) {
    fc_bs_greeks g;
    if (fc_bs_european(t, &m, &g) != FC_OK) return NAN;
    return g.price;
}

static void test_reference_values(void) {
    fc_bs_market m = market(100, 100, 0.05, 0.0, 0.2, 1.0);
    fc_bs_greeks c, p;
    CHECK(fc_bs_european(FC_CALL, &m, &c) == FC_OK);
    CHECK(fc_bs_european(FC_PUT, &m, &p) == FC_OK);
    CHECK_CLOSE(c.price, 10.450584, 1e-6, 0);
    CHECK_CLOSE(p.price, 5.573526, 1e-6, 0);
    CHECK_CLOSE(c.delta, 0.636831, 1e-6, 0);
    /* QuantLib 1.29 BlackScholesCalculator, same inputs */
    CHECK_CLOSE(c.gamma, 0.0187620173458, 1e-11, 0);
    CHECK_CLOSE(c.vega, 37.5240346917, 1e-9, 0);
    CHECK_CLOSE(c.theta, -6.41402754644, 1e-9, 0);
    CHECK_CLOSE(c.rho, 53.2324815454, 1e-9, 0);

    /* Haug, "Option Pricing Formulas": S=100, K=95, T=0.5, r=10%, q=5%, vol 20% -> put 2.4648;
     * Greeks from QuantLib 1.29 */
    m = market(100, 95, 0.10, 0.05, 0.2, 0.5);
    CHECK(fc_bs_european(FC_PUT, &m, &p) == FC_OK);
    CHECK(fc_bs_european(FC_CALL, &m, &c) == FC_OK);
    CHECK_CLOSE(p.price, 2.4648, 5e-5, 0);
    CHECK_CLOSE(p.price, 2.46478764676, 1e-10, 0);
    CHECK_CLOSE(p.delta, -0.264181599636, 1e-11, 0);
    CHECK_CLOSE(p.theta, -3.0005280964, 1e-9, 0);
    CHECK_CLOSE(p.rho, -14.4414738052, 1e-9, 0);
    CHECK_CLOSE(c.price, 9.62898352202, 1e-10, 0);
    CHECK_CLOSE(c.delta, 0.711128312392, 1e-11, 0);
    CHECK_CLOSE(c.gamma, 0.0228395742963, 1e-12, 0);
    CHECK_CLOSE(c.vega, 22.8395742963, 1e-9, 0);
    CHECK_CLOSE(c.theta, -7.16065806901, 1e-9, 0);
    CHECK_CLOSE(c.rho, 30.7419238586, 1e-9, 0);
    /* put-call parity with dividends: C - P = S e^{-qT} - K e^{-rT} */
    CHECK_CLOSE(c.price - p.price, 100 * exp(-0.05 * 0.5) - 95 * exp(-0.10 * 0.5), 1e-12, 0);
}

/* Each Greek against a central difference of the price (gamma: of delta). */
static void test_greeks_by_finite_differences(void) {
    const fc_option_type types[2] = {FC_CALL, FC_PUT};
    const double strikes[3] = {80, 100, 125};
    for (int ti = 0; ti < 2; ti++)
        for (int ki = 0; ki < 3; ki++) {
            fc_option_type t = types[ti];
            fc_bs_market m = market(100, strikes[ki], 0.03, 0.02, 0.25, 0.75), u, d;
            fc_bs_greeks g, gu, gd;
            CHECK(fc_bs_european(t, &m, &g) == FC_OK);
            double h = 1e-3;
            u = m, d = m, u.spot += h, d.spot -= h;
            CHECK(fc_bs_european(t, &u, &gu) == FC_OK && fc_bs_european(t, &d, &gd) == FC_OK);
            CHECK_CLOSE(g.delta, (gu.price - gd.price) / (2 * h), 1e-7, 0);
            CHECK_CLOSE(g.gamma, (gu.delta - gd.delta) / (2 * h), 1e-7, 0);
            h = 1e-5;
            u = m, d = m, u.vol += h, d.vol -= h;
            CHECK_CLOSE(g.vega, (price(t, u) - price(t, d)) / (2 * h), 1e-5, 0);
            u = m, d = m, u.rate += h, d.rate -= h;
            CHECK_CLOSE(g.rho, (price(t, u) - price(t, d)) / (2 * h), 1e-5, 0);
            u = m, d = m, u.expiry += h, d.expiry -= h; /* theta = -dV/dT */
            CHECK_CLOSE(g.theta, -(price(t, u) - price(t, d)) / (2 * h), 1e-5, 0);
        }
}

static void test_geometric_asian(void) {
    /* QuantLib test-suite testAnalyticDiscreteGeometricAveragePrice (Clewlow &
     * Strickland p.118-123): fixings every 36 days of 360 (Actual360), expiry 360 days. */
    fc_bs_market m = market(100, 100, 0.06, 0.03, 0.2, 1.0);
    double t[10], v = 0;
    for (int i = 0; i < 10; i++) t[i] = 36.0 * (i + 1) / 360.0;
    CHECK(fc_geometric_asian_price(FC_CALL, &m, t, 10, &v) == FC_OK);
    CHECK_CLOSE(v, 5.3425606635, 1e-10, 0);
    /* One fixing at expiry is a European option. */
    double one = 1.0;
    CHECK(fc_geometric_asian_price(FC_PUT, &m, &one, 1, &v) == FC_OK);
    CHECK_CLOSE(v, price(FC_PUT, m), 1e-12, 0);
    /* Unsorted fixings are an error that names the fixing. */
    double bad[2] = {0.5, 0.25};
    CHECK(fc_geometric_asian_price(FC_CALL, &m, bad, 2, &v) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "fixing 2");
}

static void test_bad_input(void) {
    fc_bs_greeks g;
    fc_bs_market m = market(100, 100, 0.05, 0, 0.0, 1);
    CHECK(fc_bs_european(FC_CALL, &m, &g) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--sigma");
    m = market(100, 100, 0.05, 0, 0.2, -1);
    CHECK(fc_bs_european(FC_CALL, &m, &g) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--T");
    m = market(0, 100, 0.05, 0, 0.2, 1);
    CHECK(fc_bs_european(FC_CALL, &m, &g) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--S");
    m = market(100, NAN, 0.05, 0, 0.2, 1);
    CHECK(fc_bs_european(FC_CALL, &m, &g) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--K");
}

int main(void) {
    test_reference_values();
    test_greeks_by_finite_differences();
    test_geometric_asian();
    test_bad_input();
    return CHECK_DONE();
}
