/* fcast_data: panels from files and from the caller's arrays (fcast.h).
 * Arrays go through the CSV loader's own path (data/raw_table.h), so they
 * are grouped, sorted, checked and gap-filled exactly as a file is. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"
#include "data/raw_table.h"

int fcast_api_version(void) { return FCAST_API_VERSION; }

static fc_status wrap(fc_dataset *ds, fcast_data **out) {
    *out = calloc(1, sizeof **out);
    if (!*out) {
        fc_dataset_free(&ds);
        return fc_error(FC_ERR_MEMORY, "fcast_data: out of memory");
    }
    (*out)->ds = ds;
    return FC_OK;
}

static fc_status read_csv(const char *fn, const char *path, const fc_load_options *o, fcast_data **out) {
    if (!path || !out) return fc_error(FC_ERR_INVALID, "%s: path and out must not be NULL", fn);
    *out = NULL;
    fc_dataset *ds = NULL;
    FC_TRY(fc_dataset_load_csv(path, o, &ds));
    return wrap(ds, out);
}

fc_status fcast_data_read_csv(const char *path, fcast_data **out) {
    return read_csv("fcast_data_read_csv", path, &(fc_load_options){.drop_exog = 1}, out);
}

fc_status fcast_data_read_csv_exog(const char *path, fcast_data **out) {
    return read_csv("fcast_data_read_csv_exog", path, &(fc_load_options){0}, out);
}

/* The future values file of `fcast predict --futr-data`: no target needed,
 * rows as given (the forecast's dates need no grid of their own). */
fc_status fcast_data_read_future_csv(const char *path, fcast_data **out) {
    return read_csv("fcast_data_read_future_csv", path, &(fc_load_options){.y_optional = 1, .keep_gaps = 1}, out);
}

static const fc_ds_kind DS_KINDS[] = {FC_DS_INDEX, FC_DS_DATE, FC_DS_DATETIME};

static fc_status check_arrays(size_t n_series, const char *const *ids, const int64_t *indptr, fcast_ds_kind kind) {
    if (!n_series || !ids || !indptr)
        return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: needs at least one series, and ids and indptr");
    if ((unsigned)kind > FCAST_DS_DATETIME) return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: ds_kind %d "
                                                            "is not FCAST_DS_INDEX, _DATE or _DATETIME", (int)kind);
    if (indptr[0] != 0) return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: indptr[0] is %lld, not 0",
                                        (long long)indptr[0]);
    for (size_t i = 0; i < n_series; i++) {
        if (!ids[i]) return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: ids[%zu] is NULL", i);
        if (indptr[i + 1] <= indptr[i])
            return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: series %zu ('%s') is empty or indptr "
                            "decreases (indptr[%zu] = %lld, indptr[%zu] = %lld)", i, ids[i], i,
                            (long long)indptr[i], i + 1, (long long)indptr[i + 1]);
    }
    return FC_OK;
}

/* The extra columns' names: given, unique, and not one of the three the
 * panel has already. */
static fc_status check_columns(const fcast_column *cols, size_t n) {
    static const char *const taken[3] = {"unique_id", "ds", "y"};
    if (n && !cols) return fc_error(FC_ERR_INVALID, "fcast_data_from_columns: columns is NULL, n_columns %zu", n);
    for (size_t j = 0; j < n; j++) {
        if (!cols[j].name || !cols[j].name[0] || !cols[j].values)
            return fc_error(FC_ERR_INVALID, "fcast_data_from_columns: columns[%zu] needs a name and values", j);
        for (size_t k = 0; k < 3; k++)
            if (!strcmp(cols[j].name, taken[k]))
                return fc_error(FC_ERR_INVALID, "fcast_data_from_columns: columns[%zu] is named '%s', which the "
                                "panel has already", j, taken[k]);
        for (size_t k = 0; k < j; k++)
            if (!strcmp(cols[j].name, cols[k].name))
                return fc_error(FC_ERR_INVALID, "fcast_data_from_columns: columns[%zu] and columns[%zu] are both "
                                "named '%s'", k, j, cols[j].name);
    }
    return FC_OK;
}

/* The table's header: unique_id, ds, y, then the extra columns (borrowed
 * names, for the loader's messages). */
static fc_status set_header(fc_raw_table *t, const fcast_column *cols, size_t n) {
    t->n_cols = 3 + n;
    t->col_names = malloc(t->n_cols * sizeof *t->col_names);
    t->exog_cols = malloc((n ? n : 1) * sizeof *t->exog_cols);
    if (!t->col_names || !t->exog_cols) return fc_error(FC_ERR_MEMORY, "%s: out of memory", t->source);
    static char *const first[3] = {"unique_id", "ds", "y"};
    for (size_t k = 0; k < 3; k++) t->col_names[k] = first[k];
    for (size_t j = 0; j < n; j++) t->col_names[3 + j] = (char *)cols[j].name, t->exog_cols[j] = 3 + j;
    t->n_exog = n;
    t->col_id = 0, t->col_ds = 1, t->col_y = 2;
    return FC_OK;
}

/* A value of the arrays, y or an extra column (what: "y", "column 'x'"):
 * NaN (missing) or finite, and within float's range as the CSV loader
 * requires (data/dataset_parse.c): the windows reach the model as float,
 * where 1e39 is inf, so a prediction would be inf and training would blame
 * its learning rate. The message names the position, series and ds. */
static fc_status check_value(const fc_raw_table *t, size_t r, const char *id, const char *what, double v) {
    if (v != v || fabs(v) <= FLT_MAX) return FC_OK;
    char when[40];
    fc_ds_format(t->kind, t->ds[r], when, sizeof when);
    if (isinf(v))
        return fc_error(FC_ERR_INVALID, "%s, %s %zu (series '%s', ds %s): %s is %s; values must be finite (NaN: "
                        "missing)", t->source, t->row_noun, r, id, when, what, v > 0 ? "inf" : "-inf");
    return fc_error(FC_ERR_INVALID, "%s, %s %zu (series '%s', ds %s): %s is %g, beyond the float range "
                    "(magnitude above %g): expected a finite number the model can hold (rescale the column)",
                    t->source, t->row_noun, r, id, when, what, v, (double)FLT_MAX);
}

/* Row r's extra columns into t, each checked. */
static fc_status fill_exog(fc_raw_table *t, size_t r, const char *id, const fcast_column *cols) {
    for (size_t j = 0; j < t->n_exog; j++) {
        char what[80];
        double v = cols[j].values[r];
        snprintf(what, sizeof what, "column '%s'", cols[j].name);
        FC_TRY(check_value(t, r, id, what, v));
        t->exog[r * t->n_exog + j] = v;
    }
    return FC_OK;
}

/* The rows of the arrays into t, in their order; a row's "line" is its
 * position in y counted from 0, which messages name. y NULL: every y missing. */
static fc_status fill_rows(fc_raw_table *t, size_t n_series, const char *const *ids, const int64_t *indptr,
                           const double *y, const int64_t *ds, const fcast_column *cols) {
    size_t n = (size_t)indptr[n_series];
    t->series = malloc(n * sizeof *t->series);
    t->ds = malloc(n * sizeof *t->ds);
    t->y = malloc(n * sizeof *t->y);
    t->mask = malloc(n * sizeof *t->mask);
    t->line = malloc(n * sizeof *t->line);
    t->exog = t->n_exog ? malloc(n * t->n_exog * sizeof *t->exog) : NULL;
    if (!t->series || !t->ds || !t->y || !t->mask || !t->line || (t->n_exog && !t->exog))
        return fc_error(FC_ERR_MEMORY, "%s: out of memory", t->source);
    for (size_t s = 0; s < n_series; s++) {
        uint32_t id;
        FC_TRY(fc_id_table_intern(&t->ids, ids[s], strlen(ids[s]), &id));
        for (size_t r = (size_t)indptr[s]; r < (size_t)indptr[s + 1]; r++) {
            int missing = !y || y[r] != y[r];   /* NaN */
            t->series[r] = id;
            t->ds[r] = ds ? ds[r] : (int64_t)(r - (size_t)indptr[s]);
            if (!missing) FC_TRY(check_value(t, r, ids[s], "y", y[r]));
            t->y[r] = missing ? 0.0 : y[r];
            t->mask[r] = !missing;
            t->line[r] = r;
            FC_TRY(fill_exog(t, r, ids[s], cols));
        }
    }
    t->n_rows = t->cap = t->rows_read = n;
    return FC_OK;
}

fc_status fcast_data_from_columns(size_t n_series, const char *const *ids, const int64_t *indptr, const double *y,
                                  const int64_t *ds, fcast_ds_kind ds_kind, const char *freq,
                                  const fcast_column *columns, size_t n_columns, fcast_data **out) {
    if (!out) return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: out must not be NULL");
    *out = NULL;
    FC_TRY(check_arrays(n_series, ids, indptr, ds_kind));
    FC_TRY(check_columns(columns, n_columns));
    fc_raw_table t = {.source = "fcast_data_from_arrays", .row_noun = "position",
                      .opt = {.freq = ds ? freq : "1", .y_optional = !y, .keep_gaps = !y}};
    t.kind = ds ? DS_KINDS[ds_kind] : FC_DS_INDEX;
    fc_status st = set_header(&t, columns, n_columns);
    if (st == FC_OK) st = fill_rows(&t, n_series, ids, indptr, y, ds, columns);
    fc_dataset *d = NULL;
    if (st == FC_OK) st = fc_raw_table_build(&t, &d);
    free(t.col_names);   /* the names are borrowed: not fc_raw_table_free's to free */
    t.col_names = NULL, t.n_cols = 0;
    fc_raw_table_free(&t);
    return st == FC_OK ? wrap(d, out) : st;
}

fc_status fcast_data_from_arrays(size_t n_series, const char *const *ids, const int64_t *indptr, const double *y,
                                 const int64_t *ds, fcast_ds_kind ds_kind, const char *freq, fcast_data **out) {
    if (!y) return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: y must not be NULL");
    return fcast_data_from_columns(n_series, ids, indptr, y, ds, ds_kind, freq, NULL, 0, out);
}

size_t fcast_data_n_series(const fcast_data *d) { return d && d->ds ? d->ds->n_series : 0; }

const char *fcast_data_id(const fcast_data *d, size_t i) {
    return d && d->ds && i < d->ds->n_series ? d->ds->ids[i] : NULL;
}

void fcast_data_free(fcast_data *d) {
    if (!d) return;
    fc_dataset_free(&d->ds);
    free(d->path);
    free(d);
}
