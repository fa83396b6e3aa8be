/* The trade log of `fcast quant backtest --trades`, read back for the
 * backtest report: every cell kept as text (the page shows them as
 * written), plus each row's series and its return as a number, which the
 * page counts (trades, winners). Columns are found by name, so a log with
 * more columns than the report knows still reads. */
#ifndef FC_REPORT_TRADE_TABLE_H
#define FC_REPORT_TRADE_TABLE_H

#include <stddef.h>
#include "fcast/status.h"

typedef struct {
    char **cols;        /* (n_cols) header names */
    size_t n_cols;
    char **cells;       /* (n_rows, n_cols) row-major text, NUL-terminated */
    double *ret;        /* (n_rows) the `return` column; NaN where empty */
    unsigned char *open;   /* (n_rows) 1: still open at the end (exit_reason "open", or no return) */
    size_t *line;       /* (n_rows) the line of the file each row starts on, for messages */
    size_t n_rows, cap;
    size_t id_col;      /* index of `unique_id` */
} fc_trade_table;

/* Needs the columns unique_id and return; errors name path:line and the
 * column. */
fc_status fc_trade_table_read(const char *path, fc_trade_table *t);
fc_status fc_trade_table_parse(const char *name, const char *text, size_t len, fc_trade_table *t);
void fc_trade_table_free(fc_trade_table *t);

/* Row r's unique_id. */
static inline const char *fc_trade_id(const fc_trade_table *t, size_t r) { return t->cells[r * t->n_cols + t->id_col]; }

#endif
