/* Binomial trees (quant/binomial.h) against the committed QuantLib fixture
 * (python/make_option_fixtures.py: options_binomial.csv): plain CRR equal
 * to QuantLib's BinomialVanillaEngine(process, "crr", N) at the same N to
 * 2e-11 relative (1.2e-11 measured: QuantLib's rate and drift reach its
 * tree through term structures, the drift a forward rate over 1e-4 years
 * from discount factors, each off by ~1e-13), and to 1e-14 (0 measured:
 * the same bits) when fed the rate and yield QuantLib's tree effectively
 * uses (the fixture's ql_r_tree, ql_q_tree); the smoothed trees (bbs,
 * bbsr) at 1000 steps within
 * 2e-4 relative of the accurate value (Black-Scholes for European
 * exercise, QuantLib's QdFpAmericanEngine at high precision for American),
 * bbsr closer than plain CRR; and the errors on bad steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "quant/binomial.h"
#include "quant_fixture_csv.h"

#define FIXTURE FC_SOURCE_DIR "/tests/fixtures/quant/options_binomial.csv"

static double tree(const char *exercise, const char *type, const double *v, size_t steps, fc_tree_kind kind) {
    fc_tree_option o = {.type = strcmp(type, "call") ? FC_PUT : FC_CALL, .american = !strcmp(exercise, "american"),
                        .market = {v[2], v[3], v[4], v[5], v[7], v[6]}, .steps = steps, .tree = kind};
    double p = NAN;
    CHECK_MSG(fc_binomial_price(&o, &p) == FC_OK, "%s", fc_last_error());
    return p;
}

static void test_against_quantlib(void) {
    FILE *f = fopen(FIXTURE, "r");
    CHECK_MSG(f != NULL, "missing %s", FIXTURE);
    if (!f) return;
    char line[512], *c[14];
    int rows = 0;
    double worst_crr = 0.0, worst_bbsr = 0.0, worst_bbs = 0.0, worst_same = 0.0;
    CHECK(fgets(line, sizeof line, f) != NULL);
    while (fgets(line, sizeof line, f)) {
        if (csv_split(line, c, 14) != 14) continue;
        double v[14];
        for (int k = 2; k < 14; k++) v[k] = strtod(c[k], NULL);
        size_t steps = (size_t)v[8];
        double crr = tree(c[0], c[1], v, steps, FC_TREE_CRR);
        double rel = fabs(crr - v[9]) / v[9];
        /* (QuantLib misses the payoff at expiry of an American option where
         * its time grid misses T by an ulp: see the generator) */
        int comparable = atoi(c[11]) || strcmp(c[0], "american");
        if (comparable) worst_crr = fmax(worst_crr, rel);
        CHECK_MSG(!comparable || rel <= 2e-11, "line %d: crr %.17g, QuantLib %.17g", rows + 2, crr, v[9]);
        /* fed the rate and yield QuantLib's tree effectively uses, the same tree to rounding */
        double same_inputs[14];
        memcpy(same_inputs, v, sizeof v);
        same_inputs[4] = v[12], same_inputs[5] = v[13];
        double crr_ql = tree(c[0], c[1], same_inputs, steps, FC_TREE_CRR);
        double rel_ql = fabs(crr_ql - v[9]) / v[9];
        if (comparable) worst_same = fmax(worst_same, rel_ql);
        CHECK_MSG(!comparable || rel_ql <= 1e-14, "line %d: crr on QuantLib's rates %.17g, QuantLib %.17g", rows + 2,
                  crr_ql, v[9]);
        if (steps == 1000) {
            double bbs = tree(c[0], c[1], v, steps, FC_TREE_BBS), bbsr = tree(c[0], c[1], v, steps, FC_TREE_BBSR);
            double e_bbs = fabs(bbs - v[10]) / v[10], e_bbsr = fabs(bbsr - v[10]) / v[10];
            worst_bbs = fmax(worst_bbs, e_bbs);
            worst_bbsr = fmax(worst_bbsr, e_bbsr);
            CHECK_MSG(e_bbs <= 2e-4, "line %d: bbs %.10g, reference %.10g", rows + 2, bbs, v[10]);
            CHECK_MSG(e_bbsr <= 2e-5, "line %d: bbsr %.10g, reference %.10g", rows + 2, bbsr, v[10]);
        }
        rows++;
    }
    fclose(f);
    CHECK(rows == 80);
    printf("crr vs QuantLib: max rel %.3g (%.3g on QuantLib's effective rates); at 1000 steps vs accurate: bbs %.3g, "
           "bbsr %.3g\n", worst_crr, worst_same, worst_bbs, worst_bbsr);
}

/* An American call without dividends is never exercised early: the tree
 * gives the European price; an American put is worth more than its
 * European. */
static void test_exercise(void) {
    fc_tree_option o = {.type = FC_CALL, .american = 1, .market = {100, 105, 0.04, 0.0, 0.25, 1.0}, .steps = 800,
                        .tree = FC_TREE_BBSR};
    double am, eu;
    CHECK(fc_binomial_price(&o, &am) == FC_OK);
    o.american = 0;
    CHECK(fc_binomial_price(&o, &eu) == FC_OK);
    CHECK_CLOSE(am, eu, 1e-12, 0);
    fc_bs_greeks g;
    CHECK(fc_bs_european(FC_CALL, &o.market, &g) == FC_OK);
    CHECK_CLOSE(eu, g.price, 0, 1e-5);
    o.type = FC_PUT;
    CHECK(fc_binomial_price(&o, &eu) == FC_OK);
    o.american = 1;
    CHECK(fc_binomial_price(&o, &am) == FC_OK);
    CHECK(am > eu + 0.05);
}

static void test_bad_steps(void) {
    fc_tree_option o = {.type = FC_PUT, .american = 1, .market = {100, 100, 0.05, 0, 0.2, 1}, .steps = 1,
                        .tree = FC_TREE_BBSR};
    double p;
    CHECK(fc_binomial_price(&o, &p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--steps: expected 2 to 100000 time steps for bbsr");
    o.steps = 200000, o.tree = FC_TREE_CRR;
    CHECK(fc_binomial_price(&o, &p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--steps");
    /* drift far beyond sigma sqrt(dt): pu outside [0, 1] */
    o.steps = 2, o.market.rate = 3.0, o.market.vol = 0.05;
    CHECK(fc_binomial_price(&o, &p) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "up probability");
}

int main(void) {
    test_against_quantlib();
    test_exercise();
    test_bad_steps();
    return CHECK_DONE();
}
