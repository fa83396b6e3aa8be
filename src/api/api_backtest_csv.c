/* Reading the backtester's keyed CSV files (see api_backtest_csv.h) with
 * the project's CSV reader (data/csv_reader.h) and ds parser. */
#include "api/api_backtest_csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/csv_reader.h"
#include "data/ds_text.h"
#include "data/number_parse.h"

#define MAX_COLUMNS 4096

fc_status fc_bt_table_ds(const fcast_table *t, int64_t **out) {
    size_t n = (size_t)fcast_table_indptr(t)[fcast_table_n_series(t)];
    int64_t *ds = malloc((n ? n : 1) * sizeof *ds);
    if (!ds) return fc_error(FC_ERR_MEMORY, "backtest: out of memory (dates)");
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        fc_ds_kind kind;
        fcast_table_ds_text(t, i, buf, sizeof buf);
        if (!fc_ds_parse(buf, strlen(buf), &kind, &ds[i])) ds[i] = INT64_MIN;
    }
    *out = ds;
    return FC_OK;
}

long long fc_bt_find_row(const int64_t *ds, size_t lo, size_t hi, int64_t value) {
    const size_t end = hi;
    while (lo < hi) {   /* the first row with ds >= value: a series is in ds order */
        size_t mid = lo + (hi - lo) / 2;
        if (ds[mid] < value) lo = mid + 1;
        else hi = mid;
    }
    return lo < end && ds[lo] == value ? (long long)lo : -1;
}

typedef struct {
    const char *ptr;
    size_t len;
} text;

static text field(const fc_csv_reader *r, size_t i) {
    if (r->scratch_index[i]) return (text){r->scratch + r->scratch_index[i] - 1, r->fields[i].len};
    return (text){r->fields[i].ptr, r->fields[i].len};
}

static int is(text t, const char *name) { return t.len == strlen(name) && !strncmp(t.ptr, name, t.len); }

static fc_status read_all(const char *flag, const char *path, char **buf, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return fc_error(FC_ERR_IO, "%s %s: cannot open the file", flag, path);
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (size_t got; b && (got = fread(b + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *g = realloc(b, cap *= 2);
            if (!g) free(b);
            b = g;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (!b) return fc_error(FC_ERR_MEMORY, "%s %s: out of memory", flag, path);
    if (err) {
        free(b);
        return fc_error(FC_ERR_IO, "%s %s: read error", flag, path);
    }
    *buf = b;
    *len = n;
    return FC_OK;
}

typedef struct {
    long long id, ds, cutoff, value[FC_BT_CSV_MAX_VALUES];
} columns_at;

static fc_status header(const char *flag, const char *path, fc_csv_reader *r, size_t n, int want_cutoff,
                        const char *const *names, size_t n_names, columns_at *at, fc_bt_csv *out, char **chosen) {
    *at = (columns_at){-1, -1, -1, {-1, -1}};
    out->header = calloc(n + 1, sizeof *out->header);
    if (!out->header) return fc_error(FC_ERR_MEMORY, "%s %s: out of memory", flag, path);
    out->n_header = n;
    for (size_t i = 0; i < n; i++) {
        text t = field(r, i);
        if (!(out->header[i] = malloc(t.len + 1))) return fc_error(FC_ERR_MEMORY, "%s: out of memory", flag);
        memcpy(out->header[i], t.ptr, t.len);
        out->header[i][t.len] = '\0';
        if (is(t, "unique_id")) at->id = (long long)i;
        else if (is(t, "ds")) at->ds = (long long)i;
        else if (is(t, "cutoff")) at->cutoff = want_cutoff ? (long long)i : -1;
    }
    if (at->id < 0 || at->ds < 0)
        return fc_error(FC_ERR_PARSE, "%s %s, line 1: expected the columns unique_id and ds", flag, path);
    for (size_t k = 0; k < n_names; k++) {
        for (size_t i = 0; i < n && at->value[k] < 0; i++) {
            const char *h = out->header[i];
            int skip = !strcmp(h, "unique_id") || !strcmp(h, "ds") || !strcmp(h, "cutoff") || !strcmp(h, "y");
            if (names[k] ? !strcmp(h, names[k]) : !skip) at->value[k] = (long long)i;
        }
        if (at->value[k] < 0)
            return fc_error(FC_ERR_PARSE, "%s %s, line 1: no column %s", flag, path,
                            names[k] ? names[k] : "besides unique_id, ds, cutoff and y");
        if (chosen) chosen[k] = out->header[at->value[k]];
    }
    out->has_cutoff = at->cutoff >= 0;
    return FC_OK;
}

static fc_status parse_ds(const char *flag, const char *path, size_t line, const char *col, text t, int64_t *v) {
    fc_ds_kind kind;
    if (!fc_ds_parse(t.ptr, t.len, &kind, v))
        return fc_error(FC_ERR_PARSE, "%s %s, line %zu, column %s: '%.*s' is not a date, datetime or integer", flag,
                        path, line, col, (int)t.len, t.ptr);
    return FC_OK;
}

static fc_status series_of(const char *flag, const char *path, size_t line, text id, const fcast_table *t,
                           size_t *out) {
    for (size_t s = 0; s < fcast_table_n_series(t); s++) {
        const char *name = fcast_table_id(t, s);
        if (strlen(name) == id.len && !strncmp(name, id.ptr, id.len)) {
            *out = s;
            return FC_OK;
        }
    }
    return fc_error(FC_ERR_INVALID, "%s %s, line %zu, column unique_id: series '%.*s' is not in the price file", flag,
                    path, line, (int)id.len, id.ptr);
}

static fc_status record(const char *flag, const char *path, const fc_csv_reader *r, size_t n_fields, size_t line,
                        const columns_at *at, size_t n_values, const fc_bt_csv *f, const fcast_table *t,
                        fc_bt_csv_row *row) {
    if (n_fields != f->n_header)
        return fc_error(FC_ERR_PARSE, "%s %s, line %zu: %zu fields, the header has %zu", flag, path, line, n_fields,
                        f->n_header);
    row->line = line;
    FC_TRY(series_of(flag, path, line, field(r, (size_t)at->id), t, &row->series));
    FC_TRY(parse_ds(flag, path, line, "ds", field(r, (size_t)at->ds), &row->ds));
    if (at->cutoff >= 0) FC_TRY(parse_ds(flag, path, line, "cutoff", field(r, (size_t)at->cutoff), &row->cutoff));
    for (size_t k = 0; k < n_values; k++) {
        text v = field(r, (size_t)at->value[k]);
        fc_num_result res = fc_parse_number(v.ptr, v.len, &row->value[k]);
        if (res != FC_NUM_OK)
            return fc_error(FC_ERR_PARSE, "%s %s, line %zu, column %s: '%.*s' is not a finite number", flag, path,
                            line, f->header[at->value[k]], (int)v.len, v.ptr);
    }
    return FC_OK;
}

static fc_status body(const char *flag, const char *path, fc_csv_reader *r, const columns_at *at, size_t n_values,
                      const fcast_table *t, fc_bt_csv *out) {
    size_t cap = 1024, n_fields, line;
    int blank;
    out->rows = malloc(cap * sizeof *out->rows);
    if (!out->rows) return fc_error(FC_ERR_MEMORY, "%s: out of memory", flag);
    for (fc_csv_result res; (res = fc_csv_next(r, &n_fields, &line, &blank)) != FC_CSV_END;) {
        if (res == FC_CSV_SYNTAX)
            return fc_error(FC_ERR_PARSE, "%s %s, line %zu: %s", flag, path, r->error_line, r->error_what);
        if (res == FC_CSV_NOMEM) return FC_ERR_MEMORY;
        if (blank) continue;
        if (out->n_rows == cap) {
            fc_bt_csv_row *g = realloc(out->rows, (cap *= 2) * sizeof *g);
            if (!g) return fc_error(FC_ERR_MEMORY, "%s: out of memory", flag);
            out->rows = g;
        }
        FC_TRY(record(flag, path, r, n_fields, line, at, n_values, out, t, &out->rows[out->n_rows]));
        out->n_rows++;
    }
    return FC_OK;
}

fc_status fc_bt_csv_read(const char *flag, const char *path, const fcast_table *t, int want_cutoff,
                         const char *const *columns, size_t n_columns, fc_bt_csv *out, char **chosen) {
    memset(out, 0, sizeof *out);
    char *buf = NULL;
    size_t len = 0, n_fields, line;
    int blank;
    FC_TRY(read_all(flag, path, &buf, &len));
    fc_csv_reader r;
    fc_csv_init(&r, buf, len, MAX_COLUMNS);
    columns_at at;
    fc_status st = FC_OK;
    fc_csv_result res = fc_csv_next(&r, &n_fields, &line, &blank);
    if (res != FC_CSV_RECORD || blank) st = fc_error(FC_ERR_PARSE, "%s %s: no header line", flag, path);
    if (st == FC_OK) st = header(flag, path, &r, n_fields, want_cutoff, columns, n_columns, &at, out, chosen);
    if (st == FC_OK) st = body(flag, path, &r, &at, n_columns, t, out);
    if (st == FC_OK && out->n_rows == 0) st = fc_error(FC_ERR_PARSE, "%s %s: no rows after the header", flag, path);
    fc_csv_free(&r);
    free(buf);
    if (st != FC_OK) fc_bt_csv_free(out);
    return st;
}

void fc_bt_csv_free(fc_bt_csv *f) {
    for (size_t i = 0; f->header && i < f->n_header; i++) free(f->header[i]);
    free(f->header);
    free(f->rows);
    memset(f, 0, sizeof *f);
}
