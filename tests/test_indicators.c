/* Indicators against TA-Lib: the fixtures in tests/fixtures/quant/indicators_*
 * were computed by the real TA-Lib (python/make_quant_fixtures.py) on the
 * bundled stock indices. Every output must match within 1e-9 relative (plus
 * 1e-12 absolute for values crossing zero) with NaNs at the same places; the
 * one deliberate difference (RSI after a NaN: TA-Lib 0, fcast NaN) is checked
 * explicitly. Series are replicated so that both the SIMD lane path (groups of
 * 8) and the scalar path compute fixture rows. Also: TA-Lib's lookbacks and
 * defaults, the RESTART policy against hand-computed values, the lane path
 * against the scalar path on data that forces TA-Lib's re-anchoring, short
 * series, masks, and the spec parser's errors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "quant/indicators.h"
#include "quant_fixture_csv.h"

#define FIXTURES FC_SOURCE_DIR "/tests/fixtures/quant/"
#define MAX_COLS 64
#define REL_TOL 1e-9
#define ABS_TOL 1e-12

/* ------------------------------------------------------------ fixture CSV */

typedef struct {
    size_t n_rows, n_cols;       /* value columns after unique_id, ds */
    char *names[MAX_COLS];       /* names[0] = "y" */
    double *cols[MAX_COLS];      /* (n_rows) each, NaN for empty */
    char (*ids)[16];             /* (n_rows) */
    int *used;                   /* (n_cols) matched by a spec */
} fixture;

static int read_fixture(const char *name, fixture *fx) {
    char path[512], line[8192];
    snprintf(path, sizeof path, FIXTURES "%s", name);
    FILE *f = fopen(path, "r");
    if (!f) return fprintf(stderr, "cannot open %s\n", path), 0;
    memset(fx, 0, sizeof *fx);
    size_t cap = 0;
    char *fields[MAX_COLS + 2];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        size_t n = csv_split(line, fields, MAX_COLS + 2);
        if (!fx->n_cols) {
            fx->n_cols = n - 2;
            for (size_t c = 0; c < fx->n_cols; c++) fx->names[c] = strdup(fields[c + 2]);
            continue;
        }
        if (fx->n_rows == cap) {
            cap = cap ? 2 * cap : 1024;
            fx->ids = realloc(fx->ids, cap * sizeof *fx->ids);
            for (size_t c = 0; c < fx->n_cols; c++) fx->cols[c] = realloc(fx->cols[c], cap * sizeof(double));
        }
        snprintf(fx->ids[fx->n_rows], sizeof fx->ids[0], "%s", fields[0]);
        for (size_t c = 0; c < fx->n_cols; c++)
            fx->cols[c][fx->n_rows] = c + 2 < n && fields[c + 2][0] ? strtod(fields[c + 2], NULL) : NAN;
        fx->n_rows++;
    }
    fclose(f);
    fx->used = calloc(fx->n_cols, sizeof *fx->used);
    fx->used[0] = 1;
    return fx->n_rows > 0;
}

static void free_fixture(fixture *fx) {
    for (size_t c = 0; c < fx->n_cols; c++) free(fx->names[c]), free(fx->cols[c]);
    free(fx->ids);
    free(fx->used);
}

static int find_col(fixture *fx, const char *name) {
    for (size_t c = 0; c < fx->n_cols; c++)
        if (!strcmp(fx->names[c], name)) return fx->used[c] = 1, (int)c;
    return -1;
}

/* ------------------------------------------- the fixture's series, copied */

typedef struct {
    size_t n_series, n_rows, base_rows, base_series;
    size_t *offsets;   /* (n_series + 1) */
    size_t *src_row;   /* (n_rows) fixture row of each row */
    double *y;
} batch;

/* The fixture's series in file order, the whole set repeated `copies` times. */
static void make_batch(const fixture *fx, int copies, batch *b) {
    size_t starts[64], n = 0;
    for (size_t r = 0; r < fx->n_rows; r++)
        if (r == 0 || strcmp(fx->ids[r], fx->ids[r - 1])) starts[n++] = r;
    starts[n] = fx->n_rows;
    b->base_series = n;
    b->base_rows = fx->n_rows;
    b->n_series = n * (size_t)copies;
    b->n_rows = fx->n_rows * (size_t)copies;
    b->offsets = malloc((b->n_series + 1) * sizeof *b->offsets);
    b->src_row = malloc(b->n_rows * sizeof *b->src_row);
    b->y = malloc(b->n_rows * sizeof *b->y);
    size_t row = 0, s = 0;
    for (int c = 0; c < copies; c++)
        for (size_t i = 0; i < n; i++) {
            b->offsets[s++] = row;
            for (size_t r = starts[i]; r < starts[i + 1]; r++, row++) {
                b->src_row[row] = r;
                b->y[row] = fx->cols[0][r];
            }
        }
    b->offsets[s] = row;
}

static void free_batch(batch *b) {
    free(b->offsets);
    free(b->src_row);
    free(b->y);
}

/* ------------------------------------------------------------ comparison */

static int close_enough(double a, double b) {
    if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
    return fabs(a - b) <= REL_TOL * fabs(b) + ABS_TOL;
}

/* Row r of the batch is at or after a NaN inside its series (not a leading one). */
static int after_interior_nan(const batch *b, size_t s, size_t r) {
    size_t i = b->offsets[s];
    while (i < r && isnan(b->y[i])) i++;
    for (; i <= r; i++)
        if (isnan(b->y[i])) return 1;
    return 0;
}

typedef struct {
    long compared, bit_equal, rsi_nan_for_zero;
} tally;

static void compare_output(fixture *fx, const batch *b, const fc_ind_spec *spec, int k, const double *out,
                           tally *t) {
    char col[96];
    fc_ind_column_name(spec, k, col, sizeof col);
    int c = find_col(fx, col);
    CHECK_MSG(c >= 0, "fixture lacks column %s", col);
    if (c < 0) return;
    int bad = 0;
    for (size_t s = 0; s < b->n_series; s++)
        for (size_t r = b->offsets[s]; r < b->offsets[s + 1]; r++) {
            double want = fx->cols[c][b->src_row[r]], got = out[r];
            t->compared++;
            if (spec->kind == FC_IND_RSI && want == 0.0 && isnan(got) && after_interior_nan(b, s, r)) {
                t->rsi_nan_for_zero++; /* documented: TA-Lib's 0 after a NaN is NaN in fcast */
                continue;
            }
            t->bit_equal += got == want || (isnan(got) && isnan(want));
            if (!close_enough(got, want) && bad++ < 3)
                CHECK_MSG(0, "%s row %zu (%s ds#%zu): fcast %.17g, TA-Lib %.17g", col, r, fx->ids[b->src_row[r]],
                          b->src_row[r], got, want);
        }
    CHECK_MSG(bad == 0, "%s: %d values differ", col, bad);
}

/* Leading NaNs of a clean series = TA-Lib's lookback. */
static void check_leading_nans(const batch *b, const fc_ind_spec *spec, const double *out) {
    int lb = fc_ind_lookback(spec);
    for (size_t s = 0; s < b->n_series; s++) {
        size_t first = b->offsets[s], n = b->offsets[s + 1] - first, lead = 0;
        while (lead < n && isnan(out[first + lead])) lead++;
        CHECK_MSG(lead == (size_t)lb || (spec->kind == FC_IND_ZSCORE && lead >= (size_t)lb),
                  "%s: %zu leading NaNs, lookback %d", spec->label, lead, lb);
    }
}

static void check_fixture(const char *file, const char *const *specs, size_t n_specs, int copies,
                          int clean, long *rsi_nan_for_zero) {
    fixture fx;
    CHECK_MSG(read_fixture(file, &fx), "%s unreadable", file);
    if (!fx.n_rows) return;
    batch b;
    make_batch(&fx, copies, &b);
    tally t = {0, 0, 0};
    for (size_t j = 0; j < n_specs; j++) {
        fc_ind_spec spec;
        CHECK_MSG(fc_ind_parse(specs[j], &spec) == FC_OK, "%s: %s", specs[j], fc_last_error());
        double *out[FC_IND_MAX_OUTPUTS];
        for (int k = 0; k < fc_ind_n_outputs(&spec); k++) out[k] = malloc(b.n_rows * sizeof(double));
        CHECK(fc_ind_compute(&spec, b.y, NULL, b.offsets, b.n_series, NULL, out, NULL) == FC_OK);
        for (int k = 0; k < fc_ind_n_outputs(&spec); k++) {
            compare_output(&fx, &b, &spec, k, out[k], &t);
            if (clean) check_leading_nans(&b, &spec, out[k]);
            free(out[k]);
        }
    }
    for (size_t c = 0; c < fx.n_cols; c++) CHECK_MSG(fx.used[c], "%s: column %s not tested", file, fx.names[c]);
    printf("%s: %ld values compared, %ld bit-identical to TA-Lib, %ld RSI NaN-for-0\n", file, t.compared,
           t.bit_equal, t.rsi_nan_for_zero);
    if (rsi_nan_for_zero) *rsi_nan_for_zero += t.rsi_nan_for_zero;
    free_batch(&b);
    free_fixture(&fx);
}

static const char *const DEFAULT_SPECS[] = {"sma", "ema", "wma", "rsi", "mom", "roc", "stddev", "bbands", "macd", "zscore"};
static const char *const PARAM_SPECS[] = {"sma:5", "sma:20", "sma:1", "ema:10", "ema:20", "ema:1", "wma:10", "wma:1",
                                          "rsi:7", "rsi:2", "mom:3", "roc:5", "stddev:10:2", "stddev:20",
                                          "bbands:10:1.5", "bbands:20:2", "bbands:20:2:1", "macd:5:13:4",
                                          "macd:12:26:9", "macd:26:12:9", "zscore:5", "zscore:20"};
static const char *const NAN_SPECS[] = {"sma", "ema", "wma", "rsi", "mom", "roc", "stddev", "bbands", "macd",
                                        "zscore", "rsi:7", "sma:20", "bbands:20:2", "stddev:20"};
static const char *const FLAT_SPECS[] = {"sma", "ema", "wma", "rsi", "mom", "roc", "stddev", "bbands", "macd",
                                         "zscore", "zscore:5"};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_fixtures(void) {
    check_fixture("indicators_eu.csv", DEFAULT_SPECS, COUNT(DEFAULT_SPECS), 3, 1, NULL);
    check_fixture("indicators_params.csv", PARAM_SPECS, COUNT(PARAM_SPECS), 9, 1, NULL);
    long rsi_dev = 0;
    check_fixture("indicators_nan.csv", NAN_SPECS, COUNT(NAN_SPECS), 4, 0, &rsi_dev);
    CHECK_MSG(rsi_dev > 0, "the NaN fixture should exercise TA-Lib's RSI-0-after-NaN");
    check_fixture("indicators_flat.csv", FLAT_SPECS, COUNT(FLAT_SPECS), 9, 0, NULL);
}

/* ------------------------------------------------------------ lookbacks */

static void test_lookbacks(void) {
    FILE *f = fopen(FIXTURES "indicators_lookback.csv", "r");
    CHECK(f != NULL);
    if (!f) return;
    char line[256], *fl[6] = {0};
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || !strncmp(line, "spec,", 5)) continue;
        size_t nf = csv_split(line, fl, 6);
        fc_ind_spec s;
        if (nf < 3) {
            CHECK_MSG(0, "short lookback line: %s", line);
            continue;
        }
        CHECK_MSG(fc_ind_parse(fl[0], &s) == FC_OK, "%s: %s", fl[0], fc_last_error());
        CHECK_MSG(fc_ind_lookback(&s) == atoi(fl[1]), "%s: lookback %d, TA-Lib %s", fl[0], fc_ind_lookback(&s), fl[1]);
        /* TA-Lib's resolved parameters: fcast's defaults must be TA-Lib's. */
        double want[3] = {atof(fl[2]), nf > 3 && fl[3][0] ? atof(fl[3]) : NAN, nf > 4 && fl[4][0] ? atof(fl[4]) : NAN};
        double got[3] = {s.period, s.kind == FC_IND_MACD ? s.slow : s.dev_up,
                         s.kind == FC_IND_MACD ? s.signal : s.dev_dn};
        for (int i = 0; i < 3; i++)
            if (!isnan(want[i])) CHECK_MSG(got[i] == want[i], "%s: parameter %d is %g, TA-Lib %g", fl[0], i + 1, got[i], want[i]);
        n++;
    }
    fclose(f);
    CHECK(n >= 30);
}

/* ---------------------------------------------- NaN policies by hand */

static void run1(const char *text, const double *x, size_t n, fc_nan_policy nan, double *out) {
    fc_ind_spec s;
    CHECK(fc_ind_parse(text, &s) == FC_OK);
    size_t off[2] = {0, n};
    fc_ind_options o = fc_ind_options_default();
    o.nan = nan;
    double *outs[1] = {out};
    CHECK(fc_ind_compute(&s, x, NULL, off, 1, &o, outs, NULL) == FC_OK);
}

static void expect(const char *what, const double *got, const double *want, size_t n) {
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(isnan(want[i]) ? isnan(got[i]) : fabs(got[i] - want[i]) <= 1e-12 * fabs(want[i]) + 1e-12,
                  "%s[%zu] = %.17g, want %.17g", what, i, got[i], want[i]);
}

static void test_restart_by_hand(void) {
    const double N = NAN;
    double x[12] = {N, 1, 2, 3, N, 5, 6, 7, 8, N, 10, 11}, out[12];
    /* SMA(2): the leading NaN is skipped under both policies. */
    run1("sma:2", x, 12, FC_NAN_RESTART, out);
    expect("sma:2 restart", out, (double[]){N, N, 1.5, 2.5, N, N, 5.5, 6.5, 7.5, N, N, 10.5}, 12);
    run1("sma:2", x, 12, FC_NAN_POISON, out);
    expect("sma:2 poison", out, (double[]){N, N, 1.5, 2.5, N, N, N, N, N, N, N, N}, 12);
    /* MOM(1): a NaN spoils the two differences it enters, in both policies;
     * RESTART also drops the first difference after the gap. */
    run1("mom:1", x, 12, FC_NAN_POISON, out);
    expect("mom:1 poison", out, (double[]){N, N, 1, 1, N, N, 1, 1, 1, N, N, 1}, 12);
    run1("mom:1", x, 12, FC_NAN_RESTART, out);
    expect("mom:1 restart", out, (double[]){N, N, 1, 1, N, N, 1, 1, 1, N, N, 1}, 12);
    /* EMA(2) restarts with the mean of the first two values after the gap:
     * 5.5, then (7 - 5.5) * 2/3 + 5.5 = 6.5, then 7.5. */
    run1("ema:2", x, 12, FC_NAN_RESTART, out);
    expect("ema:2 restart", out, (double[]){N, N, 1.5, 2.5, N, N, 5.5, 6.5, 7.5, N, N, 10.5}, 12);
    /* RSI(2) on 10, 11, 9, 12: gains 1, 0; losses 0, 2 -> 0.5 / 1 -> 33.33;
     * then +3: gain (0.5 + 3) / 2 = 1.75, loss 1 / 2 = 0.5 -> 77.78. */
    double r[9] = {4, 5, N, 10, 11, 9, 12, 12, 12};
    run1("rsi:2", r, 9, FC_NAN_RESTART, out);
    expect("rsi:2 restart", out, (double[]){N, N, N, N, N, 100.0 * 0.5 / 1.5, 100.0 * 1.75 / 2.25,
                                            100.0 * 0.875 / 1.125, 100.0 * 0.4375 / 0.5625}, 9);
    /* Under POISON, TA-Lib's RSI turns the NaN into 0 forever; fcast: NaN. */
    run1("rsi:2", r, 9, FC_NAN_POISON, out);
    for (int i = 0; i < 9; i++) CHECK_MSG(isnan(out[i]), "rsi:2 poison[%d] = %g", i, out[i]);
}

/* A masked point is a NaN, whatever y holds there. */
static void test_mask(void) {
    double y[8] = {1, 2, 3, 99, 5, 6, 7, 8}, yn[8] = {1, 2, 3, NAN, 5, 6, 7, 8}, a[8], b[8];
    uint8_t mask[8] = {1, 1, 1, 0, 1, 1, 1, 1};
    fc_ind_spec s;
    CHECK(fc_ind_parse("sma:2", &s) == FC_OK);
    size_t off[2] = {0, 8};
    fc_ind_options o = fc_ind_options_default();
    o.nan = FC_NAN_RESTART;
    double *oa[1] = {a}, *ob[1] = {b};
    CHECK(fc_ind_compute(&s, y, mask, off, 1, &o, oa, NULL) == FC_OK);
    CHECK(fc_ind_compute(&s, yn, NULL, off, 1, &o, ob, NULL) == FC_OK);
    expect("masked sma:2", a, b, 8);
}

/* Too short for one value: all NaN, flagged; exactly lookback + 1: one value. */
static void test_short_series(void) {
    double y[40];
    for (int i = 0; i < 40; i++) y[i] = 100 + i % 7;
    size_t off[4] = {0, 14, 29, 40}; /* 14, 15 and 11 points */
    fc_ind_spec s;
    CHECK(fc_ind_parse("rsi:14", &s) == FC_OK);
    double out[40], *outs[1] = {out};
    uint8_t none[3] = {9, 9, 9};
    CHECK(fc_ind_compute(&s, y, NULL, off, 3, NULL, outs, none) == FC_OK);
    CHECK(none[0] == 1 && none[1] == 0 && none[2] == 1);
    for (int i = 0; i < 14; i++) CHECK(isnan(out[i]));
    CHECK(!isnan(out[28]) && isnan(out[27]));
    for (int i = 29; i < 40; i++) CHECK(isnan(out[i]));
}

/* ------------------------------------- lane path against scalar path */

static uint64_t lcg(uint64_t *s) { return *s = *s * 6364136223846793005ull + 1442695040888963407ull; }

/* Random walks of ragged lengths with NaNs, flat stretches (zero variance)
 * and huge spikes (TA-Lib's cancellation re-anchoring). */
static void make_rough(double *y, size_t *off, size_t n_series, uint64_t seed) {
    size_t row = 0;
    for (size_t s = 0; s < n_series; s++) {
        off[s] = row;
        size_t len = 300 + (lcg(&seed) >> 33) % 700;
        double v = 100.0;
        for (size_t t = 0; t < len; t++, row++) {
            uint64_t r = lcg(&seed) >> 11;
            int flat = (t / 50) % 5 == 3;
            v += flat ? 0.0 : (double)(r % 2001) / 1000.0 - 1.0;
            y[row] = v;
            if (r % 997 == 0) y[row] = NAN;
            if (r % 1499 == 1) y[row] = v * 1e7;
        }
    }
    off[n_series] = row;
}

static void test_lanes_match_scalar(void) {
    enum { NS = 37 };
    size_t off[NS + 1];
    double *y = malloc(NS * 1000 * sizeof *y);
    make_rough(y, off, NS, 99);
    size_t n = off[NS];
    const char *specs[] = {"sma:20", "sma:1", "ema:9", "wma:7", "rsi:14", "rsi:2", "macd:5:13:4", "stddev:6:1.5",
                           "bbands:12:2:1", "zscore:8", "mom:4", "roc:3", "wma:1", "ema:1"};
    double *batch_out[3], *one_out[3];
    for (int k = 0; k < 3; k++) batch_out[k] = malloc(n * sizeof(double)), one_out[k] = malloc(n * sizeof(double));
    long compared = 0;
    for (int pol = 0; pol < 2; pol++)
        for (size_t j = 0; j < COUNT(specs); j++) {
            fc_ind_spec s;
            CHECK(fc_ind_parse(specs[j], &s) == FC_OK);
            fc_ind_options o = fc_ind_options_default();
            o.nan = pol ? FC_NAN_RESTART : FC_NAN_POISON;
            o.streaming = j % 2; /* both store paths */
            CHECK(fc_ind_compute(&s, y, NULL, off, NS, &o, batch_out, NULL) == FC_OK);
            for (size_t i = 0; i < NS; i++) {
                size_t sub[2] = {0, off[i + 1] - off[i]};
                double *o1[3] = {one_out[0] + off[i], one_out[1] + off[i], one_out[2] + off[i]};
                CHECK(fc_ind_compute(&s, y + off[i], NULL, sub, 1, &o, o1, NULL) == FC_OK);
            }
            for (int k = 0; k < fc_ind_n_outputs(&s); k++) {
                int bad = 0;
                for (size_t r = 0; r < n; r++, compared++)
                    bad += !(batch_out[k][r] == one_out[k][r] || (isnan(batch_out[k][r]) && isnan(one_out[k][r])));
                CHECK_MSG(bad == 0, "%s (%s) output %d: %d values differ between lanes and scalar", specs[j],
                          pol ? "restart" : "poison", k, bad);
            }
        }
    printf("lanes vs scalar: %ld values compared\n", compared);
    for (int k = 0; k < 3; k++) free(batch_out[k]), free(one_out[k]);
    free(y);
}

/* ------------------------------------------------------------ the parser */

static void expect_error(const char *text, const char *needle) {
    fc_ind_spec s;
    fc_status st = fc_ind_parse(text, &s);
    CHECK_MSG(st != FC_OK, "'%s' was accepted", text);
    CHECK_CONTAINS(fc_last_error(), needle);
}

static void test_parser(void) {
    expect_error("sma:0", "'sma:0': period must be >= 1");
    expect_error("rsi:1", "period must be >= 2");
    expect_error("bbands:1", "period must be >= 2");
    expect_error("sma:100001", "period must be <= 100000");
    expect_error("foo:3", "unknown indicator 'foo'");
    expect_error("sma:abc", "'sma:abc': period must be an integer, got 'abc'");
    expect_error("sma:2.5", "period must be an integer");
    expect_error("bbands:20:x", "nbdevup must be a number, got 'x'");
    expect_error("sma:20:3", "sma takes at most 1 parameter");
    expect_error("macd:12:26:9:1", "macd takes at most 3 parameters");
    expect_error("sma:", "period 1 is empty");
    expect_error("", "empty indicator spec");
    expect_error("macd:1", "fast period must be >= 2");
    expect_error("macd:12:26:0", "signal period must be >= 1");
    fc_ind_spec *list = NULL;
    size_t n = 0;
    CHECK(fc_ind_parse_list("sma:20,SMA:20", &list, &n) != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "'sma:20': given twice");
    CHECK(fc_ind_parse_list("sma:20, rsi:14,bbands:20:2,macd:12:26:9", &list, &n) == FC_OK && n == 4);
    char col[64];
    const char *want[] = {"sma_20", "rsi_14", "bbands_20_2_upper", "bbands_20_2_middle", "bbands_20_2_lower",
                          "macd_12_26_9_macd", "macd_12_26_9_signal", "macd_12_26_9_hist"};
    int w = 0;
    for (size_t j = 0; j < n; j++)
        for (int k = 0; k < fc_ind_n_outputs(&list[j]); k++, w++) {
            fc_ind_column_name(&list[j], k, col, sizeof col);
            CHECK_MSG(!strcmp(col, want[w]), "column %s, want %s", col, want[w]);
        }
    CHECK(list[2].dev_up == 2.0 && list[2].dev_dn == 2.0 && list[2].period == 20);
    free(list);
    fc_ind_spec s;
    CHECK(fc_ind_spec_init(&s, FC_IND_BBANDS, (double[]){10, 1.5}, 2) == FC_OK);
    CHECK(s.period == 10 && s.dev_up == 1.5 && s.dev_dn == 1.5 && !strcmp(s.label, "bbands_10_1.5"));
    CHECK(fc_ind_spec_init(&s, FC_IND_STDDEV, (double[]){10, 0.1}, 2) == FC_OK);
    CHECK_MSG(!strcmp(s.label, "stddev_10_0.1"), "label %s", s.label);
    CHECK(fc_ind_spec_init(&s, FC_IND_RSI, (double[]){1}, 1) != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "'rsi:1': period must be >= 2");
}

int main(void) {
    test_fixtures();
    test_lookbacks();
    test_restart_by_hand();
    test_mask();
    test_short_series();
    test_lanes_match_scalar();
    test_parser();
    return CHECK_DONE();
}
