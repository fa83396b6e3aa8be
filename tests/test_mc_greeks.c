/* Monte Carlo Greeks (quant/mc_greeks.h) against the Black-Scholes Greeks
 * (quant/black_scholes.h, itself checked against QuantLib): pathwise delta
 * and vega, likelihood-ratio delta, gamma and vega, calls and puts in and
 * out of the money, with and without antithetic paths, each within 4 of
 * its own standard errors; the pathwise delta's standard error below the
 * likelihood ratio's (the known ranking); the same bits on 1 and 2
 * threads; and the errors. */
#include <math.h>
#include <omp.h>
#include <stdio.h>

#include "check.h"
#include "kernels/quant_mc_greeks.h"
#include "quant/mc_greeks.h"

static void check_one(fc_option_type t, double K, int antithetic) {
    fc_bs_market m = {100, K, 0.04, 0.015, 0.3, 0.8};
    fc_bs_greeks bs;
    CHECK(fc_bs_european(t, &m, &bs) == FC_OK);
    fc_mc_greeks pw, lr;
    CHECK(fc_mc_greeks_price(t, &m, FC_GREEKS_PATHWISE, 400000, antithetic, 5, &pw) == FC_OK);
    CHECK(fc_mc_greeks_price(t, &m, FC_GREEKS_LR, 400000, antithetic, 5, &lr) == FC_OK);
    printf("%s K %g%s: delta bs %.5f pw %.5f (%.1f se) lr %.5f (%.1f se); gamma bs %.6f lr %.6f (%.1f se); "
           "vega bs %.4f pw %.4f (%.1f se) lr %.4f (%.1f se)\n", t == FC_CALL ? "call" : "put", K,
           antithetic ? " antithetic" : "", bs.delta, pw.delta, (pw.delta - bs.delta) / pw.delta_se, lr.delta,
           (lr.delta - bs.delta) / lr.delta_se, bs.gamma, lr.gamma, (lr.gamma - bs.gamma) / lr.gamma_se, bs.vega,
           pw.vega, (pw.vega - bs.vega) / pw.vega_se, lr.vega, (lr.vega - bs.vega) / lr.vega_se);
    CHECK(fabs(pw.delta - bs.delta) <= 4 * pw.delta_se);
    CHECK(fabs(pw.vega - bs.vega) <= 4 * pw.vega_se);
    CHECK(fabs(lr.delta - bs.delta) <= 4 * lr.delta_se);
    CHECK(fabs(lr.gamma - bs.gamma) <= 4 * lr.gamma_se);
    CHECK(fabs(lr.vega - bs.vega) <= 4 * lr.vega_se);
    CHECK(pw.delta_se < lr.delta_se && pw.delta_se > 0);
    CHECK(isnan(pw.gamma) && isnan(pw.gamma_se));
    CHECK(pw.paths == 400000);
}

static void test_against_black_scholes(void) {
    const double strikes[] = {80, 100, 130};
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 3; k++) check_one(t ? FC_CALL : FC_PUT, strikes[k], k == 1);
}

static void test_threads_and_errors(void) {
    fc_bs_market m = {100, 100, 0.04, 0.0, 0.2, 1.0};
    fc_mc_greeks a, b;
    omp_set_num_threads(1);
    CHECK(fc_mc_greeks_price(FC_CALL, &m, FC_GREEKS_LR, 100000, 0, 9, &a) == FC_OK);
    omp_set_num_threads(2);
    CHECK(fc_mc_greeks_price(FC_CALL, &m, FC_GREEKS_LR, 100000, 0, 9, &b) == FC_OK);
    CHECK(a.delta == b.delta && a.gamma_se == b.gamma_se && a.vega == b.vega);
    CHECK(fc_mc_greeks_price(FC_CALL, &m, 7, 1000, 0, 9, &a) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--greeks");
    CHECK(fc_mc_greeks_price(FC_CALL, &m, FC_GREEKS_LR, 1, 0, 9, &a) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--paths");
    m.vol = 0;
    CHECK(fc_mc_greeks_price(FC_CALL, &m, FC_GREEKS_LR, 1000, 0, 9, &a) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--sigma");
}

int main(void) {
    test_against_black_scholes();
    test_threads_and_errors();
    return CHECK_DONE();
}
