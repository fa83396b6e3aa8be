/* Exogenous columns of a dataset (see exog_data.h): lookup by name, the
 * every-value-given check, and the future extension predict feeds the
 * models with. */
#include "data/exog_data.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "data/ds_text.h"
#include "data/freq.h"
#include "data/raw_table.h"

void fc_names_join(const char *const *names, const size_t *pick, size_t n, char *buf, size_t cap) {
    enum { CUT = 6 };   /* room kept for ", ..." and the NUL */
    size_t o = 0;
    if (cap < CUT) {
        if (cap) buf[0] = '\0';
        return;
    }
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char q[64];
        const char *name = names[pick ? pick[i] : i];
        fc_quote_field(name, strlen(name), q, sizeof q);
        size_t need = strlen(q) + (i ? 2 : 0);
        if (o + need + (i + 1 < n ? CUT : 1) > cap) {
            snprintf(buf + o, cap - o, "%s...", i ? ", " : "");
            return;
        }
        o += (size_t)snprintf(buf + o, cap - o, "%s%s", i ? ", " : "", q);
    }
}

static const char *source_of(const fc_dataset *d) {
    return d->source ? d->source : "<memory>";
}

/* unique_id, ds and y are the panel's own: never among the extra columns,
 * and "no column 'y'" would puzzle whoever sees y in the file. */
static int is_panel_column(const char *name) {
    return !strcmp(name, "y") || !strcmp(name, "unique_id") || !strcmp(name, "ds");
}

static fc_status panel_column_error(const fc_dataset *d, const char *name, const char *flag) {
    if (!strcmp(name, "y"))
        return fc_error(FC_ERR_INVALID, "%s: %s names y, the target, which cannot be an exogenous column (the "
                        "model reads the target's past values already)", source_of(d), flag);
    return fc_error(FC_ERR_INVALID, "%s: %s names %s, the series' %s column, which cannot be an exogenous column",
                    source_of(d), flag, name, name[0] == 'd' ? "time" : "id");
}

fc_status fc_exog_columns(const fc_dataset *d, const char *const *names, size_t n, const char *flag,
                          size_t *cols) {
    for (size_t j = 0; j < n; j++) {
        for (cols[j] = 0; cols[j] < d->n_exog && strcmp(d->exog_names[cols[j]], names[j]) != 0;) cols[j]++;
        if (cols[j] < d->n_exog) continue;
        if (is_panel_column(names[j])) return panel_column_error(d, names[j], flag);
        char name[64], found[400];
        fc_quote_field(names[j], strlen(names[j]), name, sizeof name);
        fc_names_join((const char *const *)d->exog_names, NULL, d->n_exog, found, sizeof found);
        if (d->n_exog == 0)
            return fc_error(FC_ERR_INVALID, "%s: no column %s (named by %s); it has no extra columns, "
                            "only unique_id, ds and y", source_of(d), name, flag);
        return fc_error(FC_ERR_INVALID, "%s: no column %s (named by %s); its extra columns are: %s",
                        source_of(d), name, flag, found);
    }
    return FC_OK;
}

/* A point the loader filled for a ds missing from the file has mask 0 and
 * every extra column NaN. A row of the file can look the same (y and every
 * extra column empty); n_filled rules that out when nothing was filled. */
static int is_filled_gap(const fc_dataset *d, size_t row) {
    if (d->n_filled == 0 || d->mask[row]) return 0;
    for (size_t j = 0; j < d->n_exog; j++)
        if (!isnan(d->exog[row * d->n_exog + j])) return 0;
    return 1;
}

/* Quoted id and formatted ds of a point, for messages. */
typedef struct {
    char id[64], when[40];
} point_text;

static point_text point_of(const fc_dataset *d, size_t s, int64_t ds) {
    point_text p;
    fc_quote_field(d->ids[s], strlen(d->ids[s]), p.id, sizeof p.id);
    fc_ds_format(d->ds_kind, ds, p.when, sizeof p.when);
    return p;
}

static fc_status not_finite_error(const fc_dataset *d, size_t s, size_t row, const char *column,
                                  const char *flag) {
    char name[64];
    point_text p = point_of(d, s, d->ds[row]);
    fc_quote_field(column, strlen(column), name, sizeof name);
    if (is_filled_gap(d, row))
        return fc_error(FC_ERR_INVALID, "%s: column %s (named by %s) has no value for series %s at ds "
                        "%s: ds %s is missing from the file and was filled as a gap; exogenous columns "
                        "need a value at every ds (add the row)", source_of(d), name, flag, p.id,
                        p.when, p.when);
    return fc_error(FC_ERR_INVALID, "%s: column %s (named by %s) is empty or NaN for series %s at ds "
                    "%s; exogenous columns need a value at every ds (neuralforecast would train on "
                    "NaN there: fill it in the file)", source_of(d), name, flag, p.id, p.when);
}

/* The first point of series s where one of the columns is not finite:
 * its row, and the column's place in cols, in *j. */
static int first_not_finite(const fc_dataset *d, size_t s, const size_t *cols, size_t n, size_t *row,
                            size_t *j) {
    for (*row = d->offsets[s]; *row < d->offsets[s + 1]; (*row)++)
        for (*j = 0; *j < n; (*j)++)
            if (!isfinite(d->exog[*row * d->n_exog + cols[*j]])) return 1;
    return 0;
}

/* Walks whole series, so a streamed dataset's pages are handed back at
 * fc_dataset_release_every's pace. */
fc_status fc_exog_check_finite(const fc_dataset *d, const size_t *cols, const char *const *names,
                               size_t n, const char *flag) {
    size_t since = 0, row, j;
    fc_status st = FC_OK;
    for (size_t s = 0; s < d->n_series && st == FC_OK && n; s++) {
        if (first_not_finite(d, s, cols, n, &row, &j)) st = not_finite_error(d, s, row, names[j], flag);
        fc_dataset_release_every(d, &since, fc_dataset_len(d, s), FC_RELEASE_POINTS);
    }
    fc_dataset_release_pages(d);
    return st;
}

/* ------------------------------------------------------- future extension */

typedef struct {
    const fc_dataset *hist, *futr;
    const size_t *hist_cols, *futr_cols;
    size_t n, h;
    fc_dataset *out;
    size_t since;   /* hist's points read since its pages were last handed back */
} extension;

/* The future ds come from hist's grid and are looked up in futr, so both
 * must count time alike; and that grid must be known and reach h ahead. */
static fc_status check_axes(const extension *e) {
    const fc_dataset *hist = e->hist, *futr = e->futr;
    if (futr && hist->ds_kind != futr->ds_kind)
        return fc_error(FC_ERR_INVALID, "%s has ds of kind '%s' but %s of kind '%s': the future values "
                        "must be on the data's time axis", source_of(futr), fc_ds_kind_name(futr->ds_kind),
                        source_of(hist), fc_ds_kind_name(hist->ds_kind));
    if (hist->freq.step <= 0)
        return fc_error(FC_ERR_INVALID, "%s: the frequency is unknown (every series has a single row): "
                        "pass it, so that predict knows each series' next ds", source_of(hist));
    if (hist->n_series && e->h > (SIZE_MAX - hist->n_rows) / hist->n_series)
        return fc_error(FC_ERR_INVALID, "a horizon of %zu for %zu series is too large", e->h,
                        hist->n_series);
    return fc_freq_check_future(hist, &hist->freq, e->h);
}

static fc_status copy_names(const fc_dataset *hist, fc_dataset *d) {
    if (!(d->source = strdup(source_of(hist)))) return fc_error(FC_ERR_MEMORY, "cannot copy a file name");
    for (size_t s = 0; s < hist->n_series; s++)
        if (!(d->ids[s] = strdup(hist->ids[s]))) return fc_error(FC_ERR_MEMORY, "cannot copy series ids");
    for (size_t j = 0; j < hist->n_exog; j++)
        if (!(d->exog_names[j] = strdup(hist->exog_names[j])))
            return fc_error(FC_ERR_MEMORY, "cannot copy column names");
    d->ds_kind = hist->ds_kind;
    d->freq = hist->freq;
    d->n_filled = hist->n_filled;
    return FC_OK;
}

static fc_status no_rows_error(const extension *e, size_t s) {
    char id[64], names[400];
    fc_quote_field(e->hist->ids[s], strlen(e->hist->ids[s]), id, sizeof id);
    fc_names_join((const char *const *)e->futr->exog_names, e->futr_cols, e->n, names, sizeof names);
    return fc_error(FC_ERR_INVALID, "%s has no rows for series %s: predict needs its next %zu values "
                    "of %s", source_of(e->futr), id, e->h, names);
}

static fc_status missing_ds_error(const extension *e, size_t s, int64_t last, int64_t when) {
    char names[400], grid[FC_FREQ_NAME_MAX], after[40];
    point_text p = point_of(e->hist, s, when);
    fc_names_join((const char *const *)e->futr->exog_names, e->futr_cols, e->n, names, sizeof names);
    fc_freq_format(&e->hist->freq, e->hist->ds_kind, grid, sizeof grid);
    fc_ds_format(e->hist->ds_kind, last, after, sizeof after);
    return fc_error(FC_ERR_INVALID, "%s has no row for series %s at ds %s: predict needs the series' "
                    "next %zu ds on the %s grid after its last ds %s in %s, each with values of %s",
                    source_of(e->futr), p.id, p.when, e->h, grid, after, source_of(e->hist), names);
}

static fc_status empty_value_error(const extension *e, size_t s, int64_t when, size_t j) {
    char name[64];
    const char *column = e->futr->exog_names[e->futr_cols[j]];
    point_text p = point_of(e->hist, s, when);
    fc_quote_field(column, strlen(column), name, sizeof name);
    return fc_error(FC_ERR_INVALID, "%s: column %s is empty or NaN for series %s at ds %s: predict "
                    "needs a value of every future-known column at each of a series' next %zu ds",
                    source_of(e->futr), name, p.id, p.when, e->h);
}

/* Future point k (1..h) of series s at output row o: hist's columns NaN
 * but the future-known ones, which come from futr's series fs. */
static fc_status put_future(const extension *e, size_t s, size_t fs, int64_t last, int64_t k, size_t o) {
    const fc_dataset *futr = e->futr;
    fc_dataset *d = e->out;
    int64_t when = fc_freq_advance(&e->hist->freq, last, k);
    fc_dataset_put_missing(d, o, when);
    if (e->n == 0) return FC_OK;
    ssize_t i = fc_dataset_find_ds(futr, fs, when);
    size_t row = futr->offsets[fs] + (size_t)i;
    if (i < 0 || is_filled_gap(futr, row)) return missing_ds_error(e, s, last, when);
    for (size_t j = 0; j < e->n; j++) {
        double v = futr->exog[row * futr->n_exog + e->futr_cols[j]];
        if (!isfinite(v)) return empty_value_error(e, s, when, j);
        d->exog[o * d->n_exog + e->hist_cols[j]] = v;
    }
    return FC_OK;
}

/* Series s of hist, then its h future points. A streamed hist is read
 * whole, so its pages are handed back as fc_dataset_release_every paces. */
static fc_status extend_series(extension *e, size_t s) {
    const fc_dataset *hist = e->hist;
    fc_dataset *d = e->out;
    size_t first = hist->offsets[s], len = fc_dataset_len(hist, s), o = d->offsets[s];
    if (len == 0)   /* loaded data never has one; a dataset built in memory might */
        return fc_error(FC_ERR_INVALID, "%s: series '%.64s' has no points to extend", source_of(hist),
                        hist->ids[s]);
    memcpy(d->ds + o, hist->ds + first, len * sizeof *d->ds);
    memcpy(d->y + o, hist->y + first, len * sizeof *d->y);
    memcpy(d->mask + o, hist->mask + first, len * sizeof *d->mask);
    memcpy(d->exog + o * d->n_exog, hist->exog + first * hist->n_exog, len * hist->n_exog * sizeof *d->exog);
    d->offsets[s + 1] = o + len + e->h;
    fc_dataset_release_every(hist, &e->since, len, FC_RELEASE_POINTS);
    ssize_t fs = e->h && e->n ? fc_dataset_find(e->futr, hist->ids[s]) : 0;
    if (fs < 0) return no_rows_error(e, s);
    int64_t last = hist->ds[first + len - 1];
    for (size_t k = 1; k <= e->h; k++) FC_TRY(put_future(e, s, (size_t)fs, last, (int64_t)k, o + len + k - 1));
    return FC_OK;
}

fc_status fc_futr_extend(const fc_dataset *hist, const fc_dataset *futr, const size_t *hist_cols,
                         const size_t *futr_cols, size_t n, size_t h, fc_dataset **out) {
    extension e = {hist, futr, hist_cols, futr_cols, n, h, NULL, 0};
    *out = NULL;
    FC_TRY(check_axes(&e));
    FC_TRY(fc_dataset_alloc(hist->n_series, hist->n_rows + hist->n_series * h, hist->n_exog, &e.out));
    fc_status st = copy_names(hist, e.out);
    for (size_t s = 0; s < hist->n_series && st == FC_OK; s++) st = extend_series(&e, s);
    fc_dataset_release_pages(hist);
    if (st != FC_OK) {
        fc_dataset_free(&e.out);
        return st;
    }
    *out = e.out;
    return FC_OK;
}
