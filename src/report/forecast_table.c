/* Reads a forecast CSV for the report (forecast_table.h) with the project's
 * CSV reader, ds parser and number parser. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/csv_reader.h"
#include "data/ds_text.h"
#include "data/number_parse.h"
#include "data/text_map.h"
#include "report/forecast_table.h"

#define MAX_COLS 256

typedef struct {
    const char *name;
    size_t col_id, col_ds;
    size_t *value_col;   /* (n_cols) field index of each value column */
    int kind_set;
} reading;

static char *span_dup(fc_span s) {
    char *d = fc_malloc(s.len + 1, "forecast CSV text");
    if (d) { memcpy(d, s.ptr, s.len); d[s.len] = 0; }
    return d;
}

static int span_is(fc_span s, const char *name) { return s.len == strlen(name) && !memcmp(s.ptr, name, s.len); }

static fc_status read_header(reading *g, fc_csv_reader *r, fc_forecast_table *t) {
    size_t n, line;
    int blank;
    fc_csv_result res = fc_csv_next(r, &n, &line, &blank);
    if (res == FC_CSV_END) return fc_error(FC_ERR_PARSE, "%s: empty file: expected a header unique_id,ds,<MODEL>", g->name);
    if (res != FC_CSV_RECORD) return fc_error(FC_ERR_PARSE, "%s:%zu: %s", g->name, r->error_line, r->error_what);
    if (n > MAX_COLS) return fc_error(FC_ERR_PARSE, "%s:%zu: %zu columns; at most %d", g->name, line, n, MAX_COLS);
    g->col_id = g->col_ds = (size_t)-1;
    t->cols = fc_calloc(n, sizeof *t->cols, "forecast columns");
    g->value_col = fc_calloc(n, sizeof *g->value_col, "forecast columns");
    if (!t->cols || !g->value_col) return FC_ERR_MEMORY;
    for (size_t i = 0; i < n; i++) {
        if (span_is(r->fields[i], "unique_id")) { g->col_id = i; continue; }
        if (span_is(r->fields[i], "ds")) { g->col_ds = i; continue; }
        if (!(t->cols[t->n_cols] = span_dup(r->fields[i]))) return FC_ERR_MEMORY;
        g->value_col[t->n_cols++] = i;
    }
    if (g->col_id == (size_t)-1 || g->col_ds == (size_t)-1 || t->n_cols == 0)
        return fc_error(FC_ERR_PARSE, "%s:%zu: the header should name unique_id, ds and at least one model column",
                        g->name, line);
    return FC_OK;
}

/* The series of a row: rows come grouped, so the last one is checked first. */
static fc_status series_of(fc_forecast_table *t, fc_span id, fc_forecast_series **out) {
    if (t->n_series && span_is(id, t->series[t->n_series - 1].id)) { *out = &t->series[t->n_series - 1]; return FC_OK; }
    for (size_t i = 0; i < t->n_series; i++)
        if (span_is(id, t->series[i].id)) { *out = &t->series[i]; return FC_OK; }
    if (t->n_series == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        fc_forecast_series *s = fc_realloc(t->series, cap * sizeof *s, "forecast series");
        if (!s) return FC_ERR_MEMORY;
        t->series = s;
        t->cap = cap;
    }
    fc_forecast_series *s = &t->series[t->n_series];
    memset(s, 0, sizeof *s);
    if (!(s->id = span_dup(id))) return FC_ERR_MEMORY;
    t->n_series++;
    *out = s;
    return FC_OK;
}

static fc_status grow(fc_forecast_series *s, size_t n_cols) {
    if (s->n < s->cap) return FC_OK;
    size_t cap = s->cap ? 2 * s->cap : 32;
    double *ds = fc_realloc(s->ds, cap * sizeof *ds, "forecast rows");
    if (!ds) return FC_ERR_MEMORY;
    s->ds = ds;
    double *v = fc_realloc(s->v, cap * n_cols * sizeof *v, "forecast rows");
    if (!v) return FC_ERR_MEMORY;
    s->v = v;
    s->cap = cap;
    return FC_OK;
}

static fc_status parse_ds(reading *g, fc_forecast_table *t, fc_span f, size_t line, double *out) {
    fc_ds_kind kind;
    int64_t v;
    if (!fc_ds_parse(f.ptr, f.len, &kind, &v))
        return fc_error(FC_ERR_PARSE, "%s:%zu: column 'ds': '%.*s' is not an integer, a date or a datetime", g->name,
                        line, (int)(f.len > 40 ? 40 : f.len), f.ptr);
    if (g->kind_set && (kind == FC_DS_INDEX) != (t->kind == FC_DS_INDEX))
        return fc_error(FC_ERR_PARSE, "%s:%zu: column 'ds': %s after rows with %s", g->name, line,
                        fc_ds_kind_name(kind), fc_ds_kind_name(t->kind));
    if (!g->kind_set || kind == FC_DS_DATETIME) t->kind = kind;
    g->kind_set = 1;
    *out = (double)v;
    return FC_OK;
}

static fc_status parse_row(reading *g, fc_forecast_table *t, const fc_span *f, size_t line) {
    fc_forecast_series *s;
    double ds = 0;
    FC_TRY(parse_ds(g, t, f[g->col_ds], line, &ds));
    FC_TRY(series_of(t, f[g->col_id], &s));
    if (s->n && ds <= s->ds[s->n - 1])
        return fc_error(FC_ERR_PARSE, "%s:%zu: series '%s': ds not after the previous row's; rows of a series "
                        "should be in increasing ds order", g->name, line, s->id);
    FC_TRY(grow(s, t->n_cols));
    for (size_t c = 0; c < t->n_cols; c++) {
        fc_span v = f[g->value_col[c]];
        double x;
        fc_num_result nr = fc_parse_number(v.ptr, v.len, &x);
        if (nr == FC_NUM_MISSING) x = NAN;
        else if (nr != FC_NUM_OK)
            return fc_error(FC_ERR_PARSE, "%s:%zu: column '%s': '%.*s' is not a finite number", g->name, line,
                            t->cols[c], (int)(v.len > 40 ? 40 : v.len), v.ptr);
        s->v[s->n * t->n_cols + c] = x;
    }
    s->ds[s->n++] = ds;
    return FC_OK;
}

static fc_status read_rows(reading *g, fc_csv_reader *r, fc_forecast_table *t, size_t n_fields) {
    for (;;) {
        size_t n, line;
        int blank;
        fc_csv_result res = fc_csv_next(r, &n, &line, &blank);
        if (res == FC_CSV_END) return FC_OK;
        if (res == FC_CSV_NOMEM) return FC_ERR_MEMORY;
        if (res != FC_CSV_RECORD) return fc_error(FC_ERR_PARSE, "%s:%zu: %s", g->name, r->error_line, r->error_what);
        if (blank) continue;
        if (n != n_fields)
            return fc_error(FC_ERR_PARSE, "%s:%zu: %zu fields; the header has %zu", g->name, line, n, n_fields);
        FC_TRY(parse_row(g, t, r->fields, line));
    }
}

fc_status fc_forecast_table_parse(const char *name, const char *text, size_t len, fc_forecast_table *t) {
    memset(t, 0, sizeof *t);
    reading g = {name, 0, 0, NULL, 0};
    fc_csv_reader r;
    fc_csv_init(&r, text, len, MAX_COLS + 1);
    fc_status st = read_header(&g, &r, t);
    if (st == FC_OK) st = read_rows(&g, &r, t, t->n_cols + 2);
    if (st == FC_OK && t->n_series == 0) st = fc_error(FC_ERR_PARSE, "%s: no forecast rows after the header", name);
    fc_csv_free(&r);
    free(g.value_col);
    if (st != FC_OK) fc_forecast_table_free(t);
    return st;
}

fc_status fc_forecast_table_read(const char *path, fc_forecast_table *t) {
    const char *text;
    size_t len;
    memset(t, 0, sizeof *t);
    FC_TRY(fc_text_map_open(path, &text, &len));
    fc_status st = fc_forecast_table_parse(path, text, len, t);
    fc_text_map_close(text, len);
    return st;
}

void fc_forecast_table_free(fc_forecast_table *t) {
    for (size_t i = 0; i < t->n_cols; i++) free(t->cols[i]);
    free(t->cols);
    for (size_t i = 0; i < t->n_series; i++) {
        free(t->series[i].id);
        free(t->series[i].ds);
        free(t->series[i].v);
    }
    free(t->series);
    memset(t, 0, sizeof *t);
}

long fc_forecast_table_series(const fc_forecast_table *t, const char *id) {
    for (size_t i = 0; i < t->n_series; i++)
        if (!strcmp(t->series[i].id, id)) return (long)i;
    return -1;
}

long fc_forecast_table_column(const fc_forecast_table *t, const char *name) {
    for (size_t i = 0; i < t->n_cols; i++)
        if (!strcmp(t->cols[i], name)) return (long)i;
    return -1;
}

int fc_forecast_is_interval(const char *name) {
    return strstr(name, "-lo-") != NULL || strstr(name, "-hi-") != NULL;
}
