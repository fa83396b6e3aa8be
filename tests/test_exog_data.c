/* The data side of exogenous variables: loading a file without y
 * (y_optional), the static table (every error with its file, line and
 * column; values in a dataset's series order), the exogenous column lookup
 * and finiteness check (series and ds named, filled gaps told apart), and
 * the future extension predict uses (values, mask and ds; every error). */
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "data/dataset.h"
#include "data/exog_data.h"
#include "data/static_table.h"

static char dir[] = "/tmp/fcast-exog-test-XXXXXX";

static const char *in_dir(const char *name) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void write_file(const char *name, const char *text) {
    FILE *f = fopen(in_dir(name), "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(text, 1, strlen(text), f);
    fclose(f);
}

/* A dataset from text, with freq (NULL: inferred), y_optional and keep_gaps. */
static fc_dataset *load(const char *name, const char *text, const char *freq, int y_optional, int keep_gaps) {
    fc_load_options opt = {.freq = freq, .y_optional = y_optional, .keep_gaps = keep_gaps};
    fc_dataset *d = NULL;
    fc_status st = fc_dataset_load_buffer(name, text, strlen(text), &opt, &d);
    CHECK_MSG(st == FC_OK && d, "%s failed to load: %s", name, fc_last_error());
    return d;
}

/* ---------------------------------------------------------------- y_optional */

static void test_missing_y_stays_an_error(void) {
    const char *csv = "unique_id,ds,temp\na,1,1\na,2,2\n";
    fc_dataset *d = NULL;
    CHECK(fc_dataset_load_buffer("f.csv", csv, strlen(csv), NULL, &d) == FC_ERR_PARSE && !d);
    CHECK(strcmp(fc_last_error(), "f.csv:1: missing column 'y': the header has 'unique_id', 'ds', 'temp'; "
                 "expected columns unique_id, ds and y in any order (others are exogenous variables)") == 0);
    fc_load_options opt = {.y_optional = 1};
    const char *no_ds = "unique_id,temp\na,1\n";
    CHECK(fc_dataset_load_buffer("f.csv", no_ds, strlen(no_ds), &opt, &d) == FC_ERR_PARSE && !d);
    CHECK_CONTAINS(fc_last_error(), "f.csv:1: missing column 'ds'");
    CHECK_CONTAINS(fc_last_error(), "expected columns unique_id and ds (y optional)");
}

static void test_y_optional_without_y(void) {
    fc_dataset *d = load("futr.csv", "unique_id,ds,temp,price\nb,3,1.5,7\na,2,3,8\na,1,2,9\n", "1", 1, 0);
    if (!d) return;
    CHECK(d->n_series == 2 && d->n_rows == 3 && d->n_exog == 2);
    CHECK(strcmp(d->ids[0], "a") == 0 && strcmp(d->ids[1], "b") == 0);
    CHECK(strcmp(d->exog_names[0], "temp") == 0 && strcmp(d->exog_names[1], "price") == 0);
    static const int64_t ds[3] = {1, 2, 3};
    static const double temp[3] = {2, 3, 1.5}, price[3] = {9, 8, 7};
    for (int i = 0; i < 3; i++) {
        CHECK_MSG(d->ds[i] == ds[i] && d->y[i] == 0.0 && d->mask[i] == 0, "row %d", i);
        CHECK_MSG(d->exog[2 * i] == temp[i] && d->exog[2 * i + 1] == price[i], "row %d exog", i);
    }
    fc_dataset_free(&d);
}

/* A file that has y loads as without the option. */
static void test_y_optional_with_y(void) {
    const char *csv = "unique_id,ds,temp,y\na,1,5,10\na,2,6,\na,3,7,12\n";
    fc_dataset *a = load("a.csv", csv, NULL, 1, 0), *b = load("b.csv", csv, NULL, 0, 0);
    if (a && b) {
        CHECK(a->n_rows == 3 && a->n_exog == 1 && b->n_exog == 1 && strcmp(a->exog_names[0], "temp") == 0);
        CHECK(memcmp(a->y, b->y, 3 * sizeof *a->y) == 0 && memcmp(a->mask, b->mask, 3) == 0);
        CHECK(memcmp(a->exog, b->exog, 3 * sizeof *a->exog) == 0);
        CHECK(a->y[0] == 10 && a->mask[0] && !a->mask[1] && a->y[2] == 12 && a->exog[1] == 6);
    }
    fc_dataset_free(&a);
    fc_dataset_free(&b);
}

/* The streaming loader goes through the same header code: it gives the
 * in-memory loader's dataset. */
static void test_y_optional_streamed(void) {
    const char *csv = "unique_id,ds,temp\na,1,1\na,3,3\nb,1,4\nb,2,5\n";
    write_file("stream.csv", csv);
    fc_load_options opt = {.y_optional = 1, .stream = 1, .store_dir = dir};
    fc_dataset *s = NULL, *m = load("m.csv", csv, NULL, 1, 0);
    fc_status st = fc_dataset_open(in_dir("stream.csv"), &opt, &s);
    CHECK_MSG(st == FC_OK, "%s", fc_last_error());
    if (st == FC_OK && m) {
        CHECK(s->map != NULL && s->n_rows == m->n_rows && s->n_rows == 5 && s->n_filled == 1);
        CHECK(memcmp(s->ds, m->ds, 5 * sizeof *s->ds) == 0 && memcmp(s->mask, m->mask, 5) == 0);
        CHECK(memcmp(s->y, m->y, 5 * sizeof *s->y) == 0);
        CHECK(memcmp(s->exog, m->exog, 5 * sizeof *s->exog) == 0);   /* NaN bits included */
    }
    fc_dataset_free(&s);
    fc_dataset_free(&m);
    unlink(in_dir("stream.csv"));
}

/* -------------------------------------------------------------- static table */

static fc_static_table *static_text(const char *text) {
    fc_static_table *t = NULL;
    fc_status st = fc_static_table_load_buffer("static.csv", text, strlen(text), &t);
    CHECK_MSG(st == FC_OK && t, "static load failed: %s", fc_last_error());
    return t;
}

typedef struct {
    const char *what, *csv, *needles[3];
} static_case;

static const static_case static_errors[] = {
    {"empty file", "", {"static.csv:1: empty file", "unique_id"}},
    {"blank lines only", "\n\n", {"static.csv:1: empty file"}},
    {"no unique_id", "id,a\nx,1\n", {"static.csv:1: missing column 'unique_id'", "'id', 'a'"}},
    {"no other column", "unique_id\nx\n", {"static.csv:1: no static column", "only 'unique_id'"}},
    {"empty column name", "unique_id,,b\nx,1,2\n", {"static.csv:1: column '' (2): empty column name"}},
    {"repeated column name", "unique_id,a,b,a\nx,1,2,3\n",
     {"static.csv:1: column 'a' (4): repeats the name of column 2"}},
    {"too many fields", "unique_id,a\nx,1\ny,1,2\n",
     {"static.csv:3: 3 fields but the header (line 1) has 2 columns"}},
    {"too few fields", "unique_id,a,b\nx,1\n",
     {"static.csv:2: column 'b' (3): missing: the line has 2 fields", "header (line 1) has 3 columns"}},
    {"duplicate unique_id", "unique_id,a\nx,1\ny,2\n\nx,3\n",
     {"static.csv:5: column 'unique_id' (1): duplicate unique_id 'x': already on line 2"}},
    {"empty unique_id", "unique_id,a\nx,1\n,2\n", {"static.csv:3: column 'unique_id' (1): empty unique_id"}},
    {"not a number", "a,unique_id\nabc,x\n", {"static.csv:2: column 'a' (1): 'abc' is not a number"}},
    {"empty value", "unique_id,a,b\nx,1,\n",
     {"static.csv:2: column 'b' (3): missing value (empty)", "static values must be given"}},
    {"NaN value", "unique_id,a\nx,NaN\n",
     {"static.csv:2: column 'a' (2): missing value ('NaN')", "static values must be given"}},
    {"infinite value", "unique_id,a\nx,-inf\n", {"static.csv:2: column 'a' (2): '-inf' is infinite"}},
    {"beyond float", "unique_id,a\nx,1e300\n", {"static.csv:2: column 'a' (2): '1e300' is beyond the float range"}},
    {"no rows", "unique_id,a\n", {"static.csv:2: no data rows after the header (line 1)"}},
    {"CSV syntax", "unique_id,a\nx,\"1\n", {"static.csv:2:"}},
};

static void test_static_errors(void) {
    for (size_t i = 0; i < sizeof static_errors / sizeof *static_errors; i++) {
        const static_case *c = &static_errors[i];
        fc_static_table *t = (fc_static_table *)&dir;   /* must be reset to NULL */
        fc_status st = fc_static_table_load_buffer("static.csv", c->csv, strlen(c->csv), &t);
        CHECK_MSG(st == FC_ERR_PARSE, "case '%s': status %d", c->what, (int)st);
        CHECK_MSG(t == NULL, "case '%s' left a table", c->what);
        if (st == FC_OK) fc_static_table_free(&t);
        for (int k = 0; k < 3 && c->needles[k]; k++)
            CHECK_MSG(strstr(fc_last_error(), c->needles[k]) != NULL, "case '%s': \"%s\" lacks \"%s\"",
                      c->what, fc_last_error(), c->needles[k]);
    }
}

static void test_static_file(void) {
    fc_static_table *t = NULL;
    CHECK(fc_static_table_load("/nonexistent/static.csv", &t) == FC_ERR_IO && !t);
    CHECK_CONTAINS(fc_last_error(), "/nonexistent/static.csv");
    write_file("static.csv", "market,unique_id,size\r\n1,b,20\r\n0,a,10.5\r\n");
    CHECK_MSG(fc_static_table_load(in_dir("static.csv"), &t) == FC_OK, "%s", fc_last_error());
    if (t) {
        CHECK(strcmp(t->source, in_dir("static.csv")) == 0 && t->n_rows == 2 && t->n_cols == 2);
        const char *const *names;
        size_t n;
        fc_static_table_columns(t, &names, &n);   /* all but unique_id, in the file's order */
        CHECK(n == 2 && strcmp(names[0], "market") == 0 && strcmp(names[1], "size") == 0);
        CHECK(t->values[0] == 1 && t->values[1] == 20 && t->values[2] == 0 && t->values[3] == 10.5);
    }
    fc_static_table_free(&t);
    CHECK(t == NULL);
    write_file("bad_static.csv", "unique_id,a\nx,1\nx,2\n");
    CHECK(fc_static_table_load(in_dir("bad_static.csv"), &t) == FC_ERR_PARSE && !t);
    CHECK_CONTAINS(fc_last_error(), "bad_static.csv:3: column 'unique_id' (1): duplicate unique_id 'x'");
    unlink(in_dir("static.csv"));
    unlink(in_dir("bad_static.csv"));
}

/* Values come in the dataset's series order and the names' order; rows of
 * other series are ignored. */
static void test_static_values(void) {
    fc_static_table *t = static_text("unique_id,a,b\nz,9,9\nc,5,6\nb,1.5,2\na,-1,3e2\n");
    fc_dataset *d = load("data.csv", "unique_id,ds,y\nc,1,1\na,1,1\nb,1,1\n", "1", 0, 0);
    if (!t || !d) goto done;
    const char *names[3] = {"b", "a", "b"};
    double *v = NULL;
    CHECK_MSG(fc_static_values(t, d, names, 3, NULL, &v) == FC_OK, "%s", fc_last_error());
    static const double want[9] = {300, -1, 300, 2, 1.5, 2, 6, 5, 6};   /* series a, b, c */
    for (int i = 0; v && i < 9; i++) CHECK_MSG(v[i] == want[i], "value %d: %g", i, v[i]);
    free(v);
    v = (double *)names;
    const char *absent[2] = {"a", "c"};
    CHECK(fc_static_values(t, d, absent, 2, NULL, &v) == FC_ERR_INVALID && !v);
    CHECK_CONTAINS(fc_last_error(), "static.csv has no column 'c'; its static columns are: 'a', 'b'");
done:
    fc_static_table_free(&t);
    fc_dataset_free(&d);
}

static void test_static_missing_series(void) {
    fc_static_table *t = static_text("unique_id,a\na,1\nc,3\n");
    fc_dataset *d = load("data.csv", "unique_id,ds,y\nc,1,1\na,1,1\nb,1,1\n", "1", 0, 0);
    const char *names[1] = {"a"};
    double *v = NULL;
    if (t && d) {
        CHECK(fc_static_values(t, d, names, 1, NULL, &v) == FC_ERR_INVALID && !v);
        CHECK(strcmp(fc_last_error(), "static.csv has no row for series 'b'; every series of data.csv needs "
                     "one, as neuralforecast's static_df") == 0);
        CHECK(fc_static_values(t, d, names, 1, "train.csv", &v) == FC_ERR_INVALID && !v);
        CHECK_CONTAINS(fc_last_error(), "every series of train.csv needs one");
    }
    fc_static_table_free(&t);
    fc_dataset_free(&d);
}

/* ---------------------------------------------------- columns and finiteness */

static void test_exog_columns(void) {
    fc_dataset *d = load("data.csv", "unique_id,ds,y,temp,price,promo\na,1,1,1,2,3\n", "1", 0, 0);
    fc_dataset *bare = load("bare.csv", "unique_id,ds,y\na,1,1\n", "1", 0, 0);
    if (!d || !bare) goto done;
    const char *names[2] = {"promo", "temp"}, *wrong[2] = {"temp", "rain"};
    size_t cols[2] = {99, 99};
    CHECK(fc_exog_columns(d, names, 2, "--futr-exog", cols) == FC_OK && cols[0] == 2 && cols[1] == 0);
    CHECK(fc_exog_columns(d, wrong, 2, "--futr-exog", cols) == FC_ERR_INVALID);
    CHECK(strcmp(fc_last_error(), "data.csv: no column 'rain' (named by --futr-exog); its extra columns "
                 "are: 'temp', 'price', 'promo'") == 0);
    CHECK(fc_exog_columns(bare, names, 1, "--hist-exog", cols) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "bare.csv: no column 'promo' (named by --hist-exog); it has no extra columns");
    /* the panel's own columns are in the file, but cannot be exogenous: "no column 'y'" puzzled */
    const char *target[2] = {"temp", "y"}, *id[1] = {"unique_id"}, *ds[1] = {"ds"};
    CHECK(fc_exog_columns(d, target, 2, "--futr-exog", cols) == FC_ERR_INVALID);
    CHECK(strcmp(fc_last_error(), "data.csv: --futr-exog names y, the target, which cannot be an exogenous column "
                 "(the model reads the target's past values already)") == 0);
    CHECK(fc_exog_columns(bare, id, 1, "--hist-exog", cols) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "bare.csv: --hist-exog names unique_id, the series' id column, which cannot be");
    CHECK(fc_exog_columns(d, ds, 1, "--hist-exog", cols) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "data.csv: --hist-exog names ds, the series' time column, which cannot be");
done:
    fc_dataset_free(&d);
    fc_dataset_free(&bare);
}

static void test_check_finite(void) {
    /* temp is complete; price has an empty cell at (b, 2000-01-02). */
    fc_dataset *d = load("data.csv", "unique_id,ds,y,temp,price\n"
                         "a,2000-01-01,1,1,1\na,2000-01-02,1,2,2\n"
                         "b,2000-01-01,1,3,3\nb,2000-01-02,,4,\nb,2000-01-03,1,5,5\n", NULL, 0, 0);
    if (!d) return;
    size_t cols[2];
    const char *names[2] = {"temp", "price"};
    CHECK(fc_exog_columns(d, names, 2, "--hist-exog", cols) == FC_OK);
    CHECK(fc_exog_check_finite(d, cols, names, 1, "--hist-exog") == FC_OK);
    CHECK(fc_exog_check_finite(d, cols, names, 0, "--hist-exog") == FC_OK);
    CHECK(fc_exog_check_finite(d, cols, names, 2, "--hist-exog") == FC_ERR_INVALID);
    CHECK(strcmp(fc_last_error(), "data.csv: column 'price' (named by --hist-exog) is empty or NaN for "
                 "series 'b' at ds 2000-01-02; exogenous columns need a value at every ds (neuralforecast "
                 "would train on NaN there: fill it in the file)") == 0);
    fc_dataset_free(&d);
}

static void test_check_finite_gap(void) {
    /* a skips ds 3: the loader fills it, and the message says so. */
    fc_dataset *d = load("gaps.csv", "unique_id,ds,y,temp\na,1,1,1\na,2,1,2\na,4,1,4\n", NULL, 0, 0);
    if (!d) return;
    size_t col = 0;
    const char *name = "temp";
    CHECK(d->n_filled == 1);
    CHECK(fc_exog_check_finite(d, &col, &name, 1, "--futr-exog") == FC_ERR_INVALID);
    CHECK(strcmp(fc_last_error(), "gaps.csv: column 'temp' (named by --futr-exog) has no value for series "
                 "'a' at ds 3: ds 3 is missing from the file and was filled as a gap; exogenous columns "
                 "need a value at every ds (add the row)") == 0);
    fc_dataset_free(&d);
    /* A row of the file with every value empty looks like a filled gap;
     * with nothing filled it is told as what it is. */
    d = load("empty.csv", "unique_id,ds,y,temp\na,1,1,1\na,2,,\na,3,1,3\n", NULL, 0, 0);
    if (!d) return;
    CHECK(d->n_filled == 0);
    CHECK(fc_exog_check_finite(d, &col, &name, 1, "--futr-exog") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "empty.csv: column 'temp' (named by --futr-exog) is empty or NaN for "
                   "series 'a' at ds 2;");
    fc_dataset_free(&d);
}

/* ---------------------------------------------------------- future extension */

static const char *const HIST = "unique_id,ds,y,temp,price\n"
                                "b,1,10,0.5,7\nb,2,11,0.6,8\na,1,1,0.1,1\na,2,2,0.2,2\na,3,3,0.3,3\n";

typedef struct {
    fc_dataset *hist, *futr;
    size_t hist_col, futr_col;
} pair;

/* hist from HIST, futr from text (y_optional, keep_gaps unless a freq is given), both on column temp. */
static int load_pair(pair *p, const char *futr, const char *futr_freq) {
    const char *name = "temp";
    p->hist = load("data.csv", HIST, NULL, 0, 0);
    p->futr = load("futr.csv", futr, futr_freq, 1, futr_freq == NULL);
    return p->hist && p->futr && fc_exog_columns(p->hist, &name, 1, "--futr-exog", &p->hist_col) == FC_OK &&
           fc_exog_columns(p->futr, &name, 1, "--futr-exog", &p->futr_col) == FC_OK;
}

static void free_pair(pair *p) {
    fc_dataset_free(&p->hist);
    fc_dataset_free(&p->futr);
}

static void test_extend_values(void) {
    pair p;
    /* Extra rows: series c, a in its history, a past h, a column not used. */
    if (!load_pair(&p, "unique_id,ds,extra,temp\na,4,9,0.4\nc,4,1,1\na,5,9,0.5\nb,3,9,0.7\nb,4,9,0.8\n"
                   "b,5,9,0.9\na,2,9,99\na,9,9,99\n", NULL))
        goto done;
    fc_dataset *d = NULL;
    CHECK_MSG(fc_futr_extend(p.hist, p.futr, &p.hist_col, &p.futr_col, 1, 2, &d) == FC_OK, "%s", fc_last_error());
    if (!d) goto done;
    CHECK(d->n_series == 2 && d->n_rows == 9 && d->n_exog == 2 && d->offsets[1] == 5 && d->offsets[2] == 9);
    CHECK(strcmp(d->ids[0], "a") == 0 && strcmp(d->ids[1], "b") == 0 && strcmp(d->source, "data.csv") == 0);
    CHECK(strcmp(d->exog_names[0], "temp") == 0 && strcmp(d->exog_names[1], "price") == 0);
    CHECK(d->ds_kind == p.hist->ds_kind && d->freq.step == 1 && d->observed == NULL);
    static const int64_t ds[9] = {1, 2, 3, 4, 5, 1, 2, 3, 4};
    static const double y[9] = {1, 2, 3, 0, 0, 10, 11, 0, 0}, temp[9] = {.1, .2, .3, .4, .5, .5, .6, .7, .8};
    static const double price[9] = {1, 2, 3, NAN, NAN, 7, 8, NAN, NAN};
    static const uint8_t mask[9] = {1, 1, 1, 0, 0, 1, 1, 0, 0};
    for (int i = 0; i < 9; i++) {
        CHECK_MSG(d->ds[i] == ds[i] && d->y[i] == y[i] && d->mask[i] == mask[i], "row %d", i);
        CHECK_MSG(d->exog[2 * i] == temp[i], "row %d temp %g", i, d->exog[2 * i]);
        CHECK_MSG(isnan(price[i]) ? isnan(d->exog[2 * i + 1]) : d->exog[2 * i + 1] == price[i], "row %d price", i);
    }
    CHECK(p.hist->n_rows == 5);   /* hist untouched */
    fc_dataset_free(&d);
    /* h 0: a copy of hist. No future-known column: NaN ahead, futr unread. */
    CHECK(fc_futr_extend(p.hist, p.futr, &p.hist_col, &p.futr_col, 1, 0, &d) == FC_OK && d && d->n_rows == 5);
    if (d) CHECK(memcmp(d->exog, p.hist->exog, 10 * sizeof *d->exog) == 0 && memcmp(d->ds, p.hist->ds, 40) == 0);
    fc_dataset_free(&d);
    CHECK(fc_futr_extend(p.hist, NULL, NULL, NULL, 0, 3, &d) == FC_OK && d && d->n_rows == 11);
    if (d) CHECK(d->ds[5] == 6 && isnan(d->exog[10]) && isnan(d->exog[11]) && d->mask[5] == 0);
    fc_dataset_free(&d);
done:
    free_pair(&p);
}

/* Calendar months: the future ds follow the month grid. */
static void test_extend_months(void) {
    fc_dataset *hist = load("m.csv", "unique_id,ds,y,promo\na,2000-01-01,1,0\na,2000-02-01,2,1\n", NULL, 0, 0);
    fc_dataset *futr = load("mf.csv", "unique_id,ds,promo\na,2000-04-01,1\na,2000-03-01,0\n", NULL, 1, 1);
    fc_dataset *d = NULL;
    size_t col = 0;
    if (hist && futr) {
        CHECK_MSG(fc_futr_extend(hist, futr, &col, &col, 1, 2, &d) == FC_OK, "%s", fc_last_error());
        char a[40] = "", b[40] = "";
        if (d) {
            fc_ds_format(d->ds_kind, d->ds[2], a, sizeof a);
            fc_ds_format(d->ds_kind, d->ds[3], b, sizeof b);
            CHECK(d->exog[2] == 0 && d->exog[3] == 1);
        }
        CHECK(strcmp(a, "2000-03-01") == 0 && strcmp(b, "2000-04-01") == 0);
    }
    fc_dataset_free(&d);
    fc_dataset_free(&hist);
    fc_dataset_free(&futr);
}

/* Runs fc_futr_extend on HIST and futr text with h 2 and checks the message. */
static void expect_extend_error(const char *what, const char *futr, const char *freq, const char *message) {
    pair p;
    fc_dataset *d = (fc_dataset *)&p;
    if (load_pair(&p, futr, freq)) {
        CHECK_MSG(fc_futr_extend(p.hist, p.futr, &p.hist_col, &p.futr_col, 1, 2, &d) == FC_ERR_INVALID,
                  "case '%s' extended", what);
        CHECK_MSG(d == NULL, "case '%s' left a dataset", what);
        CHECK_MSG(strstr(fc_last_error(), message) != NULL, "case '%s': \"%s\" lacks \"%s\"", what,
                  fc_last_error(), message);
    }
    free_pair(&p);
}

static void test_extend_errors(void) {
    expect_extend_error("no rows", "unique_id,ds,temp\na,4,1\na,5,1\nc,3,1\n", NULL,
                        "futr.csv has no rows for series 'b': predict needs its next 2 values of 'temp'");
    expect_extend_error("missing ds", "unique_id,ds,temp\na,4,1\na,5,1\nb,3,1\nb,5,1\n", NULL,
                        "futr.csv has no row for series 'b' at ds 4: predict needs the series' next 2 ds on "
                        "the 1 grid after its last ds 2 in data.csv, each with values of 'temp'");
    expect_extend_error("ds filled as a gap", "unique_id,ds,temp\na,4,1\na,5,1\nb,3,1\nb,5,1\n", "1",
                        "futr.csv has no row for series 'b' at ds 4:");
    expect_extend_error("empty value", "unique_id,ds,temp\na,4,1\na,5,1\nb,3,1\nb,4,\n", NULL,
                        "futr.csv: column 'temp' is empty or NaN for series 'b' at ds 4: predict needs a "
                        "value of every future-known column at each of a series' next 2 ds");
    expect_extend_error("NaN value", "unique_id,ds,temp\na,4,NaN\na,5,1\nb,3,1\nb,4,1\n", NULL,
                        "futr.csv: column 'temp' is empty or NaN for series 'a' at ds 4:");
    expect_extend_error("ds kinds", "unique_id,ds,temp\na,2000-01-01,1\n", NULL,
                        "futr.csv has ds of kind 'date' but data.csv of kind 'integer index': the future "
                        "values must be on the data's time axis");
}

static void test_extend_unknown_grid(void) {
    fc_dataset *hist = load("one.csv", "unique_id,ds,y,temp\na,1,1,1\nb,5,1,1\n", NULL, 0, 1);
    fc_dataset *big = load("big.csv", "unique_id,ds,y,temp\na,1,1,1\na,2,1,1\n", NULL, 0, 0);
    fc_dataset *d = NULL;
    size_t col = 0;
    if (hist && big) {
        CHECK(fc_futr_extend(hist, big, &col, &col, 1, 1, &d) == FC_ERR_INVALID && !d);
        CHECK_CONTAINS(fc_last_error(), "one.csv: the frequency is unknown");
        CHECK(fc_futr_extend(big, big, &col, &col, 1, (size_t)INT64_MAX, &d) == FC_ERR_INVALID && !d);
        CHECK_CONTAINS(fc_last_error(), "big.csv: series 'a' ends at 2");
        CHECK(fc_futr_extend(big, big, &col, &col, 1, SIZE_MAX, &d) == FC_ERR_INVALID && !d);
        CHECK_CONTAINS(fc_last_error(), "too large");
    }
    fc_dataset_free(&hist);
    fc_dataset_free(&big);
}

static void test_names_join(void) {
    const char *names[3] = {"alpha", "beta", "gamma"};
    size_t pick[2] = {2, 0};
    char buf[64];
    fc_names_join(names, NULL, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "'alpha', 'beta', 'gamma'") == 0);
    fc_names_join(names, pick, 2, buf, sizeof buf);
    CHECK(strcmp(buf, "'gamma', 'alpha'") == 0);
    fc_names_join(names, NULL, 3, buf, 20);
    CHECK_MSG(strcmp(buf, "'alpha', ...") == 0, "%s", buf);
    fc_names_join(names, NULL, 0, buf, sizeof buf);
    CHECK(buf[0] == '\0');
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    test_missing_y_stays_an_error();
    test_y_optional_without_y();
    test_y_optional_with_y();
    test_y_optional_streamed();
    test_static_errors();
    test_static_file();
    test_static_values();
    test_static_missing_series();
    test_exog_columns();
    test_check_finite();
    test_check_finite_gap();
    test_extend_values();
    test_extend_months();
    test_extend_errors();
    test_extend_unknown_grid();
    test_names_join();
    rmdir(dir);
    return CHECK_DONE();
}
