/* fcast_data: panels from files and from the caller's arrays (fcast.h).
 * Arrays go through the CSV loader's own path (data/raw_table.h), so they
 * are grouped, sorted, checked and gap-filled exactly as a file is. */
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

fc_status fcast_data_read_csv(const char *path, fcast_data **out) {
    if (!path || !out) return fc_error(FC_ERR_INVALID, "fcast_data_read_csv: path and out must not be NULL");
    *out = NULL;
    fc_dataset *ds = NULL;
    FC_TRY(fc_dataset_load_csv(path, &(fc_load_options){.drop_exog = 1}, &ds));
    return wrap(ds, out);
}

static const fc_ds_kind DS_KINDS[] = {FC_DS_INDEX, FC_DS_DATE, FC_DS_DATETIME};

static fc_status check_arrays(size_t n_series, const char *const *ids, const int64_t *indptr, const double *y,
                              fcast_ds_kind kind) {
    if (!n_series || !ids || !indptr || !y)
        return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: needs at least one series, and ids, indptr and y");
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

/* The rows of the arrays into t, in their order; a row's "line" is its
 * position in y counted from 0, which messages name. */
static fc_status fill_rows(fc_raw_table *t, size_t n_series, const char *const *ids, const int64_t *indptr,
                           const double *y, const int64_t *ds) {
    size_t n = (size_t)indptr[n_series];
    t->series = malloc(n * sizeof *t->series);
    t->ds = malloc(n * sizeof *t->ds);
    t->y = malloc(n * sizeof *t->y);
    t->mask = malloc(n * sizeof *t->mask);
    t->line = malloc(n * sizeof *t->line);
    if (!t->series || !t->ds || !t->y || !t->mask || !t->line) return fc_error(FC_ERR_MEMORY, "%s: out of memory",
                                                                              t->source);
    for (size_t s = 0; s < n_series; s++) {
        uint32_t id;
        FC_TRY(fc_id_table_intern(&t->ids, ids[s], strlen(ids[s]), &id));
        for (size_t r = (size_t)indptr[s]; r < (size_t)indptr[s + 1]; r++) {
            int missing = y[r] != y[r];   /* NaN */
            t->series[r] = id;
            t->ds[r] = ds ? ds[r] : (int64_t)(r - (size_t)indptr[s]);
            t->y[r] = missing ? 0.0 : y[r];
            t->mask[r] = !missing;
            t->line[r] = r;
        }
    }
    t->n_rows = t->cap = t->rows_read = n;
    return FC_OK;
}

fc_status fcast_data_from_arrays(size_t n_series, const char *const *ids, const int64_t *indptr, const double *y,
                                 const int64_t *ds, fcast_ds_kind ds_kind, const char *freq, fcast_data **out) {
    if (!out) return fc_error(FC_ERR_INVALID, "fcast_data_from_arrays: out must not be NULL");
    *out = NULL;
    FC_TRY(check_arrays(n_series, ids, indptr, y, ds_kind));
    static char *const names[3] = {"unique_id", "ds", "y"};
    fc_raw_table t = {.source = "fcast_data_from_arrays, position", .opt = {.freq = ds ? freq : "1"}};
    t.n_cols = 3;
    t.col_id = 0, t.col_ds = 1, t.col_y = 2;
    t.kind = ds ? DS_KINDS[ds_kind] : FC_DS_INDEX;
    fc_status st = fill_rows(&t, n_series, ids, indptr, y, ds);
    fc_dataset *d = NULL;
    t.col_names = (char **)names;   /* borrowed for the messages; not freed below */
    if (st == FC_OK) st = fc_raw_table_build(&t, &d);
    t.col_names = NULL, t.n_cols = 0;
    fc_raw_table_free(&t);
    return st == FC_OK ? wrap(d, out) : st;
}

size_t fcast_data_n_series(const fcast_data *d) { return d && d->ds ? d->ds->n_series : 0; }

const char *fcast_data_id(const fcast_data *d, size_t i) {
    return d && d->ds && i < d->ds->n_series ? d->ds->ids[i] : NULL;
}

void fcast_data_free(fcast_data *d) {
    if (!d) return;
    fc_dataset_free(&d->ds);
    free(d);
}
