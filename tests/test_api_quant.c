/* The trading analytics of the library API (include/fcast.h), through its
 * public names only, against independent truth:
 *
 *   1. indicators: TA-Lib's own values (tests/fixtures/quant/indicators_*,
 *      python/make_quant_fixtures.py) through fcast_indicator, series by
 *      series, and fcast_indicator_grouped, all series at once, within
 *      test_indicators.c's tolerance (1e-9 relative + 1e-12), NaN where
 *      TA-Lib has NaN; TA-Lib's lookbacks; prefixes of a series (n below,
 *      at and above the lookback) give the full series' first values;
 *      leading NaNs skipped;
 *   2. options: published Black-Scholes values and QuantLib's Greeks, the
 *      formula written out here over a grid in one vectorised call, put-call
 *      parity, the Clewlow-Strickland geometric Asian and its own parity,
 *      Monte Carlo within 3 standard errors of the closed forms (a two-
 *      fixing Asian is half a European), the same bits for a seed, on
 *      a device opened as "cpu" too (fcast_mc_price_on), whose detail holds
 *      the Kemna-Vorst price and a control variate that narrows the error;
 *   3. risk and portfolios: empyrical's, QuantLib's and numpy's values on
 *      the bundled index prices (tests/fixtures/quant_*_eu_stock.csv); the
 *      returns matrix read from a file (fcast_returns_read_csv) equal to the
 *      one computed here, an inner join on dates worked by hand;
 *   4. indicator sets, tables and backtests: a set of specs in one pass
 *      named and valued as TA-Lib's fixture columns, both NaN policies and
 *      the too-short flags worked by hand; the bundled prices read through
 *      fcast_table_read_csv as this file's own reader reads them; the
 *      backtester's hand-computed 10 closes (tests/test_backtest.c), the
 *      default grid's size, and every grid cell equal to its combination
 *      run alone;
 *   5. every misuse refused with FC_ERR_INVALID (or _PARSE) and a message
 *      naming the function, the argument and the index, never a CLI flag:
 *      NULL pointers, bad specs and sizes, values out of range, NaN.
 * Each comparison has a control that must fail (another column, another
 * series, another seed), so that a comparison that cannot fail is seen. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fcast.h"
#include "quant_fixture_csv.h"

#define FIXTURES FC_SOURCE_DIR "/tests/fixtures/"
#define REL_TOL 1e-9
#define ABS_TOL 1e-12
#define MAX_COLS 64
#define MAX_SERIES 8
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------ CSV tables */

/* A CSV of unique_id and numeric columns (comment lines '#' skipped; an
 * empty cell is NaN); the rows of a series are contiguous. */
typedef struct {
    size_t n_rows, n_cols, n_series;
    char names[MAX_COLS][48];
    double *cols[MAX_COLS];
    int used[MAX_COLS];
    char ids[MAX_SERIES][16];
    int64_t indptr[MAX_SERIES + 1];
} table;

static void add_row(table *t, char **f, size_t n, size_t *cap) {
    if (t->n_rows == *cap) {
        *cap = *cap ? 2 * *cap : 1024;
        for (size_t c = 0; c < t->n_cols; c++) t->cols[c] = realloc(t->cols[c], *cap * sizeof(double));
    }
    if (!t->n_series || strcmp(f[0], t->ids[t->n_series - 1])) {
        if (t->n_series == MAX_SERIES) return;
        snprintf(t->ids[t->n_series++], sizeof t->ids[0], "%s", f[0]);
    }
    for (size_t c = 0; c < t->n_cols; c++)
        t->cols[c][t->n_rows] = c + 1 < n && f[c + 1][0] ? strtod(f[c + 1], NULL) : NAN;
    t->indptr[t->n_series] = (int64_t)++t->n_rows;
}

static int read_table(const char *path, table *t) {
    memset(t, 0, sizeof *t);
    FILE *f = fopen(path, "r");
    if (!f) return fprintf(stderr, "cannot open %s\n", path), 0;
    char line[8192], *fields[MAX_COLS + 1];
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        size_t n = csv_split(line, fields, MAX_COLS + 1);
        if (t->n_cols) {
            add_row(t, fields, n, &cap);
            continue;
        }
        t->n_cols = n - 1;
        for (size_t c = 0; c < t->n_cols; c++) snprintf(t->names[c], sizeof t->names[0], "%s", fields[c + 1]);
    }
    fclose(f);
    return t->n_rows > 0;
}

static void free_table(table *t) {
    for (size_t c = 0; c < t->n_cols; c++) free(t->cols[c]);
}

static int column(table *t, const char *name) {
    for (size_t c = 0; c < t->n_cols; c++)
        if (!strcmp(t->names[c], name)) return t->used[c] = 1, (int)c;
    return -1;
}

/* ------------------------------------------------------------ helpers */

static int close_enough(double got, double want) {
    if (isnan(got) || isnan(want)) return isnan(got) && isnan(want);
    return fabs(got - want) <= REL_TOL * fabs(want) + ABS_TOL;
}

/* The call failed with `status`, and its message names `needle` and no CLI flag. */
static void expect_fail(fc_status st, fc_status status, const char *needle, int line) {
    CHECK_MSG(st == status, "line %d: status %s, want %s (%s)", line, fc_status_name(st), fc_status_name(status),
              fc_last_error());
    CHECK_MSG(fc_last_status() == status, "line %d: fc_last_status %s", line, fc_status_name(fc_last_status()));
    CHECK_MSG(strstr(fc_last_error(), needle) != NULL, "line %d: \"%s\" lacks \"%s\"", line, fc_last_error(), needle);
    CHECK_MSG(strstr(fc_last_error(), "--") == NULL, "line %d: \"%s\" names a CLI flag", line, fc_last_error());
}
#define EXPECT_FAIL(call, status, needle) expect_fail((call), (status), (needle), __LINE__)

/* ------------------------------------------------------------ indicators */

/* The fixture's column of output k of `spec`: the spec with ':' -> '_', and
 * the output's name for several outputs ("bbands_20_2_upper"). */
static void column_name(const char *spec, size_t k, size_t n_out, char *buf, size_t cap) {
    static const char *const BANDS[3] = {"upper", "middle", "lower"}, *const MACD[3] = {"macd", "signal", "hist"};
    snprintf(buf, cap, "%s", spec);
    for (char *p = buf; *p; p++) *p = *p == ':' ? '_' : *p;
    if (n_out > 1) {
        size_t len = strlen(buf);
        snprintf(buf + len, cap - len, "_%s", (!strncmp(spec, "bbands", 6) ? BANDS : MACD)[k]);
    }
}

typedef struct {
    long compared, bit_equal, rsi_nan_for_zero, differ;
    int quiet;   /* a control: differences expected, not printed */
} tally;

/* got[r] against the fixture column for rows [a, b); RSI's one deliberate
 * difference (TA-Lib's 0 after an interior NaN is NaN in fcast) counted. */
static void compare(const char *spec, const double *got, const double *want, size_t a, size_t b, tally *t) {
    for (size_t r = a; r < b; r++, t->compared++) {
        if (!strncmp(spec, "rsi", 3) && want[r] == 0.0 && isnan(got[r - a])) {
            t->rsi_nan_for_zero++;
            continue;
        }
        t->bit_equal += got[r - a] == want[r] || (isnan(got[r - a]) && isnan(want[r]));
        if (!close_enough(got[r - a], want[r]) && t->differ++ < 3 && !t->quiet)
            fprintf(stderr, "%s row %zu: fcast %.17g, TA-Lib %.17g\n", spec, r, got[r - a], want[r]);
    }
}

/* Every spec on every series of the file, one series per call and then all
 * series in one grouped call, against TA-Lib's columns: those of the same
 * specs, or (a control) of col_specs[j] for specs[j]. */
static void check_indicator_file(const char *file, const char *const *specs, const char *const *col_specs,
                                 size_t n_specs, tally *t) {
    table tb;
    char path[512];
    snprintf(path, sizeof path, FIXTURES "quant/%s", file);
    CHECK_MSG(read_table(path, &tb), "%s unreadable", file);
    int y = column(&tb, "y");
    column(&tb, "ds");
    double *out[3];
    for (int k = 0; k < 3; k++) out[k] = malloc(tb.n_rows * sizeof(double));
    for (size_t j = 0; y >= 0 && j < n_specs; j++) {
        size_t n_out = 0;
        CHECK_MSG(fcast_indicator_outputs(specs[j], &n_out) == FC_OK, "%s: %s", specs[j], fc_last_error());
        int col[3] = {-1, -1, -1};
        for (size_t k = 0; k < n_out && k < 3; k++) {
            char name[96];
            column_name(col_specs ? col_specs[j] : specs[j], k, n_out, name, sizeof name);
            col[k] = column(&tb, name);
            CHECK_MSG(col[k] >= 0, "%s lacks column %s", file, name);
        }
        if (n_out > 3 || col[0] < 0 || (n_out > 1 && (col[1] < 0 || col[2] < 0))) continue;
        for (size_t s = 0; s < tb.n_series; s++) {
            size_t a = (size_t)tb.indptr[s], b = (size_t)tb.indptr[s + 1];
            CHECK_MSG(fcast_indicator(specs[j], tb.cols[y] + a, b - a, out, n_out) == FC_OK, "%s: %s", specs[j],
                      fc_last_error());
            for (size_t k = 0; k < n_out; k++) compare(specs[j], out[k], tb.cols[col[k]], a, b, t);
        }
        CHECK_MSG(fcast_indicator_grouped(specs[j], tb.n_series, tb.indptr, tb.cols[y], out, n_out) == FC_OK, "%s: %s",
                  specs[j], fc_last_error());
        for (size_t k = 0; k < n_out; k++) compare(specs[j], out[k], tb.cols[col[k]], 0, tb.n_rows, t);
    }
    for (size_t c = 0; !col_specs && c < tb.n_cols; c++)
        CHECK_MSG(tb.used[c], "%s: column %s not compared", file, tb.names[c]);
    for (int k = 0; k < 3; k++) free(out[k]);
    free_table(&tb);
}

static void test_indicators_against_talib(void) {
    static const char *const defaults[] = {"sma", "ema", "wma", "rsi", "mom", "roc", "stddev", "bbands", "macd",
                                           "zscore"};
    static const char *const params[] = {"sma:5", "sma:20", "sma:1", "ema:10", "ema:20", "ema:1", "wma:10", "wma:1",
                                         "rsi:7", "rsi:2", "mom:3", "roc:5", "stddev:10:2", "stddev:20",
                                         "bbands:10:1.5", "bbands:20:2", "bbands:20:2:1", "macd:5:13:4",
                                         "macd:12:26:9", "macd:26:12:9", "zscore:5", "zscore:20"};
    static const char *const with_nans[] = {"sma", "ema", "wma", "rsi", "mom", "roc", "stddev", "bbands", "macd",
                                            "zscore", "rsi:7", "sma:20", "bbands:20:2", "stddev:20"};
    static const char *const flat[] = {"sma", "ema", "wma", "rsi", "mom", "roc", "stddev", "bbands", "macd",
                                       "zscore", "zscore:5"};
    tally t = {0, 0, 0, 0, 0};
    check_indicator_file("indicators_eu.csv", defaults, NULL, COUNT(defaults), &t);
    check_indicator_file("indicators_params.csv", params, NULL, COUNT(params), &t);
    check_indicator_file("indicators_flat.csv", flat, NULL, COUNT(flat), &t);
    CHECK_MSG(t.differ == 0 && t.rsi_nan_for_zero == 0, "%ld values differ from TA-Lib, %ld RSI NaN-for-0", t.differ,
              t.rsi_nan_for_zero);
    tally n = {0, 0, 0, 0, 0};
    check_indicator_file("indicators_nan.csv", with_nans, NULL, COUNT(with_nans), &n);
    CHECK_MSG(n.differ == 0, "%ld values differ from TA-Lib (NaN fixture)", n.differ);
    CHECK_MSG(n.rsi_nan_for_zero > 0, "the NaN fixture should show TA-Lib's RSI of 0 after a NaN");
    CHECK(t.compared > 250000 && t.bit_equal > t.compared / 2);
    printf("indicators: %ld values compared with TA-Lib, %ld bit-identical; NaN fixture %ld (%ld RSI NaN-for-0)\n",
           t.compared + n.compared, t.bit_equal + n.bit_equal, n.compared, n.rsi_nan_for_zero);
    /* controls: the comparison fails on a neighbouring value, on NaN against
     * a number, and on another column of the same file */
    CHECK(!close_enough(1.0 + 2e-9, 1.0) && !close_enough(NAN, 1.0) && !close_enough(1.0, NAN));
    tally c = {0, 0, 0, 0, 1};
    check_indicator_file("indicators_eu.csv", (const char *const[]){"sma:29"}, (const char *const[]){"sma"}, 1, &c);
    CHECK_MSG(c.differ > 1000, "sma:29 matched TA-Lib's sma (30): the comparison cannot fail");
}

/* TA-Lib's lookback of every spec of indicators_lookback.csv, and as many
 * leading NaNs on a series without NaN. */
static void test_lookbacks(void) {
    FILE *f = fopen(FIXTURES "quant/indicators_lookback.csv", "r");
    CHECK(f != NULL);
    if (!f) return;
    table dax;
    CHECK(read_table(FIXTURES "quant/indicators_params.csv", &dax));
    size_t n = dax.n_rows;
    double *out[3] = {malloc(n * sizeof(double)), malloc(n * sizeof(double)), malloc(n * sizeof(double))};
    char line[256], *fl[6];
    int specs = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || !strncmp(line, "spec,", 5) || csv_split(line, fl, 6) < 2) continue;
        size_t lb = 0, n_out = 0;
        CHECK_MSG(fcast_indicator_lookback(fl[0], &lb) == FC_OK, "%s: %s", fl[0], fc_last_error());
        CHECK_MSG(lb == (size_t)atol(fl[1]), "%s: lookback %zu, TA-Lib %s", fl[0], lb, fl[1]);
        CHECK(fcast_indicator_outputs(fl[0], &n_out) == FC_OK);
        CHECK(n_out == (!strncmp(fl[0], "bbands", 6) || !strncmp(fl[0], "macd", 4) ? 3u : 1u));
        if (fcast_indicator(fl[0], dax.cols[1], n, out, n_out) != FC_OK) continue;
        size_t lead = 0;
        while (lead < n && isnan(out[0][lead])) lead++;
        CHECK_MSG(lead == (lb < n ? lb : n) || (!strncmp(fl[0], "zscore", 6) && lead >= lb),
                  "%s: %zu leading NaNs, lookback %zu", fl[0], lead, lb);
        specs++;
    }
    fclose(f);
    CHECK(specs >= 30);
    for (int k = 0; k < 3; k++) free(out[k]);
    free_table(&dax);
}

/* Indicators are causal: the outputs of any prefix are the first values of
 * the whole series' outputs, all NaN up to the lookback; n = 0 is no work. */
static void test_short_series_and_nans(void) {
    table dax;
    CHECK(read_table(FIXTURES "quant/indicators_params.csv", &dax));
    const double *x = dax.cols[1];
    static const char *const specs[] = {"rsi:14", "bbands:5:2:2", "macd:12:26:9", "ema:30", "wma:10", "roc:10"};
    static double full[3][200], part[3][200];
    for (size_t j = 0; j < COUNT(specs); j++) {
        size_t lb = 0, n_out = 0;
        CHECK(fcast_indicator_lookback(specs[j], &lb) == FC_OK && fcast_indicator_outputs(specs[j], &n_out) == FC_OK);
        CHECK(fcast_indicator(specs[j], x, 200, (double *const[]){full[0], full[1], full[2]}, n_out) == FC_OK);
        const size_t sizes[5] = {1, lb, lb + 1, lb + 2, 150};
        for (int s = 0; s < 5; s++) {
            size_t m = sizes[s];
            CHECK(fcast_indicator(specs[j], x, m, (double *const[]){part[0], part[1], part[2]}, n_out) == FC_OK);
            for (size_t k = 0; k < n_out; k++) {
                CHECK_MSG(!memcmp(part[k], full[k], m * sizeof(double)), "%s: n = %zu differs", specs[j], m);
                size_t lead = 0;
                while (lead < m && isnan(part[k][lead])) lead++;
                CHECK_MSG(lead == (m <= lb ? m : lb), "%s n = %zu: %zu leading NaNs", specs[j], m, lead);
            }
        }
        CHECK(fcast_indicator(specs[j], x, 0, (double *const[]){part[0], part[1], part[2]}, n_out) == FC_OK);
    }
    /* leading NaNs are skipped: the series starts at its first number */
    static double y[203], lead[203];
    y[0] = y[1] = y[2] = NAN;
    memcpy(y + 3, x, 200 * sizeof(double));
    CHECK(fcast_indicator("sma:20", x, 200, (double *const[]){full[0]}, 1) == FC_OK);
    CHECK(fcast_indicator("sma:20", y, 203, (double *const[]){lead}, 1) == FC_OK);
    CHECK(isnan(lead[0]) && isnan(lead[1]) && isnan(lead[2]) && !memcmp(lead + 3, full[0], 200 * sizeof(double)));
    /* an interior NaN: TA-Lib's running sum carries it (POISON) */
    y[3 + 100] = NAN;
    CHECK(fcast_indicator("sma:20", y, 203, (double *const[]){lead}, 1) == FC_OK);
    CHECK(!memcmp(lead + 3, full[0], 100 * sizeof(double)) && isnan(lead[103]) && isnan(lead[202]));
    /* grouped: an empty series between two others changes neither */
    const int64_t indptr[4] = {0, 100, 100, 200};
    static double g[200];
    CHECK(fcast_indicator_grouped("sma:20", 3, indptr, x, (double *const[]){g}, 1) == FC_OK);
    CHECK(fcast_indicator("sma:20", x + 100, 100, (double *const[]){full[1]}, 1) == FC_OK);
    CHECK(!memcmp(g, full[0], 100 * sizeof(double)) && !memcmp(g + 100, full[1], 100 * sizeof(double)));
    CHECK(memcmp(g + 100, full[0] + 100, 100 * sizeof(double)) != 0);   /* control: not one series */
    CHECK(fcast_indicator_grouped("sma:20", 0, indptr, x, (double *const[]){g}, 1) == FC_OK);
    free_table(&dax);
}

static void test_indicator_misuse(void) {
    double x[50], a[50], b[50], c[50];
    for (int i = 0; i < 50; i++) x[i] = 100 + i % 7;
    double *one[1] = {a}, *three[3] = {a, b, c};
    size_t v;
    EXPECT_FAIL(fcast_indicator(NULL, x, 50, one, 1), FC_ERR_INVALID, "fcast_indicator: spec is NULL");
    EXPECT_FAIL(fcast_indicator("sma:0", x, 50, one, 1), FC_ERR_INVALID,
                "fcast_indicator: spec 'sma:0': period must be >= 1");
    EXPECT_FAIL(fcast_indicator("sma:abc", x, 50, one, 1), FC_ERR_PARSE, "spec 'sma:abc': period must be an integer");
    EXPECT_FAIL(fcast_indicator("adx:14", x, 50, one, 1), FC_ERR_INVALID, "unknown indicator 'adx'");
    EXPECT_FAIL(fcast_indicator("", x, 50, one, 1), FC_ERR_PARSE, "fcast_indicator: spec: empty indicator spec");
    EXPECT_FAIL(fcast_indicator("sma:5", NULL, 50, one, 1), FC_ERR_INVALID, "fcast_indicator: x is NULL");
    EXPECT_FAIL(fcast_indicator("bbands:20:2", x, 50, one, 1), FC_ERR_INVALID,
                "n_outs = 1, but 'bbands:20:2' has 3 outputs (upper, middle, lower)");
    EXPECT_FAIL(fcast_indicator("sma:5", x, 50, three, 3), FC_ERR_INVALID, "n_outs = 3, but 'sma:5' has 1 output");
    EXPECT_FAIL(fcast_indicator("sma:5", x, 50, NULL, 1), FC_ERR_INVALID, "outs is NULL");
    EXPECT_FAIL(fcast_indicator("macd", x, 50, (double *const[]){a, NULL, c}, 3), FC_ERR_INVALID, "outs[1] is NULL");
    EXPECT_FAIL(fcast_indicator("sma:5", x, 50, (double *const[]){x + 10}, 1), FC_ERR_INVALID,
                "outs[0] overlaps the input");
    EXPECT_FAIL(fcast_indicator("macd", x, 50, (double *const[]){a, b, a + 49}, 3), FC_ERR_INVALID,
                "outs[2] overlaps outs[0]");
    CHECK(fcast_indicator("macd", x, 25, (double *const[]){a, a + 25, b}, 3) == FC_OK);   /* adjacent, apart */
    EXPECT_FAIL(fcast_indicator_outputs("rsi", NULL), FC_ERR_INVALID, "fcast_indicator_outputs: n_outputs is NULL");
    EXPECT_FAIL(fcast_indicator_lookback("rsi:1", &v), FC_ERR_INVALID,
                "fcast_indicator_lookback: spec 'rsi:1': period must be >= 2");
    EXPECT_FAIL(fcast_indicator_lookback("rsi", NULL), FC_ERR_INVALID, "lookback is NULL");
    const int64_t ok[3] = {0, 20, 50}, first[3] = {1, 20, 50}, down[3] = {0, 30, 20};
    EXPECT_FAIL(fcast_indicator_grouped("sma:5", 2, NULL, x, one, 1), FC_ERR_INVALID,
                "fcast_indicator_grouped: indptr is NULL");
    EXPECT_FAIL(fcast_indicator_grouped("sma:5", 2, first, x, one, 1), FC_ERR_INVALID, "indptr[0] = 1: must be 0");
    EXPECT_FAIL(fcast_indicator_grouped("sma:5", 2, down, x, one, 1), FC_ERR_INVALID,
                "indptr[2] = 20 < indptr[1] = 30: offsets may not decrease");
    EXPECT_FAIL(fcast_indicator_grouped("sma:5", 2, ok, NULL, one, 1), FC_ERR_INVALID, "values is NULL");
    EXPECT_FAIL(fcast_indicator_grouped("stddev:1", 2, ok, x, one, 1), FC_ERR_INVALID,
                "fcast_indicator_grouped: spec 'stddev:1': period must be >= 2");
    CHECK(fcast_indicator_grouped("sma:5", 2, ok, x, one, 1) == FC_OK);
}

/* ------------------------------------------------------------ options */

/* Black-Scholes-Merton written out here: price, delta, gamma, vega, theta, rho. */
static void bs(int call, double S, double K, double r, double q, double v, double T, double g[6]) {
    double sd = v * sqrt(T), d1 = (log(S / K) + (r - q + 0.5 * v * v) * T) / sd, d2 = d1 - sd;
    double N1 = 0.5 * erfc(-d1 / sqrt(2.0)), N2 = 0.5 * erfc(-d2 / sqrt(2.0));
    double pdf = exp(-0.5 * d1 * d1) / sqrt(2 * 3.14159265358979323846);
    double dq = exp(-q * T), dr = exp(-r * T), sgn = call ? 1.0 : -1.0;
    if (!call) N1 = 1.0 - N1, N2 = 1.0 - N2;   /* N(-d) */
    g[0] = sgn * (S * dq * N1 - K * dr * N2);
    g[1] = sgn * dq * N1;
    g[2] = dq * pdf / (S * sd);
    g[3] = S * dq * pdf * sqrt(T);
    g[4] = -S * dq * pdf * v / (2 * sqrt(T)) - sgn * r * K * dr * N2 + sgn * q * S * dq * N1;
    g[5] = sgn * K * T * dr * N2;
}

static void test_black_scholes(void) {
    /* Hull's textbook case and Haug's dividend-yield put; Greeks of QuantLib 1.29 */
    const int type[4] = {FCAST_CALL, FCAST_PUT, FCAST_PUT, FCAST_CALL};
    const double S[4] = {100, 100, 100, 100}, K[4] = {100, 100, 95, 95}, r[4] = {0.05, 0.05, 0.10, 0.10},
                 q[4] = {0, 0, 0.05, 0.05}, vol[4] = {0.2, 0.2, 0.2, 0.2}, T[4] = {1, 1, 0.5, 0.5};
    fcast_option_arrays o = {4, type, S, K, r, q, vol, T};
    double p[4], d[4], g[4], v[4], th[4], rho[4];
    CHECK_MSG(fcast_bs_european(&o, p, d, g, v, th, rho) == FC_OK, "%s", fc_last_error());
    CHECK_CLOSE(p[0], 10.450584, 1e-6, 0);
    CHECK_CLOSE(p[1], 5.573526, 1e-6, 0);
    CHECK_CLOSE(d[0], 0.636831, 1e-6, 0);
    CHECK_CLOSE(g[0], 0.0187620173458, 1e-11, 0);
    CHECK_CLOSE(v[0], 37.5240346917, 1e-9, 0);
    CHECK_CLOSE(th[0], -6.41402754644, 1e-9, 0);
    CHECK_CLOSE(rho[0], 53.2324815454, 1e-9, 0);
    CHECK_CLOSE(p[2], 2.46478764676, 1e-10, 0);
    CHECK_CLOSE(d[2], -0.264181599636, 1e-11, 0);
    CHECK_CLOSE(th[2], -3.0005280964, 1e-9, 0);
    CHECK_CLOSE(rho[2], -14.4414738052, 1e-9, 0);
    CHECK_CLOSE(p[3], 9.62898352202, 1e-10, 0);
    CHECK_CLOSE(g[3], 0.0228395742963, 1e-12, 0);
    CHECK_CLOSE(v[3], 22.8395742963, 1e-9, 0);
    CHECK_CLOSE(th[3], -7.16065806901, 1e-9, 0);
    CHECK_CLOSE(rho[3], 30.7419238586, 1e-9, 0);
    /* rate and div NULL are zeros; any output may be NULL */
    const double zero[4] = {0, 0, 0, 0};
    double a[4], b[4];
    fcast_option_arrays nul = {4, type, S, K, NULL, NULL, vol, T}, zeros = {4, type, S, K, zero, zero, vol, T};
    CHECK(fcast_bs_european(&nul, a, NULL, NULL, NULL, NULL, NULL) == FC_OK);
    CHECK(fcast_bs_european(&zeros, NULL, NULL, NULL, NULL, NULL, b) == FC_OK);
    CHECK(fcast_bs_european(&zeros, b, NULL, NULL, NULL, NULL, NULL) == FC_OK && !memcmp(a, b, sizeof a));
    CHECK(a[0] != p[0]);   /* control: the rates matter */
    CHECK(fcast_bs_european(&o, NULL, NULL, NULL, NULL, NULL, NULL) == FC_OK);
    o.n = 0;
    CHECK(fcast_bs_european(&o, p, d, g, v, th, rho) == FC_OK);
}

/* A grid of calls and puts in one call (more than one thread's worth):
 * the formula above, and put-call parity between neighbours. */
static void test_black_scholes_grid(void) {
    enum { N = 6000 };
    static int type[N];
    static double S[N], K[N], r[N], q[N], vol[N], T[N], out[6][N];
    for (int i = 0; i < N; i++) {
        int j = i / 2;
        type[i] = i % 2 ? FCAST_PUT : FCAST_CALL;
        S[i] = 100, K[i] = 60 + (j % 17) * 5, r[i] = -0.01 + (j % 5) * 0.02, q[i] = (j % 3) * 0.015;
        vol[i] = 0.05 + (j % 11) * 0.07, T[i] = 0.02 + (j % 13) * 0.4;
    }
    fcast_option_arrays o = {N, type, S, K, r, q, vol, T};
    CHECK(fcast_bs_european(&o, out[0], out[1], out[2], out[3], out[4], out[5]) == FC_OK);
    int bad = 0, parity_bad = 0;
    for (int i = 0; i < N; i++) {
        double want[6];
        bs(type[i] == FCAST_CALL, S[i], K[i], r[i], q[i], vol[i], T[i], want);
        for (int k = 0; k < 6; k++) bad += fabs(out[k][i] - want[k]) > 1e-10 * fabs(want[k]) + 1e-11;
        if (i % 2) {
            double fwd = S[i] * exp(-q[i] * T[i]) - K[i] * exp(-r[i] * T[i]);
            parity_bad += fabs(out[0][i - 1] - out[0][i] - fwd) > 1e-11 * S[i];
            parity_bad += fabs(out[1][i - 1] - out[1][i] - exp(-q[i] * T[i])) > 1e-13;   /* delta parity */
        }
    }
    CHECK_MSG(bad == 0, "%d Greeks differ from the formula", bad);
    CHECK_MSG(parity_bad == 0, "%d put-call parities fail", parity_bad);
    /* controls: the calls alone break parity; the same options one at a time give the same bits */
    CHECK(fabs(out[0][0] - out[0][2] - (S[0] * exp(-q[0] * T[0]) - K[0] * exp(-r[0] * T[0]))) > 1e-6);
    for (int i = 0; i < N; i += 997) {
        fcast_option_arrays one = {1, type + i, S + i, K + i, r + i, q + i, vol + i, T + i};
        double p1;
        CHECK(fcast_bs_european(&one, &p1, NULL, NULL, NULL, NULL, NULL) == FC_OK && p1 == out[0][i]);
    }
}

/* Kemna-Vorst written out here: log G is normal. */
static double geometric_forward(double S, double r, double q, double v, const double *t, int n, double *var) {
    double mean_t = 0, sum_min = 0;
    for (int i = 0; i < n; i++) {
        mean_t += t[i] / n;
        for (int j = 0; j < n; j++) sum_min += fmin(t[i], t[j]);
    }
    *var = v * v * sum_min / ((double)n * n);
    return exp(log(S) + (r - q - 0.5 * v * v) * mean_t + 0.5 * *var);
}

static void test_geometric_asian(void) {
    /* QuantLib's testAnalyticDiscreteGeometricAveragePrice (Clewlow & Strickland):
     * 10 fixings every 36 days of a 360-day year; the put by parity: C - P = e^{-rT} (E[G] - K) */
    double t[10], var;
    for (int i = 0; i < 10; i++) t[i] = 36.0 * (i + 1) / 360.0;
    const int type[2] = {FCAST_CALL, FCAST_PUT};
    const double S[2] = {100, 100}, K[2] = {100, 100}, r[2] = {0.06, 0.06}, q[2] = {0.03, 0.03}, v[2] = {0.2, 0.2},
                 T[2] = {1, 1};
    fcast_option_arrays o = {2, type, S, K, r, q, v, T};
    double p[2], u[2];
    CHECK_MSG(fcast_asian_geometric(&o, t, 10, p) == FC_OK, "%s", fc_last_error());
    CHECK_CLOSE(p[0], 5.3425606635, 1e-10, 0);
    double fwd = geometric_forward(100, 0.06, 0.03, 0.2, t, 10, &var);
    CHECK_CLOSE(p[0] - p[1], exp(-0.06) * (fwd - 100), 1e-12, 0);
    /* NULL: expiry j / n, here the same times */
    CHECK(fcast_asian_geometric(&o, NULL, 10, u) == FC_OK);
    CHECK_CLOSE(u[0], p[0], 1e-13, 0);
    CHECK_CLOSE(u[1], p[1], 1e-13, 0);
    CHECK(fcast_asian_geometric(&o, NULL, 11, u) == FC_OK && fabs(u[0] - p[0]) > 1e-4);   /* control */
    /* one fixing at the expiry is the European option */
    double one = 1.0, e[2];
    CHECK(fcast_asian_geometric(&o, &one, 1, u) == FC_OK);
    CHECK(fcast_bs_european(&o, e, NULL, NULL, NULL, NULL, NULL) == FC_OK);
    CHECK_CLOSE(u[0], e[0], 1e-12, 0);
    CHECK_CLOSE(u[1], e[1], 1e-12, 0);
}

static double bs_price(int call, double S, double K, double r, double q, double v, double T) {
    double g[6];
    bs(call, S, K, r, q, v, T, g);
    return g[0];
}

static void test_monte_carlo(void) {
    fcast_mc_option o = {.type = FCAST_CALL, .spot = 100, .strike = 100, .rate = 0.05, .div = 0.02, .vol = 0.2,
                         .expiry = 1, .paths = 400000, .antithetic = 1, .seed = 42};
    fcast_mc_result a, b;
    for (int type = 0; type < 2; type++) {
        o.type = type;
        CHECK_MSG(fcast_mc_price(&o, &a) == FC_OK, "%s", fc_last_error());
        double want = bs_price(type == FCAST_CALL, 100, 100, 0.05, 0.02, 0.2, 1);
        CHECK_MSG(fabs(a.price - want) < 3 * a.std_error, "%.6f +- %.6f vs %.6f", a.price, a.std_error, want);
        CHECK(a.std_error > 0 && a.std_error < 0.02 && a.paths == 400000);
        CHECK_CLOSE(a.ci_high - a.ci_low, 2 * 1.959963984540054 * a.std_error, 1e-12, 0);
        CHECK(a.ci_low < a.price && a.price < a.ci_high);
    }
    /* the same seed, the same bits; another seed, another price */
    CHECK(fcast_mc_price(&o, &b) == FC_OK && !memcmp(&a, &b, sizeof a));
    o.seed = 43;
    CHECK(fcast_mc_price(&o, &b) == FC_OK && b.price != a.price);
    /* zero fields: the CLI's defaults (1000000 paths, 1 step) */
    fcast_mc_option d = {.type = FCAST_PUT, .spot = 100, .strike = 100, .rate = 0.05, .vol = 0.2, .expiry = 1};
    CHECK(fcast_mc_price(&d, &a) == FC_OK && a.paths == 1000000);
    CHECK_MSG(fabs(a.price - 5.573526) < 3 * a.std_error, "%.6f +- %.6f", a.price, a.std_error);
    /* Asian with fixings today and at the expiry: max((S0 + S_T)/2 - K, 0) is
     * half a European call struck at 2K - S0 */
    const double t[2] = {0.0, 0.75};
    fcast_mc_option as = {.type = FCAST_CALL, .asian = 1, .spot = 90, .strike = 87, .rate = 0.025, .div = 0.06,
                          .vol = 0.13, .expiry = 0.75, .fixing_times = t, .n_fixings = 2, .paths = 400000,
                          .antithetic = 1, .seed = 3};
    CHECK_MSG(fcast_mc_price(&as, &a) == FC_OK, "%s", fc_last_error());
    double want = 0.5 * bs_price(1, 90, 2 * 87 - 90, 0.025, 0.06, 0.13, 0.75);
    CHECK_MSG(fabs(a.price - want) < 3 * a.std_error, "two-fixing Asian %.6f +- %.6f vs %.6f", a.price, a.std_error,
              want);
    /* 12 fixings (the default): the arithmetic average is above the geometric one */
    as.fixing_times = NULL, as.n_fixings = 0, as.paths = 200000;
    CHECK(fcast_mc_price(&as, &a) == FC_OK);
    fcast_option_arrays g = {1, &as.type, &as.spot, &as.strike, &as.rate, &as.div, &as.vol, &as.expiry};
    double geo = 0;
    CHECK(fcast_asian_geometric(&g, NULL, 12, &geo) == FC_OK);
    CHECK_MSG(a.price > geo && a.price < geo + 0.1, "arithmetic %.6f, geometric %.6f", a.price, geo);
}

/* fcast_mc_price_on: on the CPU (dev NULL, or a device opened as "cpu") the
 * bits of fcast_mc_price; its detail as the closed forms say. */
static void test_monte_carlo_detail(void) {
    fcast_device *cpu = NULL;
    CHECK_MSG(fcast_device_open("cpu", &cpu) == FC_OK, "%s", fc_last_error());
    CHECK(cpu && !strcmp(fcast_device_note(cpu), "device: cpu"));
    fcast_mc_option eu = {.type = FCAST_CALL, .spot = 100, .strike = 105, .rate = 0.03, .vol = 0.25, .expiry = 1,
                          .paths = 100000, .seed = 3};
    fcast_mc_result a, b, c;
    fcast_mc_detail d;
    CHECK(fcast_mc_price(&eu, &a) == FC_OK);
    CHECK_MSG(fcast_mc_price_on(&eu, NULL, &b, NULL) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fcast_mc_price_on(&eu, cpu, &c, &d) == FC_OK, "%s", fc_last_error());
    CHECK(!memcmp(&a, &b, sizeof a) && !memcmp(&a, &c, sizeof a));
    /* a European: no control variate, the plain estimate is the price */
    CHECK(d.plain_price == c.price && d.plain_std_error == c.std_error && d.cv_beta == 0 && d.samples == 100000);
    CHECK(fcast_mc_price_on(&(fcast_mc_option){.type = FCAST_CALL, .spot = 100, .strike = 105, .rate = 0.03,
                                               .vol = 0.25, .expiry = 1, .paths = 100000, .seed = 4},
                            cpu, &b, NULL) == FC_OK && b.price != c.price);   /* control: another seed */
    /* an Asian with the control variate: the geometric closed form is fcast_asian_geometric's, the Monte
     * Carlo geometric mean within 3.5 of its standard errors of it, and the variate narrows the error */
    fcast_mc_option as = {.type = FCAST_PUT, .asian = 1, .spot = 90, .strike = 87, .rate = 0.025, .div = 0.06,
                          .vol = 0.13, .expiry = 1, .n_fixings = 12, .paths = 100000, .antithetic = 1, .seed = 42};
    CHECK_MSG(fcast_mc_price_on(&as, cpu, &c, &d) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_mc_price(&as, &a) == FC_OK && !memcmp(&a, &c, sizeof a));
    double geo = 0;
    fcast_option_arrays g = {1, &as.type, &as.spot, &as.strike, &as.rate, &as.div, &as.vol, &as.expiry};
    CHECK(fcast_asian_geometric(&g, NULL, 12, &geo) == FC_OK);
    CHECK_CLOSE(d.geo_exact, geo, 1e-14, 1e-12);
    CHECK_MSG(fabs(d.geo_mc - geo) < 3.5 * d.geo_mc_std_error, "%.6f +- %.6f vs %.6f", d.geo_mc, d.geo_mc_std_error,
              geo);
    CHECK(d.cv_beta > 0.5 && d.cv_beta < 1.5 && d.samples == 50000);
    CHECK_MSG(c.std_error < 0.5 * d.plain_std_error, "%.3g with the variate, %.3g without", c.std_error,
              d.plain_std_error);
    CHECK(fabs(d.plain_price - c.price) < 3 * d.plain_std_error && d.plain_price != c.price);
    /* without it: the plain estimate, beta 0 */
    as.no_control_variate = 1;
    CHECK(fcast_mc_price_on(&as, cpu, &c, &d) == FC_OK);
    CHECK(d.cv_beta == 0 && d.plain_price == c.price && d.plain_std_error == c.std_error);
    fcast_device_free(cpu);
    fcast_device_free(NULL);
}

static void test_device_misuse(void) {
    fcast_device *dev = (fcast_device *)&dev;
    EXPECT_FAIL(fcast_device_open("gpu", &dev), FC_ERR_INVALID, "device 'gpu' is not a device: use auto | cpu");
    CHECK(dev == NULL);
    EXPECT_FAIL(fcast_device_open("cpu", NULL), FC_ERR_INVALID, "fcast_device_open: out is NULL");
    /* auto: a GPU with fcast's kernels, or the CPU saying why not */
    CHECK_MSG(fcast_device_open(NULL, &dev) == FC_OK, "%s", fc_last_error());
    CHECK(!strncmp(fcast_device_note(dev), "device: ", 8));
    fcast_device_free(dev);
    fcast_mc_result r;
    EXPECT_FAIL(fcast_mc_price_on(NULL, NULL, &r, NULL), FC_ERR_INVALID, "fcast_mc_price_on: o is NULL");
    fcast_mc_option o = {.type = FCAST_CALL, .spot = 100, .strike = 100, .vol = 0.2, .expiry = 1, .paths = 1000};
    EXPECT_FAIL(fcast_mc_price_on(&o, NULL, NULL, NULL), FC_ERR_INVALID, "fcast_mc_price_on: out is NULL");
    o.vol = -0.2;
    EXPECT_FAIL(fcast_mc_price_on(&o, NULL, &r, NULL), FC_ERR_INVALID, "fcast_mc_price_on: vol = -0.2");
    o.vol = 0.2, o.paths = 20000000000ULL;
    EXPECT_FAIL(fcast_mc_price_on(&o, NULL, &r, NULL), FC_ERR_INVALID, "fcast_mc_price_on: paths: expected 2 to");
}

static void test_option_misuse(void) {
    int type[4] = {FCAST_CALL, FCAST_PUT, FCAST_CALL, FCAST_PUT};
    double S[4] = {100, 100, 100, 100}, K[4] = {90, 100, 110, 120}, r[4] = {0.01, 0.01, 0.01, 0.01};
    double vol[4] = {0.2, 0.2, 0.2, -0.2}, T[4] = {1, 1, 1, 1}, p[4];
    fcast_option_arrays o = {4, type, S, K, r, NULL, vol, T};
    EXPECT_FAIL(fcast_bs_european(&o, p, NULL, NULL, NULL, NULL, NULL), FC_ERR_INVALID,
                "fcast_bs_european: vol[3] = -0.2: must be a positive number");
    vol[3] = 0.2, type[1] = 7;
    EXPECT_FAIL(fcast_bs_european(&o, p, NULL, NULL, NULL, NULL, NULL), FC_ERR_INVALID,
                "type[1] = 7: must be FCAST_CALL (1) or FCAST_PUT (0)");
    type[1] = FCAST_PUT, S[0] = NAN;
    EXPECT_FAIL(fcast_bs_european(&o, p, NULL, NULL, NULL, NULL, NULL), FC_ERR_INVALID, "spot[0] = nan");
    S[0] = 100, K[2] = 0;
    EXPECT_FAIL(fcast_asian_geometric(&o, NULL, 4, p), FC_ERR_INVALID, "fcast_asian_geometric: strike[2] = 0");
    K[2] = 110, T[1] = 0;
    EXPECT_FAIL(fcast_bs_european(&o, p, NULL, NULL, NULL, NULL, NULL), FC_ERR_INVALID,
                "expiry[1] = 0: must be a positive number of years");
    T[1] = 1, r[2] = INFINITY;
    EXPECT_FAIL(fcast_bs_european(&o, p, NULL, NULL, NULL, NULL, NULL), FC_ERR_INVALID,
                "rate[2] = inf: must be finite");
    r[2] = 0.01, vol[0] = 30;
    EXPECT_FAIL(fcast_bs_european(&o, p, NULL, NULL, NULL, NULL, NULL), FC_ERR_INVALID,
                "vol[0]^2 expiry[0] = 900: beyond 700");
    vol[0] = 0.2;
    CHECK(fcast_bs_european(&o, p, NULL, NULL, NULL, NULL, NULL) == FC_OK);
    EXPECT_FAIL(fcast_bs_european(NULL, p, NULL, NULL, NULL, NULL, NULL), FC_ERR_INVALID,
                "fcast_bs_european: o is NULL");
    o.vol = NULL;
    EXPECT_FAIL(fcast_bs_european(&o, p, NULL, NULL, NULL, NULL, NULL), FC_ERR_INVALID,
                "o->vol is NULL (only rate and div may be");
    o.vol = vol;
    const double unsorted[2] = {0.5, 0.25}, late[2] = {0.5, 1.5}, negative[1] = {-0.1};
    EXPECT_FAIL(fcast_asian_geometric(&o, unsorted, 2, p), FC_ERR_INVALID,
                "fixing_times[1] = 0.25 < fixing_times[0] = 0.5: must be sorted");
    EXPECT_FAIL(fcast_asian_geometric(&o, late, 2, p), FC_ERR_INVALID, "fixing_times[1] = 1.5 is after expiry[0] = 1");
    EXPECT_FAIL(fcast_asian_geometric(&o, negative, 1, p), FC_ERR_INVALID, "fixing_times[0] = -0.1");
    EXPECT_FAIL(fcast_asian_geometric(&o, NULL, 0, p), FC_ERR_INVALID, "n_fixings = 0");

    fcast_mc_option m = {.type = FCAST_CALL, .spot = 100, .strike = 100, .vol = 0.2, .expiry = 1, .paths = 1000};
    fcast_mc_result res;
    m.vol = 0;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "fcast_mc_price: vol = 0: must be a positive number");
    m.vol = 0.2, m.type = 2;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "type = 2: must be FCAST_CALL");
    m.type = FCAST_CALL, m.paths = 1;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "paths = 1: at least 2");
    m.paths = 100000000000ULL;   /* the engine's limit, its message renamed */
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "fcast_mc_price: paths: expected 2 to 10000000000 paths");
    m.paths = 1000000000ULL, m.steps = 100;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "paths 1000000000 x steps 100");
    m.paths = 1000, m.steps = 0, m.n_fixings = 12;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "n_fixings: only for an Asian option");
    m.asian = 1, m.steps = 4;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "steps = 4: not for an Asian option");
    m.steps = 0, m.n_fixings = 200000;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "n_fixings: expected 1 to 100000 fixings");
    m.n_fixings = 2, m.fixing_times = unsorted;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "fixing_times[1] = 0.25 < fixing_times[0] = 0.5");
    m.fixing_times = late;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "fixing_times[1] = 1.5 is after expiry = 1");
    m.fixing_times = NULL, m.asian = 3;
    EXPECT_FAIL(fcast_mc_price(&m, &res), FC_ERR_INVALID, "asian = 3");
    EXPECT_FAIL(fcast_mc_price(NULL, &res), FC_ERR_INVALID, "fcast_mc_price: o is NULL");
    m.asian = 1;
    EXPECT_FAIL(fcast_mc_price(&m, NULL), FC_ERR_INVALID, "fcast_mc_price: out is NULL");
    CHECK(fcast_mc_price(&m, &res) == FC_OK);
}

/* ------------------------------------------------------------ risk, portfolios */

/* Simple returns of the bundled prices, (T, 4) row-major, assets in the
 * fixtures' order (sorted ids: CAC, DAX, FTSE, SMI). */
static double *eu_returns(size_t *T, char ids[4][16]) {
    table t;
    if (!read_table(FC_SOURCE_DIR "/data/eu_stock_markets.csv", &t) || t.n_series != 4) return NULL;
    static const char *const order[4] = {"CAC", "DAX", "FTSE", "SMI"};
    size_t n = (size_t)(t.indptr[1] - t.indptr[0]);
    double *R = malloc((n - 1) * 4 * sizeof *R);
    for (size_t j = 0; j < 4; j++) {
        size_t s = 0;
        while (s < 4 && strcmp(t.ids[s], order[j])) s++;
        CHECK(s < 4 && (size_t)(t.indptr[s + 1] - t.indptr[s]) == n);
        if (s == 4) return free(R), free_table(&t), NULL;
        snprintf(ids[j], 16, "%s", order[j]);
        const double *ds = t.cols[0] + t.indptr[s], *p = t.cols[1] + t.indptr[s];
        for (size_t i = 1; i < n; i++) {
            CHECK(ds[i] == ds[0] + (double)i);   /* the same ds in every series: no alignment needed */
            R[(i - 1) * 4 + j] = p[i] / p[i - 1] - 1.0;
        }
    }
    *T = n - 1;
    free_table(&t);
    return R;
}

/* One metric of the risk fixture ("sharpe", "hist_var_0.95", ...) of r. */
static double metric(const double *r, size_t n, const char *name) {
    fcast_risk s;
    if (fcast_risk_summary(r, n, &s) != FC_OK) return NAN;
    const char *names[5] = {"annual_return", "annual_volatility", "sharpe", "sortino", "max_drawdown"};
    const double v[5] = {s.annual_return, s.annual_volatility, s.sharpe, s.sortino, s.max_drawdown};
    for (int k = 0; k < 5; k++)
        if (!strcmp(name, names[k])) return v[k];
    const char *us = strrchr(name, '_');
    double level = us ? strtod(us + 1, NULL) : NAN, var = NAN, tail = NAN;
    fc_status st = !strncmp(name, "hist", 4) ? fcast_var_historical(r, n, level, &var, &tail)
                                              : fcast_var_normal(r, n, level, &var, &tail);
    return st != FC_OK ? NAN : strstr(name, "_var_") ? var : tail;
}

static void test_risk(void) {
    size_t T = 0;
    char ids[4][16];
    double *R = eu_returns(&T, ids);
    CHECK(R != NULL && T == 1859);
    if (!R) return;
    double *col = malloc(T * sizeof *col);
    FILE *f = fopen(FIXTURES "quant_risk_eu_stock.csv", "r");
    CHECK(f != NULL);
    char line[256], *fl[3];
    int compared = 0, control_differs = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (csv_split(line, fl, 3) < 3 || !strcmp(fl[0], "series")) continue;
        size_t j = 0;
        while (j < 4 && strcmp(ids[j], fl[0])) j++;
        CHECK(j < 4);
        if (j == 4) continue;
        double want = strtod(fl[2], NULL);
        for (size_t t = 0; t < T; t++) col[t] = R[t * 4 + j];
        double got = metric(col, T, fl[1]);
        CHECK_MSG(fabs(got - want) <= 1e-9 * fabs(want) + 1e-15, "%s %s: %.17g, fixture %.17g", fl[0], fl[1], got,
                  want);
        for (size_t t = 0; t < T; t++) col[t] = R[t * 4 + (j + 1) % 4];   /* control: another index */
        got = metric(col, T, fl[1]);
        control_differs += !(fabs(got - want) <= 1e-9 * fabs(want) + 1e-15);
        compared++;
    }
    if (f) fclose(f);
    CHECK_MSG(compared == 84 && control_differs == 84, "%d compared, %d controls differ", compared, control_differs);
    /* by hand: wealth 1.1, 0.88, 0.924, 0.8316, 1.08108; the 2 worst of 5 at 0.6 */
    const double r[5] = {0.1, -0.2, 0.05, -0.1, 0.3};
    fcast_risk s;
    double var, cvar;
    CHECK(fcast_risk_summary(r, 5, &s) == FC_OK && s.n == 5);
    CHECK_CLOSE(s.max_drawdown, 0.8316 / 1.1 - 1.0, 1e-15, 0);
    CHECK_CLOSE(s.mean, 0.03, 1e-16, 0);
    CHECK(fcast_var_historical(r, 5, 0.6, &var, &cvar) == FC_OK);
    CHECK_CLOSE(var, 0.1, 1e-15, 0);
    CHECK_CLOSE(cvar, 0.15, 1e-15, 0);
    CHECK(fcast_var_historical(r, 1, 0.95, &var, &cvar) == FC_OK && var == -0.1 && cvar == -0.1);
    free(col);
    free(R);
}

static void test_risk_misuse(void) {
    double r[4] = {0.01, -0.02, NAN, 0.03}, var, es;
    fcast_risk s;
    EXPECT_FAIL(fcast_risk_summary(r, 4, &s), FC_ERR_INVALID, "fcast_risk_summary: returns[2] = nan: must be finite");
    r[2] = -1.5;
    EXPECT_FAIL(fcast_risk_summary(r, 4, &s), FC_ERR_INVALID, "returns[2] = -1.5: below -1");
    CHECK(fcast_var_historical(r, 4, 0.5, &var, &es) == FC_OK);   /* a P&L below -1 is a number there */
    r[2] = 0.0;
    EXPECT_FAIL(fcast_risk_summary(r, 1, &s), FC_ERR_INVALID, "n = 1: needs at least 2 returns");
    EXPECT_FAIL(fcast_risk_summary(NULL, 4, &s), FC_ERR_INVALID, "fcast_risk_summary: returns is NULL");
    EXPECT_FAIL(fcast_risk_summary(r, 4, NULL), FC_ERR_INVALID, "fcast_risk_summary: out is NULL");
    EXPECT_FAIL(fcast_var_historical(r, 4, 1.5, &var, &es), FC_ERR_INVALID,
                "fcast_var_historical: level = 1.5: must be a confidence level in (0, 1)");
    EXPECT_FAIL(fcast_var_normal(r, 4, 0.0, &var, &es), FC_ERR_INVALID, "fcast_var_normal: level = 0");
    EXPECT_FAIL(fcast_var_normal(r, 4, NAN, &var, &es), FC_ERR_INVALID, "level = nan");
    EXPECT_FAIL(fcast_var_historical(r, 0, 0.95, &var, &es), FC_ERR_INVALID, "n = 0: needs at least 1 return");
    EXPECT_FAIL(fcast_var_normal(r, 1, 0.95, &var, &es), FC_ERR_INVALID, "fcast_var_normal: n = 1");
    EXPECT_FAIL(fcast_var_historical(r, 4, 0.95, NULL, &es), FC_ERR_INVALID, "fcast_var_historical: var is NULL");
    EXPECT_FAIL(fcast_var_normal(r, 4, 0.95, &var, NULL), FC_ERR_INVALID, "fcast_var_normal: es is NULL");
}

static void test_portfolio(void) {
    size_t T = 0;
    char ids[4][16];
    double *R = eu_returns(&T, ids);
    if (!R) return;
    double mean[4], cov[16], wmin[4], wtgt[4];
    CHECK(fcast_portfolio_moments(R, T, 4, mean, cov) == FC_OK);
    for (size_t j = 0; j < 4; j++) {   /* numpy's mean and var(ddof=1), written out */
        double m = 0, v = 0;
        for (size_t t = 0; t < T; t++) m += R[t * 4 + j] / (double)T;
        for (size_t t = 0; t < T; t++) v += (R[t * 4 + j] - m) * (R[t * 4 + j] - m) / (double)(T - 1);
        CHECK_CLOSE(mean[j], m, 1e-18, 1e-12);
        CHECK_CLOSE(cov[j * 5], v, 0, 1e-12);
        for (size_t k = 0; k < 4; k++) CHECK(cov[j * 4 + k] == cov[k * 4 + j]);
    }
    /* rows: portfolio, asset, value; the target return first */
    FILE *f = fopen(FIXTURES "quant_portfolio_eu_stock.csv", "r");
    char line[256], *fl[3];
    double target = NAN;
    int compared = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (csv_split(line, fl, 3) < 3 || !strcmp(fl[0], "portfolio")) continue;
        if (!strcmp(fl[1], "_target_return")) {
            target = strtod(fl[2], NULL);
            CHECK(fcast_portfolio_min_variance(R, T, 4, wmin) == FC_OK);
            CHECK(fcast_portfolio_target_return(R, T, 4, target, wtgt) == FC_OK);
            continue;
        }
        size_t j = 0;
        while (j < 4 && strcmp(ids[j], fl[1])) j++;
        double want = strtod(fl[2], NULL), got = !strcmp(fl[0], "min_variance") ? wmin[j % 4] : wtgt[j % 4];
        CHECK_MSG(j < 4 && fabs(got - want) <= 1e-9 * fabs(want) + 1e-13, "%s %s: %.17g, numpy %.17g", fl[0], fl[1],
                  got, want);
        CHECK(fabs(wmin[(j + 1) % 4] - want) > 1e-3 || fabs(wtgt[(j + 1) % 4] - want) > 1e-3);   /* control */
        compared++;
    }
    if (f) fclose(f);
    CHECK(compared == 8 && !isnan(target));
    double sum_min = 0, sum_tgt = 0, earned = 0;
    for (size_t j = 0; j < 4; j++) sum_min += wmin[j], sum_tgt += wtgt[j], earned += wtgt[j] * mean[j];
    CHECK_CLOSE(sum_min, 1.0, 1e-13, 0);
    CHECK_CLOSE(sum_tgt, 1.0, 1e-13, 0);
    CHECK_CLOSE(earned, target, 1e-15, 1e-12);
    free(R);
}

/* A scratch file holding text; its path in path (cap >= 32). */
static int scratch_csv(char *path, const char *text) {
    snprintf(path, 40, "/tmp/fcast_api_returns_XXXXXX");
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

/* fcast_returns_read_csv: the bundled prices give eu_returns' matrix, bit
 * for bit; rows kept as given and series joined on ds; --returns as given. */
static void test_returns_reader(void) {
    size_t T = 0;
    char ids[4][16];
    double *R = eu_returns(&T, ids);
    fcast_returns *r = NULL;
    CHECK_MSG(fcast_returns_read_csv(FC_SOURCE_DIR "/data/eu_stock_markets.csv", 0, &r) == FC_OK, "%s",
              fc_last_error());
    CHECK(R && r && fcast_returns_n_periods(r) == T && T == 1859 && fcast_returns_n_assets(r) == 4);
    for (size_t j = 0; r && j < 4; j++) CHECK(!strcmp(fcast_returns_id(r, j), ids[j]));
    CHECK(fcast_returns_id(r, 4) == NULL);
    CHECK(R && r && !memcmp(fcast_returns_values(r), R, T * 4 * sizeof *R));
    CHECK(R && r && fcast_returns_values(r)[1] != R[0]);   /* control: another asset */
    fcast_returns_free(r);
    free(R);
    /* dates on trading days: the weekend is no gap; B lacks 2024-01-03, so the join keeps 3 of 4 days */
    char path[40];
    CHECK(scratch_csv(path, "unique_id,ds,y\nB,2024-01-05,33\nA,2024-01-02,10\nA,2024-01-03,11\nA,2024-01-04,12\n"
                            "A,2024-01-05,15\nB,2024-01-02,20\nB,2024-01-04,30\nA,2024-01-08,16\n"));
    CHECK_MSG(fcast_returns_read_csv(path, 0, &r) == FC_OK, "%s", fc_last_error());
    const double want[4] = {12.0 / 10 - 1, 30.0 / 20 - 1, 15.0 / 12 - 1, 33.0 / 30 - 1};
    CHECK(r && fcast_returns_n_periods(r) == 2 && fcast_returns_n_assets(r) == 2);
    CHECK(r && !strcmp(fcast_returns_id(r, 0), "A") && !strcmp(fcast_returns_id(r, 1), "B"));
    for (size_t k = 0; r && k < 4; k++) CHECK_CLOSE(fcast_returns_values(r)[k], want[k], 0, 1e-15);
    fcast_returns_free(r);
    /* as returns: y as given, at least 2 common ds */
    CHECK_MSG(fcast_returns_read_csv(path, 1, &r) == FC_OK, "%s", fc_last_error());
    CHECK(r && fcast_returns_n_periods(r) == 3 && fcast_returns_values(r)[0] == 10 && fcast_returns_values(r)[5] == 33);
    fcast_returns_free(r);
    remove(path);
    fcast_returns_free(NULL);
    CHECK(fcast_returns_n_periods(NULL) == 0 && fcast_returns_values(NULL) == NULL);
}

static void test_returns_misuse(void) {
    fcast_returns *r = (fcast_returns *)&r;
    EXPECT_FAIL(fcast_returns_read_csv(NULL, 0, &r), FC_ERR_INVALID, "fcast_returns_read_csv: path is NULL");
    CHECK(r == (fcast_returns *)&r);   /* out untouched when it cannot be the output */
    EXPECT_FAIL(fcast_returns_read_csv("x.csv", 0, NULL), FC_ERR_INVALID, "fcast_returns_read_csv: out is NULL");
    EXPECT_FAIL(fcast_returns_read_csv("x.csv", 2, &r), FC_ERR_INVALID, "are_returns = 2: must be 0");
    CHECK(r == NULL);
    EXPECT_FAIL(fcast_returns_read_csv("/tmp/fcast_api_no_such_file.csv", 0, &r), FC_ERR_IO,
                "fcast_api_no_such_file.csv");
    char path[40];
    CHECK(scratch_csv(path, "unique_id,ds,y\nA,1,10\nA,2,-1\nA,3,12\n"));
    EXPECT_FAIL(fcast_returns_read_csv(path, 0, &r), FC_ERR_INVALID,
                "series A at ds 2: returns need positive prices (are_returns = 1 reads a file of returns); got -1");
    CHECK(r == NULL);
    EXPECT_FAIL(fcast_returns_read_csv(path, 1, &r), FC_ERR_INVALID,
                "series A at ds 2: a return must be finite and > -1");
    remove(path);
    CHECK(scratch_csv(path, "unique_id,ds,y\nA,1,10\nA,2,11\n"));
    EXPECT_FAIL(fcast_returns_read_csv(path, 0, &r), FC_ERR_INVALID, "only 2 ds values are observed in all 1 series");
    remove(path);
    CHECK(scratch_csv(path, "unique_id,ds,y\nA,1,10\nA,2,abc\n"));
    EXPECT_FAIL(fcast_returns_read_csv(path, 0, &r), FC_ERR_PARSE, ":3: column 'y'");
    remove(path);
}

static void test_portfolio_misuse(void) {
    double R[12] = {0.01, 0.02, -0.01, 0.00, 0.01, 0.03, -0.02, 0.01, 0.02, 0.01, -0.01, 0.00}, w[3], m[3], c[9];
    CHECK(fcast_portfolio_min_variance(R, 4, 3, w) == FC_OK);
    EXPECT_FAIL(fcast_portfolio_min_variance(R, 1, 3, w), FC_ERR_INVALID,
                "fcast_portfolio_min_variance: n_periods = 1: a covariance needs at least 2 periods");
    EXPECT_FAIL(fcast_portfolio_moments(R, 4, 0, m, c), FC_ERR_INVALID, "fcast_portfolio_moments: n_assets = 0");
    EXPECT_FAIL(fcast_portfolio_moments(R, 2, 5000, m, c), FC_ERR_INVALID, "n_assets = 5000: expected 1 to 4096");
    EXPECT_FAIL(fcast_portfolio_moments(R, 4, 3, NULL, c), FC_ERR_INVALID, "mean is NULL");
    EXPECT_FAIL(fcast_portfolio_moments(NULL, 4, 3, m, c), FC_ERR_INVALID, "returns is NULL");
    EXPECT_FAIL(fcast_portfolio_min_variance(R, 4, 3, NULL), FC_ERR_INVALID, "weights is NULL");
    R[7] = NAN;
    EXPECT_FAIL(fcast_portfolio_target_return(R, 4, 3, 0.01, w), FC_ERR_INVALID,
                "fcast_portfolio_target_return: returns[7] (period 2, asset 1) = nan: must be finite");
    R[7] = 0.01;
    EXPECT_FAIL(fcast_portfolio_target_return(R, 4, 3, INFINITY, w), FC_ERR_INVALID, "target = inf: must be finite");
    EXPECT_FAIL(fcast_portfolio_target_return(R, 4, 1, 0.01, w), FC_ERR_INVALID,
                "n_assets = 1: a target return needs at least 2 assets");
    double dup[8] = {0.01, 0.01, -0.02, -0.02, 0.03, 0.03, 0.0, 0.0};   /* one asset twice */
    EXPECT_FAIL(fcast_portfolio_min_variance(dup, 4, 2, w), FC_ERR_INVALID,
                "fcast_portfolio_min_variance: portfolio: ");
    CHECK_CONTAINS(fc_last_error(), "singular");
}

/* ------------------------------------------------------------ indicator sets, tables, backtests */

/* fcast_indicator_set: the specs of indicators_params.csv in one set, one
 * pass over the DAX, each column named as TA-Lib's fixture names it and
 * equal to its values; canonical spec texts give the lookbacks. */
static void test_indicator_set_against_talib(void) {
    static const char specs[] = "sma:5,SMA:20,ema:10,wma:10,rsi:7,mom:3,roc:5,stddev:10:2,bbands:10:1.5,"
                                "bbands:20:2:1,macd:5:13:4,macd:26:12:9,zscore:5";
    static const char *const texts[] = {"sma:5", "sma:20", "ema:10", "wma:10", "rsi:7", "mom:3", "roc:5",
                                        "stddev:10:2", "bbands:10:1.5", "bbands:20:2:1", "macd:5:13:4",
                                        "macd:26:12:9", "zscore:5"};
    static const size_t lookbacks[] = {4, 19, 9, 9, 7, 3, 5, 9, 9, 19, 15, 33, 4};
    fcast_indicator_set *set = NULL;
    CHECK_MSG(fcast_indicator_set_parse(specs, &set) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_indicator_set_size(set) == COUNT(texts) && fcast_indicator_set_n_columns(set) == 21);
    for (size_t j = 0; j < COUNT(texts); j++) {
        size_t lb = 0;
        CHECK_MSG(!strcmp(fcast_indicator_set_spec(set, j), texts[j]), "%s", fcast_indicator_set_spec(set, j));
        CHECK(fcast_indicator_lookback(fcast_indicator_set_spec(set, j), &lb) == FC_OK && lb == lookbacks[j]);
    }
    CHECK(fcast_indicator_set_spec(set, COUNT(texts)) == NULL && fcast_indicator_set_column(set, 21) == NULL);
    table tb;
    CHECK(read_table(FIXTURES "quant/indicators_params.csv", &tb));
    int y = column(&tb, "y");
    double *outs[21];
    for (size_t c = 0; c < 21; c++) outs[c] = malloc(tb.n_rows * sizeof(double));
    const fcast_indicator_options o = {FCAST_NAN_POISON, 2, NULL};
    CHECK_MSG(fcast_indicator_set_compute(set, &o, tb.n_series, tb.indptr, tb.cols[y], outs, 21, NULL) == FC_OK,
              "%s", fc_last_error());
    tally t = {0}, control = {.quiet = 1};
    for (size_t c = 0; c < 21; c++) {
        int col = column(&tb, fcast_indicator_set_column(set, c));
        CHECK_MSG(col >= 0, "the fixture lacks column %s", fcast_indicator_set_column(set, c));
        if (col >= 0) compare(fcast_indicator_set_column(set, c), outs[c], tb.cols[col], 0, tb.n_rows, &t);
    }
    compare("sma_5", outs[1], tb.cols[column(&tb, "sma_5")], 0, tb.n_rows, &control);   /* control: sma_20 */
    CHECK(t.compared == 21 * (long)tb.n_rows && t.differ == 0 && control.differ > 0);
    for (size_t c = 0; c < 21; c++) free(outs[c]);
    free_table(&tb);
    fcast_indicator_set_free(set);
}

/* Both NaN policies on 1 2 3 _ 5 6 7 8 (and a series of one point), SMA(2)
 * worked by hand, with the too-short flags. */
static void test_indicator_set_policies(void) {
    const double x[9] = {1, 2, 3, NAN, 5, 6, 7, 8, 4};
    const int64_t indptr[3] = {0, 8, 9};
    const double poison[8] = {NAN, 1.5, 2.5, NAN, NAN, NAN, NAN, NAN}, restart[8] = {NAN, 1.5, 2.5, NAN, NAN, 5.5,
                                                                                    6.5, 7.5};
    fcast_indicator_set *set = NULL;
    CHECK(fcast_indicator_set_parse("sma:2,sma:8", &set) == FC_OK);
    double a[9], b[9];
    uint8_t short_[4];
    fcast_indicator_options o = {FCAST_NAN_RESTART, 0, NULL};
    for (int pol = 0; pol < 2; pol++) {
        o.nan = pol ? FCAST_NAN_RESTART : FCAST_NAN_POISON;
        CHECK(fcast_indicator_set_compute(set, pol ? &o : NULL, 2, indptr, x, (double *const[]){a, b}, 2, short_)
              == FC_OK);
        for (int i = 0; i < 8; i++) CHECK_MSG(close_enough(a[i], (pol ? restart : poison)[i]), "%d: %g", i, a[i]);
        CHECK(isnan(a[8]) && short_[0] == 0 && short_[1] == 1);   /* sma:2: B too short */
        CHECK(short_[2] == pol && short_[3] == 1);   /* sma:8: A's runs of 3 and 4 points are too short */
    }
    fcast_indicator_set_free(set);
}

static void test_indicator_set_misuse(void) {
    fcast_indicator_set *set = (fcast_indicator_set *)&set;
    EXPECT_FAIL(fcast_indicator_set_parse(NULL, &set), FC_ERR_INVALID, "fcast_indicator_set_parse: specs is NULL");
    EXPECT_FAIL(fcast_indicator_set_parse("sma:0", &set), FC_ERR_INVALID,
                "fcast_indicator_set_parse: specs 'sma:0': period must be >= 1");
    CHECK(set == NULL);
    EXPECT_FAIL(fcast_indicator_set_parse("sma:20,sma:20", &set), FC_ERR_INVALID, "specs 'sma:20': given twice");
    EXPECT_FAIL(fcast_indicator_set_parse("", &set), FC_ERR_PARSE, "fcast_indicator_set_parse: specs: empty");
    char many[1024] = "sma:1";
    for (int i = 2; i <= 65; i++) snprintf(many + strlen(many), sizeof many - strlen(many), ",sma:%d", i);
    EXPECT_FAIL(fcast_indicator_set_parse(many, &set), FC_ERR_INVALID, "specs: 65 indicators, at most 64");
    *strrchr(many, ',') = '\0';
    CHECK(fcast_indicator_set_parse(many, &set) == FC_OK && fcast_indicator_set_size(set) == 64);
    fcast_indicator_set_free(set);
    CHECK(fcast_indicator_set_parse("bbands,rsi", &set) == FC_OK);
    double x[30], a[30], b[30], c[30], d[30];
    for (int i = 0; i < 30; i++) x[i] = 10 + i % 4;
    const int64_t indptr[2] = {0, 30}, down[2] = {0, -1};
    double *const four[4] = {a, b, c, d};
    EXPECT_FAIL(fcast_indicator_set_compute(set, NULL, 1, indptr, x, four, 3, NULL), FC_ERR_INVALID,
                "fcast_indicator_set_compute: n_outs = 3, but the set has 4 columns");
    EXPECT_FAIL(fcast_indicator_set_compute(set, NULL, 1, indptr, x, (double *const[]){a, b, NULL, d}, 4, NULL),
                FC_ERR_INVALID, "outs[2] is NULL");
    EXPECT_FAIL(fcast_indicator_set_compute(set, NULL, 1, down, x, four, 4, NULL), FC_ERR_INVALID, "indptr[1] = -1");
    EXPECT_FAIL(fcast_indicator_set_compute(set, NULL, 1, indptr, NULL, four, 4, NULL), FC_ERR_INVALID,
                "values is NULL");
    EXPECT_FAIL(fcast_indicator_set_compute(set, &(fcast_indicator_options){(fcast_nan_policy)7, 0, NULL}, 1, indptr,
                                            x, four, 4, NULL), FC_ERR_INVALID, "o->nan = 7");
    EXPECT_FAIL(fcast_indicator_set_compute(set, &(fcast_indicator_options){FCAST_NAN_POISON, -2, NULL}, 1, indptr,
                                            x, four, 4, NULL), FC_ERR_INVALID, "o->threads = -2");
    fcast_device *dev = NULL;
    CHECK(fcast_device_open("cpu", &dev) == FC_OK);
    CHECK(fcast_indicator_set_compute(set, &(fcast_indicator_options){FCAST_NAN_POISON, 1, dev}, 1, indptr, x, four, 4,
                                      NULL) == FC_OK);
    CHECK(isnan(a[18]) && !isnan(a[19]) && isnan(d[13]) && !isnan(d[14]));   /* lookbacks 19 and 14 */
    fcast_device_free(dev);
    fcast_indicator_set_free(set);
    fcast_indicator_set_free(NULL);
    CHECK(fcast_indicator_set_size(NULL) == 0 && fcast_indicator_set_column(NULL, 0) == NULL);
}

/* fcast_table_read_csv: the bundled prices as the test's own reader sees
 * them (series in sorted id order); rows as given, an empty y NaN, dates
 * and datetimes written back. */
static void test_table_reader(void) {
    table tb;
    CHECK(read_table(FC_SOURCE_DIR "/data/eu_stock_markets.csv", &tb));
    int y = column(&tb, "y"), ds = column(&tb, "ds");
    fcast_table *t = NULL;
    CHECK_MSG(fcast_table_read_csv(FC_SOURCE_DIR "/data/eu_stock_markets.csv", &t) == FC_OK, "%s", fc_last_error());
    static const char *const sorted[4] = {"CAC", "DAX", "FTSE", "SMI"};
    CHECK(fcast_table_n_series(t) == 4 && tb.n_series == 4 && fcast_table_id(t, 4) == NULL);
    for (size_t s = 0; t && s < 4; s++) {
        size_t u = 0;
        while (u < 4 && strcmp(tb.ids[u], sorted[s])) u++;
        CHECK(u < 4 && !strcmp(fcast_table_id(t, s), sorted[s]));
        if (u == 4) continue;
        const int64_t *p = fcast_table_indptr(t);
        CHECK(p[s + 1] - p[s] == tb.indptr[u + 1] - tb.indptr[u]);
        CHECK(!memcmp(fcast_table_values(t) + p[s], tb.cols[y] + tb.indptr[u],
                      (size_t)(p[s + 1] - p[s]) * sizeof(double)));
        char text[64], want[32];
        snprintf(want, sizeof want, "%.0f", tb.cols[ds][tb.indptr[u + 1] - 1]);
        CHECK(fcast_table_ds_text(t, (size_t)p[s + 1] - 1, text, sizeof text) == FC_OK && !strcmp(text, want));
    }
    fcast_table_free(t);
    free_table(&tb);
    char path[40];
    CHECK(scratch_csv(path, "unique_id,ds,y,x\nB,2024-01-05,33,1\nA,2024-01-02,10,2\nA,2024-01-08,,3\n"
                            "A,2024-01-05,15,4\n"));
    CHECK_MSG(fcast_table_read_csv(path, &t) == FC_OK, "%s", fc_last_error());
    const int64_t *p = t ? fcast_table_indptr(t) : NULL;
    const double *v = t ? fcast_table_values(t) : NULL;
    CHECK(p && p[0] == 0 && p[1] == 3 && p[2] == 4 && v[0] == 10 && v[1] == 15 && isnan(v[2]) && v[3] == 33);
    char text[48];
    CHECK(fcast_table_ds_text(t, 2, text, sizeof text) == FC_OK && !strcmp(text, "2024-01-08"));
    EXPECT_FAIL(fcast_table_ds_text(t, 4, text, sizeof text), FC_ERR_INVALID, "row = 4: the table has 4 rows");
    EXPECT_FAIL(fcast_table_ds_text(t, 0, text, 16), FC_ERR_INVALID, "fcast_table_ds_text: cap = 16");
    fcast_table_free(t);
    remove(path);
    CHECK(scratch_csv(path, "unique_id,ds,y\nA,1,10\nA,2,abc\n"));
    t = (fcast_table *)&t;
    EXPECT_FAIL(fcast_table_read_csv(path, &t), FC_ERR_PARSE, ":3: column 'y'");
    CHECK(t == NULL);
    remove(path);
    EXPECT_FAIL(fcast_table_read_csv(NULL, &t), FC_ERR_INVALID, "fcast_table_read_csv: path is NULL");
    fcast_table_free(NULL);
    CHECK(fcast_table_n_series(NULL) == 0 && fcast_table_values(NULL) == NULL);
}

/* The backtester's 10 closes worked by hand (tests/test_backtest.c):
 * sma-cross 2/3 buys at 11 and sells at 12; long-short then shorts from 12
 * to 10. A NaN close is skipped; the grid holds every valid combination. */
static void test_backtest_by_hand(void) {
    const double close[11] = {10, 10, 11, NAN, 12, 13, 14, 13, 12, 11, 10}, c = 5e-4;
    const int64_t indptr[2] = {0, 11};
    fcast_rule rule;
    CHECK(fcast_rule_parse("sma-cross", &rule) == FC_OK && rule == FCAST_RULE_SMA_CROSS);
    fcast_grid *g = NULL;
    CHECK_MSG(fcast_grid_new(rule, (const char *const[]){"2", "3"}, 2, &g) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_grid_size(g) == 1 && fcast_grid_params(g, 0)[0] == 2 && fcast_grid_params(g, 0)[1] == 3);
    fcast_backtest_metrics m[1];
    CHECK(fcast_backtest(g, &(fcast_backtest_options){5, 0}, 1, indptr, close, NULL, m) == FC_OK);
    CHECK_CLOSE(m[0].total_return, (1 - c) * 12.0 / 11.0 * (1 - c) - 1, 1e-15, 1e-12);
    CHECK(m[0].trades == 1 && m[0].closed_trades == 1 && m[0].hit_rate == 1.0);
    CHECK(fcast_backtest(g, &(fcast_backtest_options){5, 1}, 1, indptr, close, NULL, m) == FC_OK);
    CHECK_CLOSE(m[0].total_return, (1 - c) * 12.0 / 11 * (1 - 2 * c) * (1 + 1.0 / 12) * (1 + 1.0 / 11) - 1, 1e-15,
                1e-12);
    CHECK(m[0].trades == 2 && m[0].closed_trades == 1);
    fcast_grid_free(g);
    /* defaults: fast 5:50:5 x slow 20:200:10, 16 with fast >= slow skipped */
    CHECK(fcast_grid_new(rule, NULL, 0, &g) == FC_OK && fcast_grid_size(g) == 174 && fcast_grid_skipped(g) == 16);
    for (size_t k = 0; k < fcast_grid_size(g); k++) CHECK(fcast_grid_params(g, k)[0] < fcast_grid_params(g, k)[1]);
    CHECK(fcast_grid_params(g, 174) == NULL && fcast_grid_rule(g) == FCAST_RULE_SMA_CROSS);
    fcast_grid_free(g);
    CHECK(fcast_rule_parse("rsi", &rule) == FC_OK && fcast_rule_n_params(rule) == 3);
    CHECK(!strcmp(fcast_rule_param_name(rule, 2), "upper") && fcast_rule_param_name(rule, 3) == NULL);
    CHECK(fcast_grid_new(rule, (const char *const[]){NULL, "25:35:5", "65:75:5"}, 3, &g) == FC_OK);
    CHECK(fcast_grid_size(g) == 9 && fcast_grid_params(g, 8)[0] == 14 && fcast_grid_params(g, 8)[2] == 75);
    fcast_grid_free(g);
    CHECK(!strcmp(fcast_rule_name(FCAST_RULE_BBANDS), "bbands") && fcast_rule_name((fcast_rule)9) == NULL);
}

/* The grid over the bundled prices, cell by cell, equals each combination
 * run alone on each series read through fcast_table. */
static void test_backtest_grid_cells(void) {
    fcast_table *t = NULL;
    CHECK(fcast_table_read_csv(FC_SOURCE_DIR "/data/eu_stock_markets.csv", &t) == FC_OK);
    fcast_grid *g = NULL, *one = NULL;
    CHECK(fcast_grid_new(FCAST_RULE_BBANDS, (const char *const[]){"10:30:10", "1.5:2.5:0.5"}, 2, &g) == FC_OK);
    const size_t n = fcast_grid_size(g), S = fcast_table_n_series(t);
    fcast_backtest_metrics *all = malloc(n * S * sizeof *all), single;
    const fcast_backtest_options o = {2.5, 1};
    CHECK(n == 9 && S == 4);
    CHECK(fcast_backtest(g, &o, S, fcast_table_indptr(t), fcast_table_values(t), NULL, all) == FC_OK);
    const int64_t *p = fcast_table_indptr(t);
    for (size_t k = 0; k < n; k++) {
        char r0[32], r1[32];
        snprintf(r0, sizeof r0, "%.17g", fcast_grid_params(g, k)[0]);
        snprintf(r1, sizeof r1, "%.17g", fcast_grid_params(g, k)[1]);
        CHECK(fcast_grid_new(FCAST_RULE_BBANDS, (const char *const[]){r0, r1}, 2, &one) == FC_OK);
        for (size_t s = 0; s < S; s++) {
            const int64_t ip[2] = {0, p[s + 1] - p[s]};
            CHECK(fcast_backtest(one, &o, 1, ip, fcast_table_values(t) + p[s], NULL, &single) == FC_OK);
            CHECK(!memcmp(&single, &all[k * S + s], sizeof single));
            CHECK(k + 1 == n || memcmp(&single, &all[(k + 1) * S + s], sizeof single));   /* control */
        }
        fcast_grid_free(one);
    }
    free(all);
    fcast_grid_free(g);
    fcast_table_free(t);
}

static void test_backtest_misuse(void) {
    fcast_rule rule;
    fcast_grid *g = NULL;
    EXPECT_FAIL(fcast_rule_parse("macd", &rule), FC_ERR_INVALID, "rule: unknown rule 'macd' (expected sma-cross");
    EXPECT_FAIL(fcast_rule_parse(NULL, &rule), FC_ERR_INVALID, "fcast_rule_parse: name is NULL");
    EXPECT_FAIL(fcast_grid_new(FCAST_RULE_SMA_CROSS, (const char *const[]){"5:x"}, 1, &g), FC_ERR_PARSE,
                "fast: malformed range '5:x'");
    EXPECT_FAIL(fcast_grid_new(FCAST_RULE_SMA_CROSS, (const char *const[]){"50", "20"}, 2, &g), FC_ERR_INVALID,
                "the parameter grid has no valid combination (1 skipped: fast >= slow)");
    EXPECT_FAIL(fcast_grid_new(FCAST_RULE_RSI, (const char *const[]){"1"}, 1, &g), FC_ERR_INVALID,
                "period: a period must be a whole number from 2 to 100000, got 1");
    EXPECT_FAIL(fcast_grid_new(FCAST_RULE_BBANDS, (const char *const[]){NULL, "0"}, 2, &g), FC_ERR_INVALID,
                "k: the band width must be > 0");
    EXPECT_FAIL(fcast_grid_new(FCAST_RULE_BBANDS, NULL, 3, &g), FC_ERR_INVALID, "n_ranges = 3, but rule bbands has 2");
    EXPECT_FAIL(fcast_grid_new((fcast_rule)5, NULL, 0, &g), FC_ERR_INVALID, "fcast_grid_new: rule = 5 is not a rule");
    CHECK(g == NULL);
    CHECK(fcast_grid_new(FCAST_RULE_SMA_CROSS, (const char *const[]){"2", "5"}, 2, &g) == FC_OK);
    const double close[12] = {10, 11, 12, 11, 10, 11, 10, 0, 12, 13, 12, 11}, few[3] = {10, 11, 12};
    const int64_t two[3] = {0, 6, 12}, ip3[2] = {0, 3};
    fcast_backtest_metrics m[2];
    const fcast_backtest_options o = {0, 0};
    EXPECT_FAIL(fcast_backtest(g, &o, 1, ip3, few, (const char *const[]){"AB"}, m), FC_ERR_INVALID,
                "slow: period 5 is longer than series AB (3 points)");
    EXPECT_FAIL(fcast_backtest(g, &o, 2, two, close, (const char *const[]){"A", "B"}, m), FC_ERR_INVALID,
                "series B, point 2: prices must be positive, got 0");
    EXPECT_FAIL(fcast_backtest(g, &(fcast_backtest_options){10000, 0}, 1, ip3, few, NULL, m), FC_ERR_INVALID,
                "fcast_backtest: o->cost_bps = 10000: must be in [0, 10000)");
    EXPECT_FAIL(fcast_backtest(g, &(fcast_backtest_options){0, 2}, 1, ip3, few, NULL, m), FC_ERR_INVALID,
                "o->allow_short = 2");
    EXPECT_FAIL(fcast_backtest(g, &o, 1, NULL, few, NULL, m), FC_ERR_INVALID, "fcast_backtest: indptr is NULL");
    EXPECT_FAIL(fcast_backtest(NULL, &o, 1, ip3, few, NULL, m), FC_ERR_INVALID, "fcast_backtest: g is NULL");
    fcast_grid_free(g);
    fcast_grid_free(NULL);
    CHECK(fcast_grid_size(NULL) == 0 && fcast_grid_params(NULL, 0) == NULL);
}

int main(void) {
    test_indicators_against_talib();
    test_lookbacks();
    test_short_series_and_nans();
    test_indicator_misuse();
    test_black_scholes();
    test_black_scholes_grid();
    test_geometric_asian();
    test_monte_carlo();
    test_monte_carlo_detail();
    test_device_misuse();
    test_option_misuse();
    test_risk();
    test_risk_misuse();
    test_portfolio();
    test_portfolio_misuse();
    test_returns_reader();
    test_returns_misuse();
    test_indicator_set_against_talib();
    test_indicator_set_policies();
    test_indicator_set_misuse();
    test_table_reader();
    test_backtest_by_hand();
    test_backtest_grid_cells();
    test_backtest_misuse();
    return CHECK_DONE();
}
