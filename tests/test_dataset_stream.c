/* The streaming loader against the in-memory one, which is the reference:
 * on the bundled data and on generated files with gaps, missing values,
 * exogenous columns and interleaved series, the two datasets must agree
 * value for value (bitwise, NaN included), with the store's prefix counts
 * equal to the mask's; every malformed case of the in-memory loader's test
 * must fail at the same line and column with the same explanation; the
 * faults only streaming has (rows out of order, a heap budget, a store
 * directory that does not exist) get their own messages; and a file whose
 * store is larger than the memory the load adds stays out of resident
 * memory (measured in a forked child). */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "core/error.h"
#include "core/memory_stats.h"
#include "data/dataset.h"
#include "csv_error_cases.h"

static char dir[] = "/tmp/fcast-stream-test-XXXXXX";

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    fwrite(text, 1, strlen(text), f);
    fclose(f);
}

static void compare_columns(const fc_dataset *a, const fc_dataset *b, const char *what) {
    size_t n = a->n_rows;
    CHECK_MSG(memcmp(a->offsets, b->offsets, (a->n_series + 1) * sizeof *a->offsets) == 0, "%s: offsets", what);
    CHECK_MSG(memcmp(a->ds, b->ds, n * sizeof *a->ds) == 0, "%s: ds", what);
    CHECK_MSG(memcmp(a->y, b->y, n * sizeof *a->y) == 0, "%s: y", what);
    CHECK_MSG(memcmp(a->mask, b->mask, n) == 0, "%s: mask", what);
    CHECK_MSG(memcmp(a->exog, b->exog, n * a->n_exog * sizeof(double)) == 0, "%s: exogenous values", what);
    uint32_t *counts = malloc((n + a->n_series) * sizeof *counts);
    fc_mask_prefix_counts(a->mask, a->offsets, a->n_series, counts);
    CHECK_MSG(b->observed && memcmp(counts, b->observed, (n + a->n_series) * sizeof *counts) == 0,
              "%s: prefix counts", what);
    free(counts);
}

/* Everything a dataset holds, memory (reference) against stream. */
static void compare(const fc_dataset *a, const fc_dataset *b, const char *what) {
    CHECK_MSG(a->n_series == b->n_series && a->n_rows == b->n_rows && a->n_exog == b->n_exog,
              "%s: %zu/%zu series, %zu/%zu rows", what, a->n_series, b->n_series, a->n_rows, b->n_rows);
    if (a->n_series != b->n_series || a->n_rows != b->n_rows || a->n_exog != b->n_exog) return;
    CHECK_MSG(a->n_filled == b->n_filled && a->ds_kind == b->ds_kind, "%s: filled %zu/%zu", what, a->n_filled,
              b->n_filled);
    CHECK_MSG(a->freq.unit == b->freq.unit && a->freq.step == b->freq.step && a->freq.month_end == b->freq.month_end &&
              strcmp(a->freq.name, b->freq.name) == 0, "%s: freq %s/%s", what, a->freq.name, b->freq.name);
    for (size_t i = 0; i < a->n_series; i++) CHECK_MSG(strcmp(a->ids[i], b->ids[i]) == 0, "%s: id %zu", what, i);
    for (size_t j = 0; j < a->n_exog; j++) CHECK(strcmp(a->exog_names[j], b->exog_names[j]) == 0);
    CHECK_MSG(a->map == NULL && b->map != NULL, "%s: only the streamed one is mapped", what);
    compare_columns(a, b, what);
}

static void check_same(const char *path, const fc_load_options *opt, const char *what) {
    fc_dataset *mem = NULL, *str = NULL;
    fc_status a = fc_dataset_load_csv(path, opt, &mem);
    CHECK_MSG(a == FC_OK, "%s: %s", what, fc_last_error());
    fc_status b = fc_dataset_stream_csv(path, opt, &str);
    CHECK_MSG(b == FC_OK, "%s: streaming: %s", what, fc_last_error());
    if (a == FC_OK && b == FC_OK) compare(mem, str, what);
    fc_dataset_free(&mem);
    fc_dataset_free(&str);
}

static void test_bundled_data(void) {
    static const char *files[] = {"data/eu_stock_markets.csv", "data/monthly_classics.csv",
                                  "data/quarterly_classics.csv", "data/sunspot_monthly.csv",
                                  "data/taylor_halfhourly.csv"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) check_same(files[i], NULL, files[i]);
    fc_load_options keep = {.keep_gaps = 1};
    check_same("data/eu_stock_markets.csv", &keep, "eu stocks, rows as given");
}

/* Rows ordered by ds, series interleaved (as panel data often is), with
 * gaps on the grid, empty and NaN targets, two exogenous columns with
 * missing cells, and ids that sort differently from their appearance. */
static void test_generated_panel(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/panel.csv", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "ds,unique_id,y,price,\"promo, flag\"\n");
    static const char *ids[] = {"zeta", "Alpha", "m\xC3\xBC", "beta", "\"q,uoted\""};
    for (int t = 0; t < 400; t++)
        for (int s = 0; s < 5; s++) {
            if ((t * 7 + s * 3) % 11 == 0 || (s == 3 && t < 37)) continue;   /* gaps and a late start */
            int day = t * 2 + (s == 4 ? 1 : 0);   /* a 2-day grid; one series offset by a day */
            const char *y = (t + s) % 13 == 0 ? "" : (t + s) % 17 == 0 ? "NaN" : NULL;
            fprintf(f, "%d,%s,", day, ids[s]);
            if (y) fprintf(f, "%s", y);
            else fprintf(f, "%.6g", 100.0 * s + t * 0.37 - (t % 5) * 1.25);
            fprintf(f, ",%s,%d\n", t % 9 == 0 ? "" : "3.5", t % 2);
        }
    fclose(f);
    check_same(path, NULL, "generated panel");
    fc_load_options given = {.freq = "2"};
    check_same(path, &given, "generated panel, freq given");
    fc_load_options drop = {.drop_exog = 1};
    check_same(path, &drop, "generated panel without exogenous columns");
}

static void test_month_ends(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/month_end.csv", dir);
    write_file(path, "unique_id,ds,y\nb,2001-01-31,1\nb,2001-02-28,2\nb,2001-05-31,3\n"
                     "a,2000-12-31,4\na,2001-01-31,5\n");
    check_same(path, NULL, "month ends");
}

/* The in-memory loader's malformed cases: the same failure, the same
 * explanation. The one exception is a gap too long to fill, which
 * streaming finds from a series' first and last points, not from the gap. */
static void test_same_errors(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/bad.csv", dir);
    for (size_t i = 0; i < sizeof error_cases / sizeof error_cases[0]; i++) {
        const error_case *c = &error_cases[i];
        write_file(path, c->csv);
        fc_load_options opt = {.freq = c->freq};
        fc_dataset *d = (fc_dataset *)&opt;
        fc_status st = fc_dataset_stream_csv(path, &opt, &d);
        CHECK_MSG(st != FC_OK && d == NULL, "case '%s' streamed", c->what);
        if (st == FC_OK) fc_dataset_free(&d);
        const char *msg = fc_last_error();
        int gap = strcmp(c->what, "huge gap") == 0;
        for (int k = 0; k < 4 && c->needles[k]; k++) {
            if (gap && k >= 2) break;
            CHECK_MSG(strstr(msg, c->needles[k]) != NULL, "case '%s': \"%s\" lacks \"%s\"", c->what, msg,
                      c->needles[k]);
        }
        if (gap) CHECK_CONTAINS(msg, "too many to fill");
    }
}

static void test_stream_only_errors(void) {
    char path[256];
    snprintf(path, sizeof path, "%s/order.csv", dir);
    write_file(path, "unique_id,ds,y\na,1,1\nb,1,1\na,3,1\nb,2,1\na,2,1\n");
    fc_dataset *d = NULL;
    CHECK(fc_dataset_stream_csv(path, NULL, &d) == FC_ERR_PARSE && d == NULL);
    CHECK_CONTAINS(fc_last_error(), "order.csv:6:");
    CHECK_CONTAINS(fc_last_error(), "column 'ds' (2)");
    CHECK_CONTAINS(fc_last_error(), "2 comes after 3 (line 4) in series 'a'");
    CHECK_CONTAINS(fc_last_error(), "sort the file by unique_id and ds");

    snprintf(path, sizeof path, "%s/many.csv", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "unique_id,ds,y\n");
    for (int s = 0; s < 20000; s++) fprintf(f, "series-%d,1,1\nseries-%d,2,2\n", s, s);
    fclose(f);
    fc_load_options small = {.max_heap = (size_t)6 << 20};
    CHECK(fc_dataset_stream_csv(path, &small, &d) == FC_ERR_MEMORY && d == NULL);
    CHECK_CONTAINS(fc_last_error(), "many.csv:");
    CHECK_CONTAINS(fc_last_error(), "series found so far");
    CHECK_CONTAINS(fc_last_error(), "MiB of buffers");
    CHECK(fc_dataset_stream_csv(path, NULL, &d) == FC_OK && d && d->n_series == 20000);
    fc_dataset_free(&d);

    /* Lengths whose sum wraps a size_t, and a huge gap in a series that is
     * off its grid: refused at once (they once wrote past the store, and
     * walked the gap point by point). */
    snprintf(path, sizeof path, "%s/wrap.csv", dir);
    f = fopen(path, "w");
    fprintf(f, "unique_id,ds,y\n");
    for (int s = 0; s < 10; s++) fprintf(f, "s%d,-999999999999999999,1\ns%d,999999999999999999,2\n", s, s);
    fclose(f);
    fc_load_options step1 = {.freq = "1"}, step2 = {.freq = "2"};
    CHECK(fc_dataset_stream_csv(path, &step1, &d) == FC_ERR_PARSE && d == NULL);
    CHECK_CONTAINS(fc_last_error(), "too many to fill");
    snprintf(path, sizeof path, "%s/far.csv", dir);
    write_file(path, "unique_id,ds,y\na,0,1\na,200000000000000000,2\na,200000000000000001,3\n");
    CHECK(fc_dataset_stream_csv(path, &step2, &d) == FC_ERR_PARSE && d == NULL);
    CHECK_CONTAINS(fc_last_error(), "far.csv:4:");
    CHECK_CONTAINS(fc_last_error(), "off the 2 grid");

    fc_load_options nowhere = {.store_dir = "/nonexistent/store"};
    CHECK(fc_dataset_stream_csv("data/eu_stock_markets.csv", &nowhere, &d) == FC_ERR_IO && d == NULL);
    CHECK_CONTAINS(fc_last_error(), "/nonexistent/store");
    CHECK_CONTAINS(fc_last_error(), "--store-dir");
}

/* 3M rows (a 57 MB store): streaming and reading every value must add far
 * less resident memory than the store holds, and the in-memory loader
 * must add more than it, or the comparison proves nothing. Measured in
 * forked children so each starts from the same state. */
static size_t peak_growth(const char *path, int stream) {
    int fd[2];
    if (pipe(fd) != 0) return 0;
    pid_t pid = fork();
    if (pid == 0) {
        fc_rss_reset_peak();
        size_t base = fc_rss_current(), grown = 0;
        fc_dataset *d = NULL;
        fc_status st = stream ? fc_dataset_stream_csv(path, NULL, &d) : fc_dataset_load_csv(path, NULL, &d);
        double sum = 0;
        for (size_t r = 0; st == FC_OK && r < d->n_rows; r++) {
            sum += d->y[r] * d->mask[r];
            if ((r & 0xfffff) == 0) fc_dataset_release_pages(d);
        }
        if (st == FC_OK && sum != 0) grown = fc_rss_peak() - base;
        (void)!write(fd[1], &grown, sizeof grown);
        _exit(0);
    }
    close(fd[1]);
    size_t grown = 0;
    if (read(fd[0], &grown, sizeof grown) != (ssize_t)sizeof grown) grown = 0;
    close(fd[0]);
    waitpid(pid, NULL, 0);
    return grown;
}

static void test_not_resident(void) {
    if (!CHECK_RESIDENT_SIZES) return;
    char path[256];
    snprintf(path, sizeof path, "%s/big.csv", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "unique_id,ds,y\n");
    for (int s = 0; s < 30; s++)
        for (int t = 0; t < 100000; t++) fprintf(f, "s%02d,%d,%d\n", s, t, (t * 31 + s) % 1000);
    fclose(f);
    size_t store = 3000000 * (8 + 8 + 1 + 4);
    size_t streamed = peak_growth(path, 1), loaded = peak_growth(path, 0);
    printf("3M rows: store %.1f MiB; peak growth streamed %.1f MiB, in memory %.1f MiB\n",
           store / 1048576.0, streamed / 1048576.0, loaded / 1048576.0);
    CHECK_MSG(streamed > 0 && loaded > 0, "a child failed");
    CHECK_MSG(loaded > store, "in memory: %zu bytes, not more than the store's %zu", loaded, store);
    CHECK_MSG(streamed < store / 2, "streamed: %zu bytes for a %zu-byte store", streamed, store);
    CHECK_MSG(streamed < fc_dataset_stream_heap(30, 90, 0, (size_t)40 << 20) + ((size_t)4 << 20), "streamed: %zu bytes over the bound",
              streamed);
}

int main(void) {
    if (!mkdtemp(dir)) return 1;
    setenv("TMPDIR", dir, 1);   /* the stores too */
    test_bundled_data();
    test_generated_panel();
    test_month_ends();
    test_same_errors();
    test_stream_only_errors();
    test_not_resident();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return CHECK_DONE();
}
