/* The parsing pass of the CSV loader (see raw_table.h): header, then every
 * row in one sweep over the text. Rows are appended to growing columns; no
 * field is allocated. Every failure names the file, line and column. */
#include "data/raw_table.h"

#include <float.h>
#include <math.h>
#include <sys/mman.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "data/csv_reader.h"
#include "data/ds_text.h"
#include "data/number_parse.h"

#define MAX_COLUMNS 100000

fc_status fc_raw_error(const fc_raw_table *t, fc_status code, size_t line, size_t col,
                       const char *fmt, ...) {
    char text[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char where[512];
    if (t->row_noun) snprintf(where, sizeof where, "%s, %s %zu", t->source, t->row_noun, line);
    else snprintf(where, sizeof where, "%s:%zu", t->source, line);
    if (col == FC_NO_COLUMN)
        return fc_error(code, "%s: %s", where, text);
    if (t->col_names && col < t->n_cols) {
        char name[64];
        fc_quote_field(t->col_names[col], strlen(t->col_names[col]), name, sizeof name);
        return fc_error(code, "%s: column %s (%zu): %s", where, name, col + 1, text);
    }
    return fc_error(code, "%s: column %zu: %s", where, col + 1, text);
}

void fc_quote_field(const char *text, size_t len, char *buf, size_t cap) {
    size_t shown = len > 40 ? 40 : len, o = 0;
    while (shown < len && shown > 0 && ((unsigned char)text[shown] & 0xC0) == 0x80) shown--;
    if (cap < 8) { if (cap) buf[0] = '\0'; return; }
    buf[o++] = '\'';
    for (size_t i = 0; i < shown && o + 8 < cap; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c < 0x20 || c == 0x7F) o += (size_t)snprintf(buf + o, cap - o, "\\x%02X", c);
        else buf[o++] = (char)c;
    }
    if (shown < len && o + 5 < cap) memcpy(buf + o, "...", 3), o += 3;
    buf[o++] = '\'';
    buf[o] = '\0';
}

/* A CSV syntax or memory failure from the reader as a message. */
static fc_status reader_failure(const fc_raw_table *t, const fc_csv_reader *r, fc_csv_result res) {
    if (res == FC_CSV_NOMEM) return FC_ERR_MEMORY;
    return fc_raw_error(t, FC_ERR_PARSE, r->error_line, r->error_field - 1, "%s", r->error_what);
}

/* "'unique_id', 'ds', 'value'": the header as found, for messages. */
static void header_list(const fc_raw_table *t, char *buf, size_t cap) {
    size_t o = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->n_cols && o + 70 < cap; i++) {
        fc_quote_field(t->col_names[i], strlen(t->col_names[i]), buf + o, cap - o);
        o += strlen(buf + o);
        if (i + 1 < t->n_cols) o += (size_t)snprintf(buf + o, cap - o, ", ");
    }
    if (o + 70 >= cap) snprintf(buf + o, cap - o, "...");
}

static int compare_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Empty and repeated column names are errors: an empty one is usually the
 * index pandas writes unless to_csv(index=False), and a repeated one would
 * make "column 'y'" ambiguous. Sorting keeps this O(n log n) in columns. */
static fc_status check_names(const fc_raw_table *t, size_t line) {
    for (size_t i = 0; i < t->n_cols; i++)
        if (t->col_names[i][0] == '\0')
            return fc_raw_error(t, FC_ERR_PARSE, line, i,
                                "empty column name (a pandas index? write with "
                                "to_csv(index=False)); every column needs a name");
    char **sorted = fc_malloc(t->n_cols * sizeof *sorted, "column names");
    if (!sorted) return FC_ERR_MEMORY;
    memcpy(sorted, t->col_names, t->n_cols * sizeof *sorted);
    qsort(sorted, t->n_cols, sizeof *sorted, compare_names);
    const char *dup = NULL;
    for (size_t i = 1; i < t->n_cols && !dup; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) dup = sorted[i];
    free(sorted);
    if (!dup) return FC_OK;
    size_t first = 0, second = 0;
    while (strcmp(t->col_names[first], dup) != 0) first++;
    for (second = first + 1; strcmp(t->col_names[second], dup) != 0;) second++;
    return fc_raw_error(t, FC_ERR_PARSE, line, second, "repeats the name of column %zu; "
                        "column names must be unique", first + 1);
}

static size_t find_column(const fc_raw_table *t, const char *name) {
    for (size_t i = 0; i < t->n_cols; i++)
        if (strcmp(t->col_names[i], name) == 0) return i;
    return FC_NO_COLUMN;
}

/* With opt.y_optional a header without y is accepted: col_y stays
 * FC_NO_COLUMN and every row's y is missing (parse_row). */
static fc_status locate_columns(fc_raw_table *t, size_t line) {
    static const char *const required[3] = {"unique_id", "ds", "y"};
    size_t *slots[3] = {&t->col_id, &t->col_ds, &t->col_y};
    for (int k = 0; k < 3; k++) {
        *slots[k] = find_column(t, required[k]);
        if (*slots[k] != FC_NO_COLUMN || (k == 2 && t->opt.y_optional)) continue;
        char found[400];
        header_list(t, found, sizeof found);
        return fc_raw_error(t, FC_ERR_PARSE, line, FC_NO_COLUMN,
                            "missing column '%s': the header has %s; expected columns %s in any "
                            "order (others are exogenous variables)", required[k], found,
                            t->opt.y_optional ? "unique_id and ds (y optional)" : "unique_id, ds and y");
    }
    size_t n_exog = t->opt.drop_exog ? 0 : t->n_cols - 2 - (t->col_y != FC_NO_COLUMN);
    t->exog_cols = fc_malloc(n_exog * sizeof *t->exog_cols, "exogenous column list");
    if (!t->exog_cols) return FC_ERR_MEMORY;
    for (size_t i = 0; i < t->n_cols && n_exog; i++)
        if (i != t->col_id && i != t->col_ds && i != t->col_y) t->exog_cols[t->n_exog++] = i;
    return FC_OK;
}

static fc_status copy_header_names(fc_raw_table *t, const fc_csv_reader *r, size_t n,
                                   size_t line) {
    t->col_names = fc_calloc(n, sizeof *t->col_names, "column names");
    if (!t->col_names) return FC_ERR_MEMORY;
    t->n_cols = n;
    for (size_t i = 0; i < n; i++) {
        const fc_span *f = &r->fields[i];
        if (!(t->col_names[i] = fc_malloc(f->len + 1, "column name"))) return FC_ERR_MEMORY;
        memcpy(t->col_names[i], f->ptr, f->len);
        t->col_names[i][f->len] = '\0';
        if (memchr(f->ptr, '\0', f->len))  /* it would cut the name short everywhere */
            return fc_raw_error(t, FC_ERR_PARSE, line, i, "column name holds a NUL byte");
    }
    return FC_OK;
}

static fc_status read_header(fc_raw_table *t, fc_csv_reader *r, size_t *header_line) {
    size_t n = 0, line = 1;
    int blank = 1;
    fc_csv_result res = FC_CSV_RECORD;
    while (res == FC_CSV_RECORD && blank) res = fc_csv_next(r, &n, &line, &blank);
    if (res == FC_CSV_END)
        return fc_raw_error(t, FC_ERR_PARSE, 1, FC_NO_COLUMN, "empty file: expected a header "
                            "line naming the columns unique_id, ds and y");
    if (res != FC_CSV_RECORD) return reader_failure(t, r, res);
    *header_line = line;
    if (n > MAX_COLUMNS)
        return fc_raw_error(t, FC_ERR_PARSE, line, FC_NO_COLUMN,
                            "%zu columns in the header; at most %d are supported", n, MAX_COLUMNS);
    FC_TRY(copy_header_names(t, r, n, line));
    FC_TRY(check_names(t, line));
    FC_TRY(locate_columns(t, line));
    r->max_fields = n + 1;
    return FC_OK;
}

static fc_status grow_rows(fc_raw_table *t) {
    size_t cap = t->cap * 2;
    void *p;
#define GROW(field)                                                                \
    do {                                                                           \
        if (!(p = fc_realloc(t->field, cap * sizeof *t->field, "CSV rows")))      \
            return FC_ERR_MEMORY;                                                  \
        t->field = p;                                                              \
    } while (0)
    GROW(series);
    GROW(ds);
    GROW(y);
    GROW(mask);
    GROW(line);
#undef GROW
    if (t->n_exog) {
        if (!(p = fc_realloc(t->exog, cap * t->n_exog * sizeof *t->exog, "exogenous values")))
            return FC_ERR_MEMORY;
        t->exog = p;
    }
    t->cap = cap;
    return FC_OK;
}

/* Interns the row's unique_id. Consecutive rows usually share it, so the
 * previous row's id is compared first and the hash is skipped. */
static fc_status parse_id(fc_raw_table *t, const fc_span *f, size_t line, uint32_t *id) {
    if (t->n_rows) {
        uint32_t last = t->series[t->n_rows - 1];
        if (t->ids.length[last] == f->len &&
            memcmp(fc_id_table_str(&t->ids, last), f->ptr, f->len) == 0) {
            *id = last;
            return FC_OK;
        }
    }
    if (f->len == 0)
        return fc_raw_error(t, FC_ERR_PARSE, line, t->col_id,
                            "empty unique_id: every row needs the name of its series");
    if (f->len > FC_MAX_ID_BYTES || memchr(f->ptr, '\0', f->len))
        return fc_raw_error(t, FC_ERR_PARSE, line, t->col_id,
                            "unique_id longer than %d bytes or holding a NUL byte", FC_MAX_ID_BYTES);
    return fc_id_table_intern(&t->ids, f->ptr, f->len, id);
}

static fc_status parse_ds(fc_raw_table *t, const fc_span *f, size_t line, int64_t *ds) {
    char shown[64];
    fc_ds_kind kind;
    if (!fc_ds_parse(f->ptr, f->len, &kind, ds)) {
        fc_quote_field(f->ptr, f->len, shown, sizeof shown);
        return fc_raw_error(t, FC_ERR_PARSE, line, t->col_ds,
                            "cannot parse %s: expected an integer index (17), a date (2000-06-05) "
                            "or a datetime (2000-06-05 00:30:00)", shown);
    }
    if (t->n_rows == 0) {
        t->kind = kind;
        t->kind_line = line;
    } else if (kind != t->kind) {
        fc_quote_field(f->ptr, f->len, shown, sizeof shown);
        return fc_raw_error(t, FC_ERR_PARSE, line, t->col_ds,
                            "%s is a %s, but line %zu has a %s: every row must use the same "
                            "kind of ds", shown, fc_ds_kind_name(kind), t->kind_line,
                            fc_ds_kind_name(t->kind));
    }
    return FC_OK;
}

/* A numeric cell: *missing = 1 for empty/NaN/NA. Infinity is refused: a
 * target or an input of a network cannot be infinite. So is a magnitude
 * beyond float's: values are kept as doubles here but the windows that
 * reach the model are float, where such a value would become infinite. */
static fc_status parse_value(const fc_raw_table *t, const fc_span *f, size_t line, size_t col,
                             double *v, int *missing) {
    char shown[64];
    *missing = 0;
    switch (fc_parse_number(f->ptr, f->len, v)) {
    case FC_NUM_OK:
        if (fabs(*v) <= FLT_MAX) return FC_OK;
        fc_quote_field(f->ptr, f->len, shown, sizeof shown);
        return fc_raw_error(t, FC_ERR_PARSE, line, col, "%s is beyond the float range "
                            "(magnitude above %g): expected a finite number the model can "
                            "hold (rescale the column)", shown, (double)FLT_MAX);
    case FC_NUM_MISSING: *missing = 1; return FC_OK;
    case FC_NUM_INFINITE:
        fc_quote_field(f->ptr, f->len, shown, sizeof shown);
        return fc_raw_error(t, FC_ERR_PARSE, line, col, "%s is infinite or beyond the double "
                            "range: expected a finite number (leave the cell empty or write NaN "
                            "for a missing value)", shown);
    case FC_NUM_BAD: break;
    }
    fc_quote_field(f->ptr, f->len, shown, sizeof shown);
    return fc_raw_error(t, FC_ERR_PARSE, line, col, "%s is not a number: expected a decimal "
                        "such as 1.5 or -2e3, or an empty cell, NaN or NA for a missing value",
                        shown);
}

static fc_status parse_row(fc_raw_table *t, const fc_span *f, size_t line) {
    if (t->n_rows == t->cap) FC_TRY(grow_rows(t));
    size_t r = t->n_rows;
    uint32_t id;
    int missing = 1;   /* a file without y (opt.y_optional) */
    double v = 0.0;
    FC_TRY(parse_id(t, &f[t->col_id], line, &id));
    FC_TRY(parse_ds(t, &f[t->col_ds], line, &t->ds[r]));
    if (t->col_y != FC_NO_COLUMN) FC_TRY(parse_value(t, &f[t->col_y], line, t->col_y, &v, &missing));
    t->y[r] = missing ? 0.0 : v;
    t->mask[r] = !missing;
    for (size_t j = 0; j < t->n_exog; j++) {
        size_t col = t->exog_cols[j];
        FC_TRY(parse_value(t, &f[col], line, col, &v, &missing));
        t->exog[r * t->n_exog + j] = missing ? (double)NAN : v;
    }
    t->series[r] = id;
    t->line[r] = line;
    t->n_rows++;
    return FC_OK;
}

static fc_status field_count_error(const fc_raw_table *t, size_t line, size_t n,
                                   size_t header_line) {
    char last[64];
    if (n < t->n_cols)
        return fc_raw_error(t, FC_ERR_PARSE, line, n, "missing: the line has %zu field%s but the "
                            "header (line %zu) has %zu columns", n, n == 1 ? "" : "s",
                            header_line, t->n_cols);
    const char *name = t->col_names[t->n_cols - 1];
    fc_quote_field(name, strlen(name), last, sizeof last);
    return fc_raw_error(t, FC_ERR_PARSE, line, FC_NO_COLUMN, "%zu fields but the header (line "
                        "%zu) has %zu columns: unexpected field %zu after column %s (%zu)", n,
                        header_line, t->n_cols, t->n_cols + 1, last, t->n_cols);
}

/* Hands the parsed part of a mapped file back to the kernel in steps of
 * FC_RELEASE_STEP: its clean pages are dropped (and would be read again
 * from the file if ever touched), so the text's resident share stays
 * below one step whatever the file's size. */
#define FC_RELEASE_STEP ((size_t)16 << 20)

static void release_parsed_text(fc_raw_table *t, const char *pos) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t upto = (size_t)(pos - t->file_map) / page * page;
    if (upto < t->map_released + FC_RELEASE_STEP) return;
    madvise((char *)t->file_map + t->map_released, upto - t->map_released, MADV_DONTNEED);
    t->map_released = upto;
}

/* Room for `want` rows: the loader's first guess, then doubling. */
static fc_status reserve_rows(fc_raw_table *t, size_t want) {
    if (t->cap == 0) t->cap = (want + 1) / 2;
    return t->n_rows == t->cap || !t->series ? grow_rows(t) : FC_OK;
}

static fc_status parse_rows(fc_raw_table *t, fc_csv_reader *r, size_t max_rows, int *end) {
    *end = 0;
    while (t->n_rows < max_rows) {
        size_t n, line;
        int blank;
        fc_csv_result res = fc_csv_next(r, &n, &line, &blank);
        if (res == FC_CSV_END) {
            *end = 1;
            break;
        }
        if (res != FC_CSV_RECORD) return reader_failure(t, r, res);
        if (blank) continue;  /* as pandas' skip_blank_lines */
        if (n != t->n_cols) return field_count_error(t, line, n, t->header_line);
        if (t->n_rows == t->cap) FC_TRY(grow_rows(t));
        FC_TRY(parse_row(t, r->fields, line));
        t->rows_read++;
        if (t->file_map && (t->rows_read & 0xfff) == 0) release_parsed_text(t, r->pos);   /* wide rows too */
    }
    if (*end && t->rows_read == 0)
        return fc_raw_error(t, FC_ERR_PARSE, t->header_line + 1, FC_NO_COLUMN,
                            "no data rows after the header (line %zu): expected rows of "
                            "unique_id, ds, y", t->header_line);
    return FC_OK;
}

fc_status fc_raw_table_begin(fc_raw_table *t, fc_csv_reader *r, const char *text, size_t len) {
    fc_csv_init(r, text, len, MAX_COLUMNS + 1);
    t->header_line = 1;
    return read_header(t, r, &t->header_line);
}

fc_status fc_raw_table_read(fc_raw_table *t, fc_csv_reader *r, size_t max_rows, int *end) {
    FC_TRY(reserve_rows(t, max_rows));
    return parse_rows(t, r, max_rows, end);
}

fc_status fc_raw_table_parse(fc_raw_table *t, const char *text, size_t len) {
    fc_csv_reader r;
    int end;
    /* A first guess from the file size (a row takes at least one byte per
     * column); doubling handles the rest. */
    fc_status st = fc_raw_table_begin(t, &r, text, len);
    size_t guess = len / (32 + 2 * t->n_cols) + 16;
    if (st == FC_OK) st = reserve_rows(t, guess > ((size_t)1 << 24) ? ((size_t)1 << 24) : guess);
    if (st == FC_OK) st = parse_rows(t, &r, SIZE_MAX, &end);
    fc_csv_free(&r);
    return st;
}

void fc_raw_table_free(fc_raw_table *t) {
    for (size_t i = 0; t->col_names && i < t->n_cols; i++) free(t->col_names[i]);
    free(t->col_names);
    free(t->exog_cols);
    free(t->series);
    free(t->ds);
    free(t->y);
    free(t->mask);
    free(t->line);
    free(t->exog);
    fc_id_table_free(&t->ids);
    memset(t, 0, sizeof *t);
}
