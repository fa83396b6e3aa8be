/* fcast_data_set_static: neuralforecast's static_df from the caller's
 * arrays, checked as the static file's loader checks its rows (unique
 * ids, named columns, finite values) and attached by the loader's own
 * code (data/static_table.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"
#include "data/static_table.h"

#define WHO "fcast_data_set_static"

static fc_status check_args(const fcast_data *d, size_t n_rows, const char *const *ids, const fcast_column *cols,
                            size_t n_cols) {
    if (!d || !d->ds || !n_rows || !ids || !n_cols || !cols)
        return fc_error(FC_ERR_INVALID, WHO ": needs the data, at least one row with its ids and one column");
    for (size_t j = 0; j < n_cols; j++) {
        if (!cols[j].name || !cols[j].name[0] || !cols[j].values)
            return fc_error(FC_ERR_INVALID, WHO ": columns[%zu] needs a name and values", j);
        for (size_t k = 0; k < j; k++)
            if (!strcmp(cols[j].name, cols[k].name))
                return fc_error(FC_ERR_INVALID, WHO ": columns[%zu] and columns[%zu] are both named '%s'", k, j,
                                cols[j].name);
        for (size_t r = 0; r < n_rows; r++) {
            double v = cols[j].values[r];
            if (!isfinite(v))
                return fc_error(FC_ERR_INVALID, WHO ": column '%s', row %zu (series '%s'): %g; static values "
                                "must be given and finite", cols[j].name, r, ids[r] ? ids[r] : "(null)", v);
            if (fabs(v) > FLT_MAX)   /* the static file's limit (data/static_table.c): models read floats */
                return fc_error(FC_ERR_INVALID, WHO ": column '%s', row %zu (series '%s'): %g is beyond the float "
                                "range (magnitude above %g): expected a finite number the model can hold (rescale "
                                "the column)", cols[j].name, r, ids[r] ? ids[r] : "(null)", v, (double)FLT_MAX);
        }
    }
    return FC_OK;
}

/* The ids, each once (interning numbers them in order: a repeat's number
 * is its first row's). */
static fc_status intern_ids(fc_static_table *t, const char *const *ids) {
    for (size_t r = 0; r < t->n_rows; r++) {
        uint32_t id;
        if (!ids[r]) return fc_error(FC_ERR_INVALID, WHO ": ids[%zu] is NULL", r);
        FC_TRY(fc_id_table_intern(&t->ids, ids[r], strlen(ids[r]), &id));
        if (id < r)
            return fc_error(FC_ERR_INVALID, WHO ": rows %u and %zu are both series '%s'; one row per series",
                            (unsigned)id, r, ids[r]);
        t->line[r] = r;
    }
    return FC_OK;
}

static fc_status fill(fc_static_table *t, const char *const *ids, const fcast_column *cols) {
    t->source = strdup(WHO " (static values)");
    t->col_names = calloc(t->n_cols, sizeof *t->col_names);
    t->line = malloc(t->n_rows * sizeof *t->line);
    t->values = malloc(t->n_rows * t->n_cols * sizeof *t->values);
    if (!t->source || !t->col_names || !t->line || !t->values) return fc_error(FC_ERR_MEMORY, WHO ": out of memory");
    for (size_t j = 0; j < t->n_cols; j++) {
        if (!(t->col_names[j] = strdup(cols[j].name))) return fc_error(FC_ERR_MEMORY, WHO ": out of memory");
        for (size_t r = 0; r < t->n_rows; r++) t->values[r * t->n_cols + j] = cols[j].values[r];
    }
    return intern_ids(t, ids);
}

fc_status fcast_data_set_static(fcast_data *d, size_t n_rows, const char *const *ids, const fcast_column *columns,
                                size_t n_columns) {
    FC_TRY(check_args(d, n_rows, ids, columns, n_columns));
    fc_static_table *t = calloc(1, sizeof *t);
    if (!t) return fc_error(FC_ERR_MEMORY, WHO ": out of memory");
    t->n_rows = n_rows, t->n_cols = n_columns;
    fc_status st = fill(t, ids, columns);
    if (st == FC_OK) st = fc_dataset_attach_static_table(d->ds, t);
    fc_static_table_free(&t);
    return st;
}

fc_status fcast_data_read_static_csv(fcast_data *d, const char *path) {
    if (!d || !d->ds || !path) return fc_error(FC_ERR_INVALID, "fcast_data_read_static_csv: data and path are needed");
    return fc_dataset_attach_static(d->ds, path);
}
