/* The long-format CSV loader: every validation error (file, line, column and
 * what was expected in the message), parse correctness on hand-written
 * inputs, and the bundled data sets against their documented shapes and
 * their own text (every ds and y read back). */
#include "check.h"

#include <math.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "data/dataset.h"

static fc_dataset *load_text(const char *text, const char *freq) {
    fc_load_options opt = {.freq = freq};
    fc_dataset *d = NULL;
    fc_status st = fc_dataset_load_buffer("mem.csv", text, strlen(text), &opt, &d);
    CHECK_MSG(st == FC_OK && d, "load failed: %s", fc_last_error());
    return st == FC_OK ? d : NULL;
}

/* ------------------------------------------------------------------ errors */

#include "csv_error_cases.h"

static void test_errors(void) {
    for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
        const error_case *c = &error_cases[i];
        fc_load_options opt = {.freq = c->freq};
        fc_dataset *d = (fc_dataset *)&opt;  /* must be reset to NULL on failure */
        fc_status st = fc_dataset_load_buffer("bad.csv", c->csv, strlen(c->csv), &opt, &d);
        CHECK_MSG(st != FC_OK, "case '%s' loaded", c->what);
        CHECK_MSG(d == NULL, "case '%s' left a dataset", c->what);
        if (st == FC_OK) fc_dataset_free(&d);
        const char *msg = fc_last_error();
        for (int k = 0; k < 4 && c->needles[k]; k++)
            CHECK_MSG(strstr(msg, c->needles[k]) != NULL, "case '%s': \"%s\" lacks \"%s\"",
                      c->what, msg, c->needles[k]);
    }
}

static void test_missing_file(void) {
    fc_dataset *d = NULL;
    CHECK(fc_dataset_load_csv("/nonexistent/dir/x.csv", NULL, &d) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "/nonexistent/dir/x.csv");
    CHECK(d == NULL);
}

/* Messages name the line where the record starts, counting physical lines:
 * a quoted field spanning two lines moves the next record down by two. */
static void test_error_line_after_multiline_field(void) {
    const char *csv = "unique_id,ds,y\n\"a\nb\",1,1\n\"a\nb\",2,x\n";
    fc_dataset *d = NULL;
    CHECK(fc_dataset_load_buffer("ml.csv", csv, strlen(csv), NULL, &d) == FC_ERR_PARSE);
    CHECK_CONTAINS(fc_last_error(), "ml.csv:4:");
    CHECK_CONTAINS(fc_last_error(), "column 'y'");
}

/* ------------------------------------------------------- parse correctness */

static void test_shuffled_rows_come_back_sorted(void) {
    fc_dataset *d = load_text("unique_id,ds,y\n"
                              "b,3,23\nc,1,31\na,2,12\nb,1,21\na,1,11\nc,2,32\nb,2,22\na,3,13\n",
                              NULL);
    if (!d) return;
    CHECK(d->n_series == 3 && d->n_rows == 8 && d->n_filled == 0);
    CHECK(strcmp(d->ids[0], "a") == 0 && strcmp(d->ids[1], "b") == 0 && strcmp(d->ids[2], "c") == 0);
    CHECK(d->offsets[0] == 0 && d->offsets[1] == 3 && d->offsets[2] == 6 && d->offsets[3] == 8);
    static const double y[8] = {11, 12, 13, 21, 22, 23, 31, 32};
    static const int64_t ds[8] = {1, 2, 3, 1, 2, 3, 1, 2};
    for (int i = 0; i < 8; i++) CHECK_MSG(d->y[i] == y[i] && d->ds[i] == ds[i] && d->mask[i], "row %d", i);
    CHECK(d->ds_kind == FC_DS_INDEX && strcmp(d->freq.name, "1") == 0);
    CHECK(fc_dataset_find(d, "b") == 1 && fc_dataset_find(d, "c") == 2 && fc_dataset_find(d, "d") == -1);
    fc_dataset_free(&d);
    CHECK(d == NULL);
}

/* Byte order, as pandas sorts str: upper case before lower case, and a
 * multi-byte UTF-8 id after ASCII. */
static void test_id_byte_order(void) {
    fc_dataset *d = load_text("unique_id,ds,y\n\xC3\xA9t\xC3\xA9,1,1\nb,1,1\nB,1,1\nab,1,1\na,1,1\n", "1");
    if (!d) return;
    static const char *order[5] = {"B", "a", "ab", "b", "\xC3\xA9t\xC3\xA9"};
    for (int i = 0; i < 5; i++) CHECK_MSG(strcmp(d->ids[i], order[i]) == 0, "id %d is %s", i, d->ids[i]);
    for (int i = 0; i < 5; i++) CHECK(fc_dataset_find(d, order[i]) == i);
    fc_dataset_free(&d);
}

static void test_quoted_fields(void) {
    fc_dataset *d = load_text("\"unique_id\",\"ds\",\"y\"\n"
                              "\"Paris, FR\",1,\"1.5\"\n"
                              "\"say \"\"hi\"\"\",1,2\n"
                              "\"two\nlines\",1,3\n"
                              "\"Paris, FR\",2,4\n", NULL);
    if (!d) return;
    CHECK(d->n_series == 3);
    ssize_t paris = fc_dataset_find(d, "Paris, FR"), hi = fc_dataset_find(d, "say \"hi\"");
    ssize_t two = fc_dataset_find(d, "two\nlines");
    CHECK(paris >= 0 && hi >= 0 && two >= 0);
    if (paris >= 0) {
        CHECK(fc_dataset_len(d, (size_t)paris) == 2);
        CHECK(d->y[d->offsets[paris]] == 1.5 && d->y[d->offsets[paris] + 1] == 4.0);
    }
    if (hi >= 0) CHECK(d->y[d->offsets[hi]] == 2.0);
    if (two >= 0) CHECK(d->y[d->offsets[two]] == 3.0);
    fc_dataset_free(&d);
}

/* The same table written with LF, CRLF, a BOM, no final newline and blank
 * lines at the end (and in the middle, which pandas skips too). */
static void test_line_endings_and_bom(void) {
    static const char *variants[] = {
        "unique_id,ds,y\na,1,1.25\na,2,2.5\n",
        "unique_id,ds,y\r\na,1,1.25\r\na,2,2.5\r\n",
        "\xEF\xBB\xBFunique_id,ds,y\r\na,1,1.25\r\na,2,2.5",
        "unique_id,ds,y\na,1,1.25\na,2,2.5",
        "unique_id,ds,y\na,1,1.25\n\na,2,2.5\n\n\n",
        "unique_id,ds,y\ra,1,1.25\ra,2,2.5\r\r\n",
    };
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        fc_dataset *d = load_text(variants[v], NULL);
        if (!d) continue;
        CHECK_MSG(d->n_series == 1 && d->n_rows == 2 && strcmp(d->ids[0], "a") == 0, "variant %zu", v);
        CHECK_MSG(d->y[0] == 1.25 && d->y[1] == 2.5 && d->ds[1] == 2, "variant %zu", v);
        fc_dataset_free(&d);
    }
}

static void test_missing_values_are_masked(void) {
    fc_dataset *d = load_text("unique_id,ds,y,x\n"
                              "a,1,,7\na,2,NaN,\na,3,nan,NA\na,4,NA,8\na,5,3,nan\na,6, 4 ,-1e-3\n", NULL);
    if (!d) return;
    static const uint8_t mask[6] = {0, 0, 0, 0, 1, 1};
    for (int i = 0; i < 6; i++) CHECK_MSG(d->mask[i] == mask[i], "row %d", i);
    for (int i = 0; i < 4; i++) CHECK(d->y[i] == 0.0);
    CHECK(d->y[4] == 3.0 && d->y[5] == 4.0);
    CHECK(d->exog[0] == 7.0 && isnan(d->exog[1]) && isnan(d->exog[2]) && d->exog[3] == 8.0);
    CHECK(isnan(d->exog[4]) && d->exog[5] == -1e-3);
    fc_dataset_free(&d);
}

/* keep_gaps: the same rows come back as given (trading days), off-grid ones too. */
static void test_keep_gaps(void) {
    const char *text = "unique_id,ds,y\na,2000-01-03,1\na,2000-01-04,2\na,2000-01-07,5\na,2000-01-10,6\n"
                       "a,2000-01-12,7\n";
    fc_load_options opt = {.keep_gaps = 1};
    fc_dataset *d = NULL;
    CHECK_MSG(fc_dataset_load_buffer("trading.csv", text, strlen(text), &opt, &d) == FC_OK, "%s", fc_last_error());
    if (!d) return;
    CHECK(d->n_filled == 0 && d->n_rows == 5 && fc_dataset_len(d, 0) == 5);
    static const double y[5] = {1, 2, 5, 6, 7};
    for (int i = 0; i < 5; i++) CHECK(d->y[i] == y[i] && d->mask[i] == 1);
    fc_dataset_free(&d);
}

static void test_gaps_are_filled(void) {
    fc_dataset *d = load_text("unique_id,ds,y,x\n"
                              "a,2000-01-01,1,10\na,2000-01-02,2,20\na,2000-01-05,5,50\n"
                              "b,2000-03-01,7,70\nb,2000-03-03,9,90\nb,2000-03-04,10,100\n", NULL);
    if (!d) return;
    CHECK(strcmp(d->freq.name, "D") == 0 && d->freq.step == 86400);
    CHECK(d->n_filled == 3 && d->n_rows == 9);
    CHECK(fc_dataset_len(d, 0) == 5 && fc_dataset_len(d, 1) == 4);
    static const uint8_t mask[9] = {1, 1, 0, 0, 1, 1, 0, 1, 1};
    static const double y[9] = {1, 2, 0, 0, 5, 7, 0, 9, 10};
    static const char *days[9] = {"2000-01-01", "2000-01-02", "2000-01-03", "2000-01-04", "2000-01-05",
                                  "2000-03-01", "2000-03-02", "2000-03-03", "2000-03-04"};
    for (int i = 0; i < 9; i++) {
        char buf[32];
        fc_ds_format(d->ds_kind, d->ds[i], buf, sizeof buf);
        CHECK_MSG(strcmp(buf, days[i]) == 0 && d->mask[i] == mask[i] && d->y[i] == y[i],
                  "row %d: %s mask %d y %g", i, buf, d->mask[i], d->y[i]);
        CHECK_MSG(mask[i] ? d->exog[i] == y[i] * 10 : isnan(d->exog[i]), "exog row %d", i);
    }
    fc_dataset_free(&d);
}

static void test_exog_columns_in_order(void) {
    fc_dataset *d = load_text("price,unique_id,promo,ds,y,temp\n"
                              "1.5,s,0,2,20,-3\n2.5,s,1,1,10,4e1\n", NULL);
    if (!d) return;
    CHECK(d->n_exog == 3);
    CHECK(strcmp(d->exog_names[0], "price") == 0 && strcmp(d->exog_names[1], "promo") == 0 &&
          strcmp(d->exog_names[2], "temp") == 0);
    static const double x[6] = {2.5, 1, 40, 1.5, 0, -3};  /* rows sorted by ds */
    for (int i = 0; i < 6; i++) CHECK_MSG(d->exog[i] == x[i], "exog[%d] = %g", i, d->exog[i]);
    CHECK(d->y[0] == 10 && d->y[1] == 20);
    fc_dataset_free(&d);
    fc_load_options opt = {.drop_exog = 1};
    const char *csv = "price,unique_id,promo,ds,y\nnot-a-number,s,0,2,20\n,s,,3,30\n";
    CHECK(fc_dataset_load_buffer("m.csv", csv, strlen(csv), &opt, &d) == FC_OK);
    if (d) CHECK(d->n_exog == 0 && d->n_rows == 2 && d->y[0] == 20 && d->y[1] == 30);
    fc_dataset_free(&d);
}

static void test_ds_kinds(void) {
    fc_dataset *d = load_text("unique_id,ds,y\na,-2,1\na,0,1\na,4,1\n", NULL);
    if (d) {
        CHECK(d->ds_kind == FC_DS_INDEX && strcmp(d->freq.name, "2") == 0 && d->freq.step == 2);
        CHECK(d->n_rows == 4 && d->ds[0] == -2 && d->ds[2] == 2 && d->mask[2] == 0);
        fc_dataset_free(&d);
    }
    /* 2000-01-01 is day 10957 since 1970 (Python's datetime.date). */
    d = load_text("unique_id,ds,y\na,2000-01-01,1\na,2000-01-08,1\n", NULL);
    if (d) {
        CHECK(d->ds_kind == FC_DS_DATE && d->ds[0] == 10957LL * 86400 && strcmp(d->freq.name, "W") == 0);
        fc_dataset_free(&d);
    }
    /* 2000-06-05 00:30 is 960165000 s; 'T' and HH:MM are accepted. */
    d = load_text("unique_id,ds,y\na,2000-06-05T00:30,1\na,2000-06-05 01:00:00,2\n", NULL);
    if (d) {
        char buf[32];
        CHECK(d->ds_kind == FC_DS_DATETIME && d->ds[0] == 960165000LL && d->ds[1] == 960166800LL);
        CHECK(strcmp(d->freq.name, "30min") == 0);
        fc_ds_format(d->ds_kind, d->ds[0], buf, sizeof buf);
        CHECK(strcmp(buf, "2000-06-05 00:30:00") == 0);
        fc_dataset_free(&d);
    }
}

/* Decimal parsing is exact: each value equals the compiler's own
 * correctly rounded reading of the same literal. */
static void test_values_round_correctly(void) {
    fc_dataset *d = load_text("unique_id,ds,y\n"
                              "a,1,1628.75\na,2,0.1\na,3,1e-3\na,4,-2.5E+10\na,5,+.5\na,6,7.\n"
                              "a,7,123456789012345678901234567890\na,8,0.30000000000000004\n"
                              "a,9,2.2250738585072014e-308\na,10,9007199254740993\n", NULL);
    if (!d) return;
    static const double y[10] = {1628.75, 0.1, 1e-3, -2.5E+10, .5, 7., 123456789012345678901234567890.,
                                 0.30000000000000004, 2.2250738585072014e-308, 9007199254740993.};
    for (int i = 0; i < 10; i++) CHECK_MSG(d->y[i] == y[i], "y[%d] = %.17g, expected %.17g", i, d->y[i], y[i]);
    fc_dataset_free(&d);
}

/* --------------------------------------------------------- bundled data/ */

typedef struct {
    const char *file;
    size_t n_series;
    const char *freq;
    fc_ds_kind kind;
    const char *ids[4];      /* sorted */
    size_t lengths[4];
    const char *first[4], *last[4];
} bundled_case;

/* Shapes from data/README.md (UKgas has 108 quarters, 1960-1986, and
 * woolyrnq 119, 1965 Q1 to 1994 Q3; the README lists the two counts in the
 * other order). */
static const bundled_case bundled[] = {
    {"eu_stock_markets.csv", 4, "1", FC_DS_INDEX, {"CAC", "DAX", "FTSE", "SMI"},
     {1860, 1860, 1860, 1860}, {"1", "1", "1", "1"}, {"1860", "1860", "1860", "1860"}},
    {"monthly_classics.csv", 4, "MS", FC_DS_DATE, {"AirPassengers", "gas", "nottem", "wineind"},
     {144, 476, 240, 176}, {"1949-01-01", "1956-01-01", "1920-01-01", "1980-01-01"},
     {"1960-12-01", "1995-08-01", "1939-12-01", "1994-08-01"}},
    {"quarterly_classics.csv", 2, "QS", FC_DS_DATE, {"UKgas", "woolyrnq"}, {108, 119},
     {"1960-01-01", "1965-01-01"}, {"1986-10-01", "1994-07-01"}},
    {"sunspot_monthly.csv", 1, "MS", FC_DS_DATE, {"sunspot"}, {3177}, {"1749-01-01"}, {"2013-09-01"}},
    {"taylor_halfhourly.csv", 1, "30min", FC_DS_DATETIME, {"taylor"}, {4032},
     {"2000-06-05 00:00:00"}, {"2000-08-27 23:30:00"}},
};

/* Reads the file line by line with the C library (these files have no
 * quotes) and checks that row k of a series in file order is row k of the
 * loaded series: ds formats back to the same text, y equals strtod's value. */
static void check_round_trip(const fc_dataset *d, const char *path) {
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    if (!f) return;
    size_t *seen = calloc(d->n_series, sizeof *seen), rows = 0, bad = 0;
    char line[256], buf[32];
    fgets(line, sizeof line, f);  /* header */
    while (fgets(line, sizeof line, f)) {
        char *id = strtok(line, ","), *ds = strtok(NULL, ","), *y = strtok(NULL, ",\r\n");
        ssize_t s = id && ds && y ? fc_dataset_find(d, id) : -1;
        if (s < 0 || seen[s] >= fc_dataset_len(d, (size_t)s)) { bad++; continue; }
        size_t i = d->offsets[s] + seen[s]++;
        fc_ds_format(d->ds_kind, d->ds[i], buf, sizeof buf);
        bad += strcmp(buf, ds) != 0 || d->y[i] != strtod(y, NULL) || !d->mask[i];
        rows++;
    }
    fclose(f);
    CHECK_MSG(bad == 0 && rows == d->n_rows, "%s: %zu of %zu rows differ", path, bad, rows);
    free(seen);
}

static void test_bundled_files(void) {
    for (size_t k = 0; k < sizeof bundled / sizeof bundled[0]; k++) {
        const bundled_case *c = &bundled[k];
        char path[512], buf[32];
        snprintf(path, sizeof path, "%s/data/%s", FC_SOURCE_DIR, c->file);
        fc_dataset *d = NULL;
        fc_status st = fc_dataset_load_csv(path, NULL, &d);
        CHECK_MSG(st == FC_OK, "%s", fc_last_error());
        if (st != FC_OK) continue;
        CHECK_MSG(d->n_series == c->n_series && d->ds_kind == c->kind && d->n_filled == 0, "%s", c->file);
        CHECK_MSG(strcmp(d->freq.name, c->freq) == 0, "%s: freq %s, expected %s", c->file, d->freq.name, c->freq);
        CHECK(strcmp(d->source, path) == 0);
        for (size_t s = 0; s < c->n_series && s < d->n_series; s++) {
            CHECK_MSG(strcmp(d->ids[s], c->ids[s]) == 0, "%s: series %zu is %s", c->file, s, d->ids[s]);
            CHECK_MSG(fc_dataset_len(d, s) == c->lengths[s], "%s: %s has %zu points", c->file,
                      d->ids[s], fc_dataset_len(d, s));
            fc_ds_format(d->ds_kind, d->ds[d->offsets[s]], buf, sizeof buf);
            CHECK_MSG(strcmp(buf, c->first[s]) == 0, "%s: %s starts %s", c->file, d->ids[s], buf);
            fc_ds_format(d->ds_kind, d->ds[d->offsets[s + 1] - 1], buf, sizeof buf);
            CHECK_MSG(strcmp(buf, c->last[s]) == 0, "%s: %s ends %s", c->file, d->ids[s], buf);
        }
        check_round_trip(d, path);
        fc_dataset_free(&d);
    }
}

/* A forced frequency overrides inference: monthly data read as daily gets
 * every missing day between month starts filled. */
static void test_forced_freq_fills(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/data/quarterly_classics.csv", FC_SOURCE_DIR);
    fc_load_options opt = {.freq = "MS"};
    fc_dataset *d = NULL;
    CHECK(fc_dataset_load_csv(path, &opt, &d) == FC_OK);
    if (!d) return;
    /* 108 quarters -> 107 * 3 + 1 months; 119 -> 118 * 3 + 1. */
    CHECK(strcmp(d->freq.name, "MS") == 0 && d->n_rows == 322 + 355 && d->n_filled == 2 * (107 + 118));
    CHECK(d->mask[0] == 1 && d->mask[1] == 0 && d->mask[2] == 0 && d->mask[3] == 1);
    fc_dataset_free(&d);
}

/* A FIFO given as the data must be refused at once by both loaders, never
 * block in open or read (issue 10); the alarm turns a hang into a failure. */
static void test_fifo_refused(void) {
    char dir[] = "/tmp/fcast_test_csv_XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/data.csv", dir);
    CHECK(mkfifo(path, 0600) == 0);
    fc_load_options memory = {0}, stream = {.stream = 1, .store_dir = dir};
    const fc_load_options *how[] = {&memory, &stream};
    for (int i = 0; i < 2; i++) {
        fc_dataset *d = NULL;
        alarm(10);
        CHECK(fc_dataset_open(path, how[i], &d) == FC_ERR_IO);
        alarm(0);
        CHECK(d == NULL);
        CHECK_CONTAINS(fc_last_error(), path);
        CHECK_CONTAINS(fc_last_error(), "is not a regular file (a FIFO)");
    }
    size_t rows, bytes;
    alarm(10);
    CHECK(fc_csv_load_estimate(path, &memory, &rows, &bytes) == FC_ERR_IO);
    alarm(0);
    CHECK_CONTAINS(fc_last_error(), "(a FIFO)");
    CHECK(fc_dataset_open(dir, &memory, &(fc_dataset *){NULL}) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "is not a regular file (a directory)");
    remove(path);
    rmdir(dir);
}

/* Values up to float's maximum load; the ones past it are the error cases. */
static void test_float_range(void) {
    fc_dataset *d = load_text("unique_id,ds,y,x\na,1,3.4028234e38,-3.4e38\na,2,-340282346638528859811704183484516925440,1e-300\n", NULL);
    if (!d) return;
    CHECK(d->y[0] == 3.4028234e38 && d->y[1] == -340282346638528859811704183484516925440.0);
    CHECK(d->exog[0] == -3.4e38 && d->exog[1] == 1e-300);
    fc_dataset_free(&d);
}

int main(void) {
    test_fifo_refused();
    test_float_range();
    test_errors();
    test_missing_file();
    test_error_line_after_multiline_field();
    test_shuffled_rows_come_back_sorted();
    test_id_byte_order();
    test_quoted_fields();
    test_line_endings_and_bom();
    test_missing_values_are_masked();
    test_gaps_are_filled();
    test_keep_gaps();
    test_exog_columns_in_order();
    test_ds_kinds();
    test_values_round_correctly();
    test_bundled_files();
    test_forced_freq_fills();
    return CHECK_DONE();
}
