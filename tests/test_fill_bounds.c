/* Bounds on the points gap filling makes (fc_load_options.max_points and
 * max_fill_bytes): two rows 57 years apart fill to 999,361 half-hours, a
 * count no look at the rows foresees. Checked here:
 *   - fc_freq_grid_points counts a series' points after filling from its
 *     first and last ds alone, on fixed and calendar grids (months,
 *     quarters, years, month ends, weeks, leap days);
 *   - both loaders (whole and streamed) refuse data past either bound with
 *     FC_ERR_MEMORY naming the file, line, series and its filled count,
 *     the bound inclusive; the bound wins over the ratio rule of
 *     fc_fill_limit (a memory refusal, not a parse error);
 *   - refused before the columns are allocated: the peak resident size
 *     does not grow by the 17 MB the fill would take;
 *   - fc_data_choose (train, predict, plan) bounds the fill by the data's
 *     share of --memory-limit, and without a limit of the memory available
 *     now. */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "core/error.h"
#include "core/memory_stats.h"
#include "data/dataset.h"
#include "data/ds_text.h"
#include "data/freq.h"
#include "train/data_budget.h"

static char dir[] = "/tmp/fcast-fill-bounds-XXXXXX";

/* Series 'a': two rows 57 years apart, on the half-hourly grid series 'b'
 * lets the loader infer: 999,361 + 3 points after filling, 999,359 added. */
#define GAP_CSV                                                                \
    "unique_id,ds,y\na,2000-01-01 00:00:00,1\na,2057-01-01 00:00:00,2\n"       \
    "b,2000-01-01 00:00:00,1\nb,2000-01-01 00:30:00,2\nb,2000-01-01 01:00:00,3\n"
#define GAP_POINTS 999364
#define GAP_FILLED 999359

static int64_t when(const char *text) {
    fc_ds_kind kind;
    int64_t v = 0;
    CHECK_MSG(fc_ds_parse(text, strlen(text), &kind, &v), "cannot parse %s", text);
    return v;
}

typedef struct {
    const char *freq, *from, *to;
    int on_grid;
    size_t points;
} grid_case;

static void test_grid_points(void) {
    static const grid_case cases[] = {
        {"30min", "2000-01-01 00:00:00", "2057-01-01 00:00:00", 1, 999361},   /* 15 leap days */
        {"h", "2000-01-01 00:00:00", "2000-01-01 00:00:00", 1, 1},
        {"D", "2000-01-01", "2001-01-01", 1, 367},
        {"W", "2000-01-03", "2000-12-25", 1, 52},
        {"MS", "1900-01-01", "2899-12-01", 1, 12000},
        {"QS", "2000-01-01", "2099-10-01", 1, 400},
        {"YS", "0001-01-01", "9999-01-01", 1, 9999},
        {"ME", "2000-01-31", "2000-12-31", 1, 12},   /* through 2000-02-29 */
        {"QE", "2000-03-31", "2010-12-31", 1, 44},
        {"2MS", "2000-01-01", "2000-11-01", 1, 6},
        {"MS", "2000-01-01", "2000-02-15", 0, 0},
        {"30min", "2000-01-01 00:00:00", "2000-01-01 00:45:00", 0, 0},
        {"2MS", "2000-01-01", "2000-02-01", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const grid_case *c = &cases[i];
        fc_freq f;
        fc_ds_kind kind;
        int64_t a;
        fc_ds_parse(c->from, strlen(c->from), &kind, &a);
        CHECK(fc_freq_parse(c->freq, kind, &f) == FC_OK);
        size_t points = 0;
        int on = fc_freq_grid_points(&f, a, when(c->to), &points);
        CHECK_MSG(on == c->on_grid && (!on || points == c->points), "%s %s..%s: %d, %zu points (expected %d, %zu)",
                  c->freq, c->from, c->to, on, points, c->on_grid, c->points);
    }
    fc_freq step;
    CHECK(fc_freq_parse("7", FC_DS_INDEX, &step) == FC_OK);
    size_t points = 0;
    CHECK(fc_freq_grid_points(&step, -7, 700, &points) && points == 102);
    fc_freq one;   /* a span past INT64_MAX steps: kept at INT64_MAX, which the bounds refuse */
    CHECK(fc_freq_parse("1", FC_DS_INDEX, &one) == FC_OK);
    CHECK(fc_freq_grid_points(&one, INT64_MIN, INT64_MAX, &points) && points == (size_t)INT64_MAX + 1);
}

typedef fc_status (*loader)(const char *, const fc_load_options *, fc_dataset **);
typedef struct {
    const char *name;
    loader load;
} loader_entry;

static const loader_entry loaders[] = {{"whole", fc_dataset_load_csv}, {"streamed", fc_dataset_stream_csv}};

/* The load of path under o must fail with FC_ERR_MEMORY and every needle. */
static void check_refused(const loader_entry *l, const char *path, const fc_load_options *o, const char *const *needles) {
    fc_dataset *d = (fc_dataset *)o;
    fc_status st = l->load(path, o, &d);
    CHECK_MSG(st == FC_ERR_MEMORY && d == NULL, "%s %s: status %d (%s)", l->name, path, st, fc_last_error());
    if (st == FC_OK) fc_dataset_free(&d);
    for (const char *const *n = needles; *n; n++)
        CHECK_MSG(strstr(fc_last_error(), *n) != NULL, "%s: \"%s\" lacks \"%s\"", l->name, fc_last_error(), *n);
}

static void check_loads(const loader_entry *l, const char *path, const fc_load_options *o, size_t rows) {
    fc_dataset *d = NULL;
    fc_status st = l->load(path, o, &d);
    CHECK_MSG(st == FC_OK && d && d->n_rows == rows, "%s %s: status %d, %zu rows (%s)", l->name, path, st,
              d ? d->n_rows : 0, st == FC_OK ? "" : fc_last_error());
    fc_dataset_free(&d);
}

/* max_points is inclusive and counts the points after filling; the freq
 * inferred from 'b' or given gives the same count. */
static void test_max_points(const loader_entry *l, const char *path) {
    const char *needles[] = {"gap.csv:3: column 'ds' (2): series 'a' runs from 2000-01-01 00:00:00 (line 2) to "
                             "2057-01-01 00:00:00 on the 30min grid: its 2 rows are 999361 points after gap filling",
                             "the data's 999364 points after gap filling pass the limit of 999363 (max_points)", NULL};
    fc_load_options o = {.max_points = GAP_POINTS - 1, .bound_name = "max_points"};
    check_refused(l, path, &o, needles);
    o.freq = "30min";
    check_refused(l, path, &o, needles);
    o.max_points = GAP_POINTS;
    check_loads(l, path, &o, GAP_POINTS);
}

static void test_max_fill_bytes(const loader_entry *l, const char *path) {
    const char *needles[] = {"series 'a'", "999361 points after gap filling",
                             "the 999359 points gap filling adds would take 16.2 MiB at 17 bytes a point, more "
                             "than the 16.2 MiB left by the test's bound", NULL};
    fc_load_options o = {.max_fill_bytes = GAP_FILLED * 17 - 1, .bound_name = "the test's bound"};
    check_refused(l, path, &o, needles);
    o.max_fill_bytes = GAP_FILLED * 17;
    check_loads(l, path, &o, GAP_POINTS);
}

/* Calendar grids count calendar steps: 1,000 years of month starts. */
static void test_months(const loader_entry *l, const char *path) {
    const char *needles[] = {"months.csv:3:", "series 'm' runs from 1900-01-01 (line 2) to 2899-12-01 on the MS grid: "
                             "its 2 rows are 12000 points after gap filling", "pass the limit of 11999", NULL};
    fc_load_options o = {.freq = "MS", .max_points = 11999, .bound_name = "max_points"};
    check_refused(l, path, &o, needles);
    o.max_points = 12000;
    check_loads(l, path, &o, 12000);
}

/* A gap beyond fc_fill_limit's ratio to the rows, which alone is a parse
 * error: with a bound, the bound refuses it first, as a memory refusal. */
static void test_bound_before_ratio(const loader_entry *l, const char *path) {
    const char *needles[] = {"series 'a'", "1000000001 points after gap filling", "pass the limit of 10", NULL};
    fc_load_options o = {.freq = "1", .max_points = 10, .bound_name = "max_points"};
    check_refused(l, path, &o, needles);
    fc_dataset *d = NULL;
    CHECK(l->load(path, &(fc_load_options){.freq = "1"}, &d) == FC_ERR_PARSE && d == NULL);
}

/* The refusal comes before the columns: the peak resident size grows by
 * far less than the 17 MB the filled points would take. */
static void test_refused_before_allocating(const char *path) {
    if (!CHECK_RESIDENT_SIZES) return;
    fc_load_options o = {.max_points = 1000, .bound_name = "max_points"};
    for (size_t k = 0; k < 2; k++) {
        fc_dataset *d = NULL;
        fc_rss_reset_peak();
        size_t before = fc_rss_current();
        CHECK(loaders[k].load(path, &o, &d) == FC_ERR_MEMORY);
        size_t grown = fc_rss_peak() - before;
        CHECK_MSG(grown < ((size_t)4 << 20), "%s: the peak grew by %zu bytes", loaders[k].name, grown);
    }
}

/* train, predict and plan choose how to load with fc_data_choose: under
 * --memory-limit the fill gets the data's share of what the limit leaves
 * (all of it for --data-store memory, half otherwise), whatever the store. */
static void test_data_choose(const char *path) {
    static const fc_data_store modes[] = {FC_DATA_MEMORY, FC_DATA_STREAM, FC_DATA_AUTO};
    for (size_t k = 0; k < 3; k++) {
        fc_load_options lo = {0};
        fc_data_choice c;
        CHECK(fc_data_choose(path, &lo, modes[k], (size_t)24 << 20, &c) == FC_OK);
        /* an explicit memory store may take all the 8 MiB the limit leaves beyond 16 MiB, as it may load
         * rows; the others auto's half */
        size_t share = modes[k] == FC_DATA_MEMORY ? (size_t)8 << 20 : (size_t)4 << 20;
        CHECK_MSG(lo.max_fill_bytes > share / 2 && lo.max_fill_bytes <= share, "mode %zu: %zu bytes", k,
                  lo.max_fill_bytes);
        fc_dataset *d = NULL;
        CHECK(fc_dataset_open(path, &lo, &d) == FC_ERR_MEMORY && d == NULL);
        CHECK_CONTAINS(fc_last_error(), "series 'a'");
        CHECK_CONTAINS(fc_last_error(), "999361 points after gap filling");
        CHECK_CONTAINS(fc_last_error(), "left by --memory-limit");
    }
    /* without a limit: the memory available now, as --windows-batch-size auto takes it */
    fc_load_options lo = {0};
    fc_data_choice c;
    CHECK(fc_data_choose(path, &lo, FC_DATA_AUTO, 0, &c) == FC_OK);
    size_t avail = fc_memory_available();
    CHECK_MSG(avail == 0 || (lo.max_fill_bytes > avail / 4 && lo.max_fill_bytes < avail), "%zu against %zu",
              lo.max_fill_bytes, avail);
    CHECK(lo.bound_name && strstr(lo.bound_name, "the memory available now"));
}

int main(void) {
    CHECK(mkdtemp(dir) != NULL);
    char gap[256], months[256], far[256];
    snprintf(gap, sizeof gap, "%s/gap.csv", dir);
    snprintf(months, sizeof months, "%s/months.csv", dir);
    snprintf(far, sizeof far, "%s/far.csv", dir);
    check_write_text(gap, GAP_CSV);
    check_write_text(months, "unique_id,ds,y\nm,1900-01-01,1\nm,2899-12-01,2\n");
    check_write_text(far, "unique_id,ds,y\na,0,1\na,1000000000,2\n");
    test_grid_points();
    for (size_t k = 0; k < 2; k++) {
        test_max_points(&loaders[k], gap);
        test_max_fill_bytes(&loaders[k], gap);
        test_months(&loaders[k], months);
        test_bound_before_ratio(&loaders[k], far);
    }
    test_refused_before_allocating(gap);
    test_data_choose(gap);
    unlink(gap);
    unlink(months);
    unlink(far);
    rmdir(dir);
    return CHECK_DONE();
}
