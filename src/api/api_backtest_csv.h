/* The keyed CSV files of the portfolio backtester (a signal file, a
 * forecast file of `fcast predict` or `fcast cv`), read against the price
 * table they trade on: each row's series and ds located among the
 * table's rows, its number columns parsed, its line kept for messages. */
#ifndef FC_API_API_BACKTEST_CSV_H
#define FC_API_API_BACKTEST_CSV_H

#include <stddef.h>
#include "fcast.h"

#define FC_BT_CSV_MAX_VALUES 2

typedef struct {
    size_t series;   /* in the price table */
    int64_t ds, cutoff;   /* parsed (cutoff: when the file has one) */
    double value[FC_BT_CSV_MAX_VALUES];
    size_t line;
} fc_bt_csv_row;

typedef struct {
    fc_bt_csv_row *rows;
    size_t n_rows;
    int has_cutoff;
    char **header;    /* the file's column names */
    size_t n_header;
} fc_bt_csv;

/* The price table's ds, parsed, one per row (*out malloc'd). */
fc_status fc_bt_table_ds(const fcast_table *t, int64_t **out);

/* path's rows: unique_id and ds (and cutoff when want_cutoff and the file
 * has it) and the number columns `columns` (n_columns <= 2; a name NULL:
 * the first column that is none of unique_id, ds, cutoff, y). Every
 * unique_id must be a series of t. `flag` names the file's flag in
 * messages ("--signal FILE, line 12, column position: ..."). Empty or NaN
 * numbers are errors. */
fc_status fc_bt_csv_read(const char *flag, const char *path, const fcast_table *t, int want_cutoff,
                         const char *const *columns, size_t n_columns, fc_bt_csv *out, char **chosen);
void fc_bt_csv_free(fc_bt_csv *f);

/* Row of series s (rows [lo, hi) of t) whose ds is ds, or -1. */
long long fc_bt_find_row(const int64_t *ds, size_t lo, size_t hi, int64_t value);

#endif
