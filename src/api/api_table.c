/* fcast_table (fcast.h): a long CSV file with its rows as given (no
 * frequency grid: trading days leave weekends out), as `fcast quant
 * indicators` and `fcast quant backtest` read --data. The loader's messages
 * name the file, the line and the series. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fcast.h"
#include "core/error.h"
#include "data/dataset.h"

struct fcast_table {
    fc_dataset *d;
    int64_t *indptr;   /* (n_series + 1) */
    double *values;    /* (n_rows), NaN where y is missing */
    double **columns;  /* (d->n_exog) the other columns, each (n_rows); fcast_table_read_prices */
};

void fcast_table_free(fcast_table *t) {
    if (!t) return;
    free(t->indptr);
    free(t->values);
    for (size_t k = 0; t->columns && k < t->d->n_exog; k++) free(t->columns[k]);
    free(t->columns);
    fc_dataset_free(&t->d);
    free(t);
}

/* The grouped layout of d, NaN at its masked points. */
static fc_status grouped(fcast_table *t) {
    const fc_dataset *d = t->d;
    t->indptr = malloc((d->n_series + 1) * sizeof *t->indptr);
    t->values = malloc((d->n_rows ? d->n_rows : 1) * sizeof *t->values);
    if (!t->indptr || !t->values) return fc_error(FC_ERR_MEMORY, "fcast_table_read_csv: out of memory");
    for (size_t s = 0; s <= d->n_series; s++) t->indptr[s] = (int64_t)d->offsets[s];
    for (size_t i = 0; i < d->n_rows; i++) t->values[i] = d->mask[i] ? d->y[i] : NAN;
    return FC_OK;
}

/* The other columns, column by column; with no y in the file (every y
 * missing), the close stands for it. */
static fc_status split_columns(fcast_table *t) {
    const fc_dataset *d = t->d;
    t->columns = calloc(d->n_exog + 1, sizeof *t->columns);
    if (!t->columns) return fc_error(FC_ERR_MEMORY, "fcast_table_read_prices: out of memory");
    int any_y = 0;
    for (size_t i = 0; i < d->n_rows && !any_y; i++) any_y = d->mask[i];
    for (size_t k = 0; k < d->n_exog; k++) {
        if (!(t->columns[k] = malloc((d->n_rows ? d->n_rows : 1) * sizeof(double))))
            return fc_error(FC_ERR_MEMORY, "fcast_table_read_prices: out of memory");
        for (size_t i = 0; i < d->n_rows; i++) t->columns[k][i] = d->exog[i * d->n_exog + k];
        if (!any_y && !strcmp(d->exog_names[k], "close"))
            memcpy(t->values, t->columns[k], d->n_rows * sizeof(double));
    }
    return FC_OK;
}

static fc_status read_table(const char *fn, const char *path, int keep_columns, fcast_table **out) {
    if (!path || !out) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !path ? "path" : "out");
    *out = NULL;
    fcast_table *t = calloc(1, sizeof *t);
    if (!t) return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    fc_load_options opt = {0};
    opt.keep_gaps = 1;   /* prices on trading days: a weekend is not a missing value */
    opt.drop_exog = !keep_columns;
    opt.y_optional = keep_columns;
    fc_status st = fc_dataset_load_csv(path, &opt, &t->d);
    if (st == FC_OK) st = grouped(t);
    if (st == FC_OK && keep_columns) st = split_columns(t);
    if (st != FC_OK) {
        fcast_table_free(t);
        return st;
    }
    *out = t;
    return FC_OK;
}

fc_status fcast_table_read_csv(const char *path, fcast_table **out) {
    return read_table("fcast_table_read_csv", path, 0, out);
}

fc_status fcast_table_read_prices(const char *path, fcast_table **out) {
    return read_table("fcast_table_read_prices", path, 1, out);
}

size_t fcast_table_n_columns(const fcast_table *t) { return t && t->columns ? t->d->n_exog : 0; }

const char *fcast_table_column_name(const fcast_table *t, size_t k) {
    return k < fcast_table_n_columns(t) ? t->d->exog_names[k] : NULL;
}

const double *fcast_table_column(const fcast_table *t, const char *name) {
    if (!t || !name) return NULL;
    for (size_t k = 0; k < fcast_table_n_columns(t); k++)
        if (!strcmp(t->d->exog_names[k], name)) return t->columns[k];
    return NULL;
}

size_t fcast_table_n_series(const fcast_table *t) { return t ? t->d->n_series : 0; }

const char *fcast_table_id(const fcast_table *t, size_t i) { return t && i < t->d->n_series ? t->d->ids[i] : NULL; }

const int64_t *fcast_table_indptr(const fcast_table *t) { return t ? t->indptr : NULL; }

const double *fcast_table_values(const fcast_table *t) { return t ? t->values : NULL; }

fc_status fcast_table_ds_text(const fcast_table *t, size_t row, char *buf, size_t cap) {
    static const char fn[] = "fcast_table_ds_text";
    if (!t || !buf) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !t ? "t" : "buf");
    if (row >= t->d->n_rows)
        return fc_error(FC_ERR_INVALID, "%s: row = %zu: the table has %zu rows", fn, row, t->d->n_rows);
    if (cap < 48) return fc_error(FC_ERR_INVALID, "%s: cap = %zu: at least 48 bytes", fn, cap);
    fc_ds_format(t->d->ds_kind, t->d->ds[row], buf, cap);
    return FC_OK;
}
