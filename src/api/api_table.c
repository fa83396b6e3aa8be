/* fcast_table (fcast.h): a long CSV file with its rows as given (no
 * frequency grid: trading days leave weekends out), as `fcast quant
 * indicators` and `fcast quant backtest` read --data. The loader's messages
 * name the file, the line and the series. */
#include <math.h>
#include <stdlib.h>

#include "fcast.h"
#include "core/error.h"
#include "data/dataset.h"

struct fcast_table {
    fc_dataset *d;
    int64_t *indptr;   /* (n_series + 1) */
    double *values;    /* (n_rows), NaN where y is missing */
};

void fcast_table_free(fcast_table *t) {
    if (!t) return;
    free(t->indptr);
    free(t->values);
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

fc_status fcast_table_read_csv(const char *path, fcast_table **out) {
    if (!path || !out) return fc_error(FC_ERR_INVALID, "fcast_table_read_csv: %s is NULL", !path ? "path" : "out");
    *out = NULL;
    fcast_table *t = calloc(1, sizeof *t);
    if (!t) return fc_error(FC_ERR_MEMORY, "fcast_table_read_csv: out of memory");
    fc_load_options opt = {0};
    opt.keep_gaps = 1;   /* prices on trading days: a weekend is not a missing value */
    opt.drop_exog = 1;
    fc_status st = fc_dataset_load_csv(path, &opt, &t->d);
    if (st == FC_OK) st = grouped(t);
    if (st != FC_OK) {
        fcast_table_free(t);
        return st;
    }
    *out = t;
    return FC_OK;
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
