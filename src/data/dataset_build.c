/* From parsed rows to a dataset (see raw_table.h): series ordered by
 * unique_id, rows grouped by series with a counting pass, each series sorted
 * by ds only when it is not already, duplicates and off-grid timestamps
 * reported with their lines, gaps on the frequency grid filled with masked
 * points. */
#include "data/raw_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "data/ds_text.h"
#include "data/freq.h"

typedef struct {
    int64_t ds;
    size_t row;  /* index in the raw table = file order, the tie-breaker */
} keyed_row;

typedef struct {
    const fc_raw_table *t;
    size_t n_series;
    uint32_t *series_of_id;  /* (N) position of each interned id in sorted order */
    uint32_t *id_of_series;  /* (N) the inverse */
    size_t *raw_offsets;     /* (N+1) parsed rows per sorted series */
    keyed_row *rows;         /* (n_rows) grouped by series, sorted by ds */
    int64_t *sorted_ds;      /* (n_rows) rows[i].ds, for frequency inference */
    size_t *out_offsets;     /* (N+1) after gap filling */
    fc_freq freq;
} build_state;

/* Stable sort of one series' rows by ds: insertion sort on runs of 16,
 * then bottom-up merges through `tmp` (n entries). Hand-written because
 * qsort's comparator calls made shuffled files 2x slower to load, and
 * stability keeps equal ds in file order for the duplicate message. */
static void sort_by_ds(keyed_row *a, keyed_row *tmp, size_t n) {
    enum { RUN = 16 };
    for (size_t lo = 0; lo < n; lo += RUN) {
        size_t hi = lo + RUN < n ? lo + RUN : n;
        for (size_t i = lo + 1; i < hi; i++) {
            keyed_row x = a[i];
            size_t j = i;
            for (; j > lo && a[j - 1].ds > x.ds; j--) a[j] = a[j - 1];
            a[j] = x;
        }
    }
    keyed_row *src = a, *dst = tmp;
    for (size_t width = RUN; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) dst[k++] = src[j].ds < src[i].ds ? src[j++] : src[i++];
            while (i < mid) dst[k++] = src[i++];
            while (j < hi) dst[k++] = src[j++];
        }
        keyed_row *swap = src; src = dst; dst = swap;
    }
    if (src != a) memcpy(a, src, n * sizeof *a);
}

static fc_status order_series(build_state *b) {
    return fc_id_table_order(&b->t->ids, b->series_of_id, b->id_of_series);
}

/* Counting sort of rows by series (stable, so file order survives within a
 * series), then a sort by ds of the series that need one. */
static fc_status group_rows(build_state *b) {
    const fc_raw_table *t = b->t;
    size_t *next = b->raw_offsets, longest = 0;
    memset(next, 0, (b->n_series + 1) * sizeof *next);
    for (size_t r = 0; r < t->n_rows; r++) next[b->series_of_id[t->series[r]] + 1]++;
    for (size_t s = 0; s < b->n_series; s++) {
        longest = next[s + 1] > longest ? next[s + 1] : longest;
        next[s + 1] += next[s];
    }
    for (size_t r = 0; r < t->n_rows; r++) {
        size_t at = next[b->series_of_id[t->series[r]]]++;
        b->rows[at] = (keyed_row){t->ds[r], r};
    }
    memmove(next + 1, next, b->n_series * sizeof *next);  /* next[s] was the end of s */
    next[0] = 0;
    keyed_row *tmp = NULL;
    for (size_t s = 0; s < b->n_series; s++) {
        keyed_row *first = b->rows + next[s];
        size_t n = next[s + 1] - next[s], i = 1;
        while (i < n && first[i - 1].ds <= first[i].ds) i++;
        if (i == n) continue;
        if (!tmp && !(tmp = fc_malloc(longest * sizeof *tmp, "row sort"))) return FC_ERR_MEMORY;
        sort_by_ds(first, tmp, n);
    }
    free(tmp);
    for (size_t i = 0; i < t->n_rows; i++) b->sorted_ds[i] = b->rows[i].ds;
    return FC_OK;
}

static const char *series_name(const build_state *b, size_t s) {
    return fc_id_table_str(&b->t->ids, b->id_of_series[s]);
}

fc_status fc_raw_duplicate_error(const fc_raw_table *t, const char *series, int64_t ds, size_t line,
                                 size_t first_line) {
    char id[64], when[40];
    fc_quote_field(series, strlen(series), id, sizeof id);
    fc_ds_format(t->kind, ds, when, sizeof when);
    return fc_raw_error(t, FC_ERR_PARSE, line, t->col_ds,
                        "duplicate (unique_id, ds) = (%s, %s): already at %s %zu; "
                        "each series may have one row per ds", id, when, t->row_noun ? t->row_noun : "line",
                        first_line);
}

static fc_status check_duplicates(const build_state *b) {
    const fc_raw_table *t = b->t;
    for (size_t s = 0; s < b->n_series; s++)
        for (size_t i = b->raw_offsets[s] + 1; i < b->raw_offsets[s + 1]; i++)
            if (b->rows[i].ds == b->rows[i - 1].ds)
                return fc_raw_duplicate_error(t, series_name(b, s), b->rows[i].ds, t->line[b->rows[i].row],
                                              t->line[b->rows[i - 1].row]);
    return FC_OK;
}

fc_status fc_raw_table_freq(const fc_raw_table *t, const fc_freq_counter *c, fc_freq *out) {
    if (t->opt.freq) {
        fc_status st = fc_freq_parse(t->opt.freq, t->kind, out);
        if (st != FC_OK) return fc_error_wrap(st, "%s: ", t->source);
        return FC_OK;
    }
    if (fc_freq_counter_result(c, out) || t->opt.keep_gaps) return FC_OK;   /* rows as given: no grid needed */
    return fc_raw_error(t, FC_ERR_INVALID, t->kind_line, t->col_ds,
                        "cannot infer the frequency: every series has a single row; pass "
                        "one (freq option: an integer step such as 1, or D, h, 30min, MS...)");
}

static fc_status resolve_freq(build_state *b) {
    if (b->t->opt.freq) return fc_raw_table_freq(b->t, NULL, &b->freq);
    fc_freq_counter c;
    fc_status st = FC_OK;
    fc_freq_counter_init(&c, b->t->kind);
    for (size_t i = 0; i < b->t->n_rows; i++) fc_freq_counter_point(&c, b->sorted_ds[i]);
    for (size_t s = 0; s < b->n_series && st == FC_OK; s++)
        for (size_t i = b->raw_offsets[s] + 1; i < b->raw_offsets[s + 1] && st == FC_OK; i++)
            st = fc_freq_counter_step(&c, b->sorted_ds[i - 1], b->sorted_ds[i]);
    if (st == FC_OK) st = fc_raw_table_freq(b->t, &c, &b->freq);
    fc_freq_counter_free(&c);
    return st;
}

fc_status fc_raw_off_grid_error(const fc_raw_table *t, const fc_freq *f, const char *series,
                                const fc_grid_point *at, const fc_grid_point *prev, const char *relation,
                                const char *hint) {
    char id[64], when[40], before[40], name[FC_FREQ_NAME_MAX];
    fc_quote_field(series, strlen(series), id, sizeof id);
    fc_freq_format(f, t->kind, name, sizeof name);
    fc_ds_format(t->kind, at->ds, when, sizeof when);
    if (!prev)
        return fc_raw_error(t, FC_ERR_PARSE, at->line, t->col_ds,
                            "%s (first point of series %s) is not %s, as frequency %s requires",
                            when, id, fc_freq_anchor_text(f), name);
    if (f->unit == FC_FREQ_BDAYS && !fc_freq_is_anchor(f, at->ds))   /* a weekend: say so, not "off the grid" */
        return fc_raw_error(t, FC_ERR_PARSE, at->line, t->col_ds,
                            "%s (a point of series %s) is not %s, as frequency %s requires",
                            when, id, fc_freq_anchor_text(f), name);
    fc_ds_format(t->kind, prev->ds, before, sizeof before);
    return fc_raw_error(t, FC_ERR_PARSE, at->line, t->col_ds,
                        "%s is %s the %s grid of series %s: the previous point is %s on line "
                        "%zu; %s", when, relation, name, id, before, prev->line, hint);
}

/* Point i of sorted series s against the grid (see fc_raw_off_grid_error). */
static fc_status off_grid_error(const build_state *b, size_t s, size_t i, const char *relation,
                                const char *hint) {
    const fc_raw_table *t = b->t;
    fc_grid_point at = {b->rows[i].ds, t->line[b->rows[i].row]};
    fc_grid_point prev = {i > 0 ? b->rows[i - 1].ds : 0, i > 0 ? t->line[b->rows[i - 1].row] : 0};
    return fc_raw_off_grid_error(t, &b->freq, series_name(b, s), &at, i == b->raw_offsets[s] ? NULL : &prev,
                                 relation, hint);
}

/* Series s as its first and last rows show it (a series whose last row
 * is off its grid counts its rows: plan_grid reports it). */
static fc_series_span series_span(const build_state *b, size_t s) {
    const fc_raw_table *t = b->t;
    const keyed_row *first = &b->rows[b->raw_offsets[s]], *last = &b->rows[b->raw_offsets[s + 1] - 1];
    fc_series_span sp = {series_name(b, s), {first->ds, t->line[first->row]}, {last->ds, t->line[last->row]},
                         b->raw_offsets[s + 1] - b->raw_offsets[s], 0};
    if (t->opt.keep_gaps || !fc_freq_grid_points(&b->freq, first->ds, last->ds, &sp.points) || sp.points < sp.rows)
        sp.points = sp.rows;
    return sp;
}

/* The caller's bounds on the points after gap filling, from each series'
 * first and last ds: before plan_grid walks the gaps, so that the bound
 * is what refuses a long fill rather than the ratio to the rows. */
static fc_status check_bounds(const build_state *b) {
    const fc_load_options *o = &b->t->opt;
    if (!o->max_points && !o->max_fill_bytes) return FC_OK;
    size_t total = 0;
    fc_series_span widest = {0};
    for (size_t s = 0; s < b->n_series; s++) {
        fc_series_span sp = series_span(b, s);
        total = total > SIZE_MAX - sp.points ? SIZE_MAX : total + sp.points;
        if (s == 0 || sp.points - sp.rows > widest.points - widest.rows) widest = sp;
    }
    return fc_fill_bounds_check(b->t, &b->freq, b->t->n_rows, total, &widest);
}

/* Checks every series against the grid and computes the filled offsets. */
static fc_status plan_grid(build_state *b, size_t *n_total) {
    if (b->t->opt.keep_gaps) {               /* the rows as given: no grid to check */
        memcpy(b->out_offsets, b->raw_offsets, (b->n_series + 1) * sizeof *b->out_offsets);
        *n_total = b->raw_offsets[b->n_series];
        return FC_OK;
    }
    size_t limit = fc_fill_limit(b->t->n_rows, b->t->n_exog), total = 0;
    b->out_offsets[0] = 0;
    for (size_t s = 0; s < b->n_series; s++) {
        size_t first = b->raw_offsets[s], end = b->raw_offsets[s + 1];
        if (!fc_freq_is_anchor(&b->freq, b->rows[first].ds))
            return off_grid_error(b, s, first, "", "");
        total++;
        for (size_t i = first + 1; i < end; i++) {
            int64_t steps;
            if (!fc_freq_steps_between(&b->freq, b->rows[i - 1].ds, b->rows[i].ds, &steps))
                return off_grid_error(b, s, i, "off",
                                      "fix the timestamp or pass a finer frequency");
            if ((uint64_t)steps > limit || total + (size_t)steps > limit)
                return off_grid_error(b, s, i, "too far from the previous point to fill the gap "
                                      "with missing points on",
                                      "check the value or pass a coarser frequency");
            total += (size_t)steps;
        }
        b->out_offsets[s + 1] = total;
    }
    *n_total = total;
    return FC_OK;
}

void fc_dataset_put_row(fc_dataset *d, size_t o, const fc_raw_table *t, size_t r) {
    d->ds[o] = t->ds[r];
    d->y[o] = t->y[r];
    d->mask[o] = t->mask[r];
    if (d->n_exog) memcpy(d->exog + o * d->n_exog, t->exog + r * t->n_exog, d->n_exog * sizeof *d->exog);
}

void fc_dataset_put_missing(fc_dataset *d, size_t o, int64_t ds) {
    d->ds[o] = ds;
    d->y[o] = 0.0;
    d->mask[o] = 0;
    for (size_t j = 0; j < d->n_exog; j++) d->exog[o * d->n_exog + j] = (double)NAN;
}

static void fill_values(const build_state *b, fc_dataset *d) {
    size_t o = 0;
    for (size_t s = 0; s < b->n_series; s++) {
        size_t first = b->raw_offsets[s], end = b->raw_offsets[s + 1];
        fc_dataset_put_row(d, o++, b->t, b->rows[first].row);
        for (size_t i = first + 1; i < end; i++) {
            int64_t steps = 0, from = b->rows[i - 1].ds;
            if (!b->t->opt.keep_gaps) fc_freq_steps_between(&b->freq, from, b->rows[i].ds, &steps);
            for (int64_t k = 1; k < steps; k++, d->n_filled++)
                fc_dataset_put_missing(d, o++, fc_freq_advance(&b->freq, from, k));
            fc_dataset_put_row(d, o++, b->t, b->rows[i].row);
        }
    }
}

static char *copy_string(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = fc_malloc(n, "dataset strings");
    if (p) memcpy(p, s, n);
    return p;
}

static fc_status make_dataset(const build_state *b, size_t n_total, fc_dataset **out) {
    const fc_raw_table *t = b->t;
    fc_dataset *d;
    FC_TRY(fc_dataset_alloc(b->n_series, n_total, t->n_exog, &d));
    fc_status st = FC_OK;
    if (!(d->source = copy_string(t->source))) st = FC_ERR_MEMORY;
    for (size_t s = 0; s < b->n_series && st == FC_OK; s++)
        if (!(d->ids[s] = copy_string(series_name(b, s)))) st = FC_ERR_MEMORY;
    for (size_t j = 0; j < t->n_exog && st == FC_OK; j++)
        if (!(d->exog_names[j] = copy_string(t->col_names[t->exog_cols[j]]))) st = FC_ERR_MEMORY;
    if (st != FC_OK) {
        fc_dataset_free(&d);
        return st;
    }
    memcpy(d->offsets, b->out_offsets, (b->n_series + 1) * sizeof *d->offsets);
    d->ds_kind = t->kind;
    d->freq = b->freq;
    fill_values(b, d);
    *out = d;
    return FC_OK;
}

static void free_state(build_state *b) {
    free(b->series_of_id);
    free(b->id_of_series);
    free(b->raw_offsets);
    free(b->rows);
    free(b->sorted_ds);
    free(b->out_offsets);
}

fc_status fc_raw_table_build(const fc_raw_table *t, fc_dataset **out) {
    build_state b = {.t = t, .n_series = t->ids.n};
    size_t n = b.n_series, n_total = 0;
    b.series_of_id = fc_malloc(n * sizeof *b.series_of_id, "series order");
    b.id_of_series = fc_malloc(n * sizeof *b.id_of_series, "series order");
    b.raw_offsets = fc_malloc((n + 1) * sizeof *b.raw_offsets, "series offsets");
    b.out_offsets = fc_malloc((n + 1) * sizeof *b.out_offsets, "series offsets");
    b.rows = fc_malloc(t->n_rows * sizeof *b.rows, "row order");
    b.sorted_ds = fc_malloc(t->n_rows * sizeof *b.sorted_ds, "row order");
    fc_status st = FC_ERR_MEMORY;
    if (b.series_of_id && b.id_of_series && b.raw_offsets && b.out_offsets && b.rows &&
        b.sorted_ds && (st = order_series(&b)) == FC_OK && (st = group_rows(&b)) == FC_OK &&
        (st = check_duplicates(&b)) == FC_OK && (st = resolve_freq(&b)) == FC_OK &&
        (st = check_bounds(&b)) == FC_OK && (st = plan_grid(&b, &n_total)) == FC_OK)
        st = make_dataset(&b, n_total, out);
    free_state(&b);
    return st;
}
