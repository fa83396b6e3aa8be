/* A forecast CSV as fcast predict and neuralforecast write it, read back
 * for plotting: unique_id, ds, then one column per model (NHITS) and
 * possibly interval columns named <MODEL>-lo-<LEVEL>, <MODEL>-hi-<LEVEL>.
 *
 * Not a dataset: there is no y column and no frequency grid to check,
 * only points to draw. Series keep the order of the file. */
#ifndef FC_REPORT_FORECAST_TABLE_H
#define FC_REPORT_FORECAST_TABLE_H

#include <stddef.h>
#include "data/dataset.h"

typedef struct {
    char *id;
    size_t n, cap;
    double *ds;       /* (n) ascending: seconds for dates, the index otherwise */
    double *v;        /* (n, n_cols) NaN where empty */
} fc_forecast_series;

typedef struct {
    char **cols;      /* (n_cols) value columns, in header order */
    size_t n_cols;
    fc_ds_kind kind;
    fc_forecast_series *series;
    size_t n_series, cap;
} fc_forecast_table;

/* Errors name path:line and the column. Rows of a series must come in
 * increasing ds order (as fcast predict writes them). */
fc_status fc_forecast_table_read(const char *path, fc_forecast_table *t);
fc_status fc_forecast_table_parse(const char *name, const char *text, size_t len, fc_forecast_table *t);
void fc_forecast_table_free(fc_forecast_table *t);

/* Index of the series or column with this name, or -1. */
long fc_forecast_table_series(const fc_forecast_table *t, const char *id);
long fc_forecast_table_column(const fc_forecast_table *t, const char *name);

/* 1 if column `name` is an interval bound (<MODEL>-lo-<L> or -hi-<L>). */
int fc_forecast_is_interval(const char *name);

#endif
