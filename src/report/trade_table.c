/* Reads a trade log (trade_table.h) with the project's CSV reader and
 * number parser. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/csv_reader.h"
#include "data/number_parse.h"
#include "data/text_map.h"
#include "report/trade_table.h"

#define MAX_COLS 64

static char *span_dup(fc_span s) {
    char *d = fc_malloc(s.len + 1, "trade log text");
    if (d) { memcpy(d, s.ptr, s.len); d[s.len] = 0; }
    return d;
}

static long find_col(const fc_trade_table *t, const char *name) {
    for (size_t i = 0; i < t->n_cols; i++)
        if (!strcmp(t->cols[i], name)) return (long)i;
    return -1;
}

typedef struct {
    size_t ret, reason;   /* columns; reason (size_t)-1 when absent */
} trade_cols;

static fc_status read_header(const char *name, fc_csv_reader *r, fc_trade_table *t, trade_cols *cols) {
    size_t n, line;
    int blank;
    fc_csv_result res = fc_csv_next(r, &n, &line, &blank);
    if (res == FC_CSV_END) return fc_error(FC_ERR_PARSE, "%s: empty file: expected a header unique_id,...,return", name);
    if (res != FC_CSV_RECORD) return fc_error(FC_ERR_PARSE, "%s:%zu: %s", name, r->error_line, r->error_what);
    if (n > MAX_COLS) return fc_error(FC_ERR_PARSE, "%s:%zu: %zu columns; at most %d", name, line, n, MAX_COLS);
    if (!(t->cols = fc_calloc(n, sizeof *t->cols, "trade log columns"))) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n; i++, t->n_cols++)
        if (!(t->cols[i] = span_dup(r->fields[i]))) return FC_ERR_MEMORY;
    long id = find_col(t, "unique_id"), ret = find_col(t, "return");
    if (id < 0 || ret < 0)
        return fc_error(FC_ERR_PARSE, "%s:%zu: the header should name unique_id and return (a trade log of "
                        "fcast quant backtest --trades)", name, line);
    long reason = find_col(t, "exit_reason");
    t->id_col = (size_t)id;
    cols->ret = (size_t)ret;
    cols->reason = reason < 0 ? (size_t)-1 : (size_t)reason;
    return FC_OK;
}

static fc_status grow(fc_trade_table *t) {
    if (t->n_rows < t->cap) return FC_OK;
    size_t cap = t->cap ? 2 * t->cap : 64;
    char **cells = fc_realloc(t->cells, cap * t->n_cols * sizeof *cells, "trade log rows");
    if (!cells) return FC_ERR_MEMORY;
    t->cells = cells;
    double *ret = fc_realloc(t->ret, cap * sizeof *ret, "trade log rows");
    if (!ret) return FC_ERR_MEMORY;
    t->ret = ret;
    size_t *line = fc_realloc(t->line, cap * sizeof *line, "trade log rows");
    if (!line) return FC_ERR_MEMORY;
    t->line = line;
    unsigned char *open = fc_realloc(t->open, cap, "trade log rows");
    if (!open) return FC_ERR_MEMORY;
    t->open = open;
    t->cap = cap;
    return FC_OK;
}

static fc_status parse_row(const char *name, const fc_span *f, size_t line, const trade_cols *cols,
                           fc_trade_table *t) {
    const size_t ret_col = cols->ret;
    FC_TRY(grow(t));
    char **row = t->cells + t->n_rows * t->n_cols;
    double x;
    fc_num_result nr = fc_parse_number(f[ret_col].ptr, f[ret_col].len, &x);
    if (nr == FC_NUM_MISSING) x = NAN;
    else if (nr != FC_NUM_OK)
        return fc_error(FC_ERR_PARSE, "%s:%zu: column 'return': '%.*s' is not a finite number", name, line,
                        (int)(f[ret_col].len > 40 ? 40 : f[ret_col].len), f[ret_col].ptr);
    for (size_t c = 0; c < t->n_cols; c++)
        if (!(row[c] = span_dup(f[c]))) {
            while (c--) free(row[c]);
            return FC_ERR_MEMORY;
        }
    t->line[t->n_rows] = line;
    fc_span why = cols->reason == (size_t)-1 ? (fc_span){"", 0} : f[cols->reason];
    t->open[t->n_rows] = isnan(x) || (why.len == 4 && !memcmp(why.ptr, "open", 4));
    t->ret[t->n_rows++] = x;
    return FC_OK;
}

static fc_status read_rows(const char *name, fc_csv_reader *r, const trade_cols *cols, fc_trade_table *t) {
    for (;;) {
        size_t n, line;
        int blank;
        fc_csv_result res = fc_csv_next(r, &n, &line, &blank);
        if (res == FC_CSV_END) return FC_OK;
        if (res == FC_CSV_NOMEM) return FC_ERR_MEMORY;
        if (res != FC_CSV_RECORD) return fc_error(FC_ERR_PARSE, "%s:%zu: %s", name, r->error_line, r->error_what);
        if (blank) continue;
        if (n != t->n_cols)
            return fc_error(FC_ERR_PARSE, "%s:%zu: %zu fields; the header has %zu", name, line, n, t->n_cols);
        FC_TRY(parse_row(name, r->fields, line, cols, t));
    }
}

fc_status fc_trade_table_parse(const char *name, const char *text, size_t len, fc_trade_table *t) {
    memset(t, 0, sizeof *t);
    fc_csv_reader r;
    trade_cols cols = {0, (size_t)-1};
    fc_csv_init(&r, text, len, MAX_COLS + 1);
    fc_status st = read_header(name, &r, t, &cols);
    if (st == FC_OK) st = read_rows(name, &r, &cols, t);
    fc_csv_free(&r);
    if (st != FC_OK) fc_trade_table_free(t);
    return st;
}

fc_status fc_trade_table_read(const char *path, fc_trade_table *t) {
    const char *text;
    size_t len;
    memset(t, 0, sizeof *t);
    FC_TRY(fc_text_map_open(path, &text, &len));
    fc_status st = fc_trade_table_parse(path, text, len, t);
    fc_text_map_close(text, len);
    return st;
}

void fc_trade_table_free(fc_trade_table *t) {
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++) free(t->cells[i]);
    for (size_t i = 0; i < t->n_cols; i++) free(t->cols[i]);
    free(t->cells);
    free(t->cols);
    free(t->ret);
    free(t->line);
    free(t->open);
    memset(t, 0, sizeof *t);
}
