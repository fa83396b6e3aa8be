/* Longstaff-Schwartz (quant/lsm.h) against the committed QuantLib fixture
 * (python/make_option_fixtures.py: options_lsm.csv). The estimate prices
 * the Bermudan option with the same 50 exercise dates (FD reference) with
 * a low bias only: it must not exceed that value by more than 4 standard
 * errors, nor fall below it by more than 4 standard errors plus 0.5% (the
 * stated allowance for the regression policy's suboptimality; 0.2% was
 * measured at a million paths). Against the American value (QuantLib's
 * QdFpAmericanEngine): not above it by more than 4 standard errors, nor
 * below it by more than that plus the Bermudan gap and the allowance.
 * Against QuantLib's MCAmericanEngine (same
 * dates, basis and order): within 4 combined standard errors plus that
 * allowance. Also: the same bits on 1 and 2 threads, and the errors. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "quant/lsm.h"
#include "quant_fixture_csv.h"

#define FIXTURE FC_SOURCE_DIR "/tests/fixtures/quant/options_lsm.csv"
#define LOW_BIAS 0.005

static void test_against_quantlib(void) {
    FILE *f = fopen(FIXTURE, "r");
    CHECK_MSG(f != NULL, "missing %s", FIXTURE);
    if (!f) return;
    char line[512], *c[12];
    int rows = 0;
    CHECK(fgets(line, sizeof line, f) != NULL);
    while (fgets(line, sizeof line, f)) {
        if (csv_split(line, c, 12) != 12) continue;
        double v[12];
        for (int k = 1; k < 12; k++) v[k] = strtod(c[k], NULL);
        fc_lsm_option o = {.type = strcmp(c[0], "call") ? FC_PUT : FC_CALL,
                           .market = {v[1], v[2], v[3], v[4], v[6], v[5]}, .steps = (size_t)v[7],
                           .paths = 60000, .calibration_paths = 20000, .degree = 3, .seed = 42};
        fc_lsm_result r;
        CHECK_MSG(fc_lsm_price(&o, NULL, &r) == FC_OK, "%s", fc_last_error());
        double berm = v[9], se = r.std_error;
        printf("%s S=%g K=%g: lsm %.5f +- %.5f, bermudan %.5f (%.2f se), american %.5f, QuantLib MC %.5f +- %.5f\n",
               c[0], v[1], v[2], r.price, se, berm, (r.price - berm) / se, v[8], v[10], v[11]);
        CHECK_MSG(r.price <= berm + 4 * se, "row %d: %.6f above the Bermudan %.6f", rows + 2, r.price, berm);
        CHECK_MSG(r.price >= berm - 4 * se - LOW_BIAS * berm, "row %d: %.6f far below the Bermudan %.6f", rows + 2,
                  r.price, berm);
        /* the American value: above the Bermudan by the 50 dates' gap (0.07 to 0.2% here) */
        double american = v[8];
        CHECK_MSG(r.price <= american + 4 * se, "row %d: %.6f above the American %.6f", rows + 2, r.price, american);
        CHECK_MSG(r.price >= american - 4 * se - (american - berm) - LOW_BIAS * berm,
                  "row %d: %.6f far below the American %.6f", rows + 2, r.price, american);
        double both = 4 * sqrt(se * se + v[11] * v[11]) + LOW_BIAS * berm;
        CHECK_MSG(fabs(r.price - v[10]) <= both, "row %d: %.6f vs QuantLib %.6f", rows + 2, r.price, v[10]);
        CHECK(se > 0 && r.paths == 60000 && r.calibration_paths == 20000);
        rows++;
    }
    fclose(f);
    CHECK(rows == 4);
}

static void test_threads(void) {
    fc_lsm_option o = {.type = FC_PUT, .market = {100, 100, 0.05, 0, 0.2, 1}, .steps = 20, .paths = 30000,
                       .calibration_paths = 20000, .degree = 3, .seed = 7};
    fc_lsm_result a, b;
    omp_set_num_threads(1);
    CHECK(fc_lsm_price(&o, NULL, &a) == FC_OK);
    omp_set_num_threads(2);
    CHECK(fc_lsm_price(&o, NULL, &b) == FC_OK);
    CHECK(a.price == b.price && a.std_error == b.std_error);
    o.seed = 8;
    CHECK(fc_lsm_price(&o, NULL, &b) == FC_OK && b.price != a.price);
}

static void test_errors(void) {
    fc_lsm_option o = {.type = FC_PUT, .market = {100, 100, 0.05, 0, 0.2, 1}, .steps = 50, .paths = 1000,
                       .calibration_paths = 100000000, .degree = 3, .seed = 1};
    fc_lsm_result r;
    CHECK(fc_lsm_price(&o, NULL, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--calibration-paths: expected 16 to 10000000");
    o.calibration_paths = 1000, o.paths = 1000000000;
    CHECK(fc_lsm_price(&o, NULL, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--paths 1000000000 x --steps 50");
    o.paths = 1000, o.degree = 9;
    CHECK(fc_lsm_price(&o, NULL, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--basis-degree");
    o.degree = 3, o.steps = 1;
    CHECK(fc_lsm_price(&o, NULL, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--steps");
}

int main(void) {
    test_against_quantlib();
    test_threads();
    test_errors();
    return CHECK_DONE();
}
