/* The CSV decimal parser: exact results against the compiler's reading of
 * the same literals, round trips of random doubles printed with 17
 * significant digits (which identify a double uniquely), agreement with
 * glibc's correctly rounded strtod on random short decimals, and the
 * missing/infinite/bad classifications. */
#include "check.h"

#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include "core/rng.h"
#include "data/number_parse.h"

static fc_num_result parse(const char *s, double *v) { return fc_parse_number(s, strlen(s), v); }

static void test_literals(void) {
    static const struct { const char *text; double value; } cases[] = {
        {"1628.75", 1628.75}, {"0.1", 0.1}, {"1e-3", 1e-3}, {"-2.5E+10", -2.5E+10},
        {"3", 3.0}, {"-0.0", -0.0}, {"  42\t", 42.0}, {"007.50", 7.5}, {".25", .25}, {"5.", 5.},
        {"1e22", 1e22}, {"1e23", 1e23}, {"9007199254740993", 9007199254740993.0},
        {"0.000000000000000000000000001", 1e-27}, {"123456789012345678901", 123456789012345678901.0},
        {"4.9e-324", 4.9e-324}, {"1e-400", 0.0}, {"1.7976931348623157e308", DBL_MAX},
        {"2.2250738585072011e-308", 2.2250738585072011e-308}, {"+1", 1.0},
        {"0.30000000000000004", 0.30000000000000004}, {"1e0000000000000000000001", 10.0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = -999;
        fc_num_result r = parse(cases[i].text, &v);
        CHECK_MSG(r == FC_NUM_OK && v == cases[i].value && signbit(v) == signbit(cases[i].value),
                  "'%s' -> %d %.17g, expected %.17g", cases[i].text, r, v, cases[i].value);
    }
    /* The length is honoured: the digits after it are not read. */
    double v;
    CHECK(fc_parse_number("12345", 3, &v) == FC_NUM_OK && v == 123.0);
}

static void test_classification(void) {
    static const char *missing[] = {"", "  ", "NaN", "nan", "NA", "N/A", "NULL", "null", "None", "<NA>", "-nan", "#N/A"};
    static const char *infinite[] = {"inf", "-inf", "+Inf", "Infinity", "-INFINITY", "1e400", "-1e999"};
    static const char *bad[] = {"abc", "1.2.3", "e5", "1e", "1e+", "--1", "0x10", "1,5", ".", "-",
                                "1 2", "NaNa", "infinit", "1d5", "nan(1)", "١"};
    double v;
    for (size_t i = 0; i < sizeof missing / sizeof missing[0]; i++)
        CHECK_MSG(parse(missing[i], &v) == FC_NUM_MISSING, "'%s'", missing[i]);
    for (size_t i = 0; i < sizeof infinite / sizeof infinite[0]; i++)
        CHECK_MSG(parse(infinite[i], &v) == FC_NUM_INFINITE, "'%s'", infinite[i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_MSG(parse(bad[i], &v) == FC_NUM_BAD, "'%s'", bad[i]);
}

/* Any finite double printed with %.17g must read back bit for bit. */
static void test_round_trip(void) {
    int bad = 0;
    for (uint64_t i = 0; i < 200000; i++) {
        fc_philox_out r = fc_rng_block(2024, 0, i);
        uint64_t bits = ((uint64_t)r.v[0] << 32) | r.v[1];
        double x;
        memcpy(&x, &bits, sizeof x);
        if (!isfinite(x)) continue;
        char text[40];
        snprintf(text, sizeof text, "%.17g", x);
        double v;
        if (parse(text, &v) != FC_NUM_OK || memcmp(&v, &x, sizeof v) != 0) {
            if (bad++ < 5) fprintf(stderr, "round trip of %s gave %.17g\n", text, v);
        }
    }
    CHECK(bad == 0);
}

/* Short decimals as CSV files hold them ("1234.567", "-0.05", "3e-7"): the
 * fast path must agree with strtod on every one. */
static void test_short_decimals_match_strtod(void) {
    static const unsigned pow10[10] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                       100000000, 1000000000};
    int bad = 0;
    for (uint64_t i = 0; i < 200000; i++) {
        fc_philox_out r = fc_rng_block(7, 1, i);
        char text[48];
        long long mant = (long long)(r.v[0] % 100000000u) - 50000000;
        int decimals = 1 + (int)(r.v[1] % 9), exp10 = (int)(r.v[2] % 41) - 20;
        if (r.v[3] & 1) snprintf(text, sizeof text, "%lld.%0*u", mant, decimals, r.v[2] % pow10[decimals]);
        else snprintf(text, sizeof text, "%llde%d", mant, exp10);
        double v, ref = strtod(text, NULL);
        if (parse(text, &v) != FC_NUM_OK || v != ref) {
            if (bad++ < 5) fprintf(stderr, "%s gave %.17g, strtod %.17g\n", text, v, ref);
        }
    }
    CHECK(bad == 0);
}

int main(void) {
    test_literals();
    test_classification();
    test_round_trip();
    test_short_decimals_match_strtod();
    return CHECK_DONE();
}
