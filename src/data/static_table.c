/* The static CSV (see static_table.h): header, then one row per series,
 * read with the loader's CSV reader and number parser. Messages go through
 * the loader's fc_raw_error, so they read like the data file's ("file:line:
 * column 'x' (k): ..."). */
#include "data/static_table.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "data/csv_reader.h"
#include "data/exog_data.h"
#include "data/number_parse.h"
#include "data/raw_table.h"
#include "data/text_map.h"

#define MAX_COLUMNS 100000   /* as the data loader */

/* While loading, t->col_names is the whole header (unique_id included, at
 * col_id) so that messages can name any column; finish() removes it. */
typedef struct {
    fc_static_table *t;
    fc_csv_reader r;
    size_t col_id, header_line, cap;
} load_state;

/* fc_raw_error wants a raw table: its source and header are enough. */
#define STATIC_ERROR(s, line, col, ...)                                                          \
    fc_raw_error(&(fc_raw_table){.source = (s)->t->source, .col_names = (s)->t->col_names,     \
                                 .n_cols = (s)->t->n_cols}, FC_ERR_PARSE, line, col, __VA_ARGS__)

static fc_status reader_failure(const load_state *s, fc_csv_result res) {
    if (res == FC_CSV_NOMEM) return FC_ERR_MEMORY;
    return STATIC_ERROR(s, s->r.error_line, s->r.error_field - 1, "%s", s->r.error_what);
}

/* Empty and repeated names are refused as in the data file: a repeated one
 * would make "column 'x'" ambiguous. Interning finds a repeat in one pass;
 * ids are numbered in order, so a repeat's id is its first column. */
static fc_status check_names(const load_state *s) {
    const fc_static_table *t = s->t;
    fc_id_table seen = {0};
    fc_status st = FC_OK;
    for (size_t i = 0; i < t->n_cols && st == FC_OK; i++) {
        uint32_t id;
        size_t len = strlen(t->col_names[i]);
        if (len == 0)
            st = STATIC_ERROR(s, s->header_line, i, "empty column name (a pandas index? write with "
                              "to_csv(index=False)); every column needs a name");
        else if ((st = fc_id_table_intern(&seen, t->col_names[i], len, &id)) == FC_OK && id < i)
            st = STATIC_ERROR(s, s->header_line, i, "repeats the name of column %u; column names "
                              "must be unique", (unsigned)id + 1);
    }
    fc_id_table_free(&seen);
    return st;
}

static fc_status locate_id(load_state *s) {
    fc_static_table *t = s->t;
    for (s->col_id = 0; s->col_id < t->n_cols; s->col_id++)
        if (strcmp(t->col_names[s->col_id], "unique_id") == 0) break;
    if (s->col_id == t->n_cols) {
        char found[400];
        fc_names_join((const char *const *)t->col_names, NULL, t->n_cols, found, sizeof found);
        return STATIC_ERROR(s, s->header_line, FC_NO_COLUMN, "missing column 'unique_id': the header "
                            "has %s; a static file has unique_id and one column per static variable "
                            "(neuralforecast's static_df)", found);
    }
    if (t->n_cols == 1)
        return STATIC_ERROR(s, s->header_line, FC_NO_COLUMN, "no static column: the header has only "
                            "'unique_id'; expected one more column per static variable");
    return FC_OK;
}

static fc_status read_header(load_state *s) {
    fc_static_table *t = s->t;
    size_t n = 0;
    int blank = 1;
    fc_csv_result res = FC_CSV_RECORD;
    while (res == FC_CSV_RECORD && blank) res = fc_csv_next(&s->r, &n, &s->header_line, &blank);
    if (res == FC_CSV_END)
        return STATIC_ERROR(s, 1, FC_NO_COLUMN, "empty file: expected a header line naming "
                            "unique_id and the static columns, then one row per series");
    if (res != FC_CSV_RECORD) return reader_failure(s, res);
    if (n > MAX_COLUMNS)
        return STATIC_ERROR(s, s->header_line, FC_NO_COLUMN, "%zu columns in the header; at most "
                            "%d are supported", n, MAX_COLUMNS);
    if (!(t->col_names = fc_calloc(n, sizeof *t->col_names, "column names"))) return FC_ERR_MEMORY;
    for (; t->n_cols < n; t->n_cols++) {
        const fc_span *f = &s->r.fields[t->n_cols];
        if (memchr(f->ptr, '\0', f->len))
            return STATIC_ERROR(s, s->header_line, t->n_cols, "column name holds a NUL byte");
        if (!(t->col_names[t->n_cols] = strndup(f->ptr, f->len)))
            return fc_error(FC_ERR_MEMORY, "cannot allocate a column name");
    }
    s->r.max_fields = n + 1;
    FC_TRY(check_names(s));
    return locate_id(s);
}

static fc_status grow_rows(load_state *s) {
    fc_static_table *t = s->t;
    size_t cap = s->cap ? 2 * s->cap : 64, n_vals = t->n_cols - 1;
    size_t *line = fc_realloc(t->line, cap * sizeof *line, "static rows");
    if (!line) return FC_ERR_MEMORY;
    t->line = line;
    double *values = fc_realloc(t->values, cap * n_vals * sizeof *values, "static values");
    if (!values) return FC_ERR_MEMORY;
    t->values = values;
    s->cap = cap;
    return FC_OK;
}

static fc_status parse_id(load_state *s, const fc_span *f, size_t line) {
    fc_static_table *t = s->t;
    uint32_t id;
    char shown[64];
    if (f->len == 0)
        return STATIC_ERROR(s, line, s->col_id, "empty unique_id: every row needs the name of its series");
    if (f->len > FC_MAX_ID_BYTES || memchr(f->ptr, '\0', f->len))
        return STATIC_ERROR(s, line, s->col_id, "unique_id longer than %d bytes or holding a NUL byte",
                            FC_MAX_ID_BYTES);
    FC_TRY(fc_id_table_intern(&t->ids, f->ptr, f->len, &id));
    if (id == t->n_rows) return FC_OK;
    fc_quote_field(f->ptr, f->len, shown, sizeof shown);
    return STATIC_ERROR(s, line, s->col_id, "duplicate unique_id %s: already on line %zu; a static "
                        "file has one row per series", shown, t->line[id]);
}

/* Static values must be given: neuralforecast's static_df has no missing
 * values to mask, and a model input cannot be NaN. The float range is the
 * data loader's: the model holds its inputs as float. */
static fc_status parse_value(const load_state *s, const fc_span *f, size_t line, size_t col, double *v) {
    char shown[64];
    fc_num_result res = fc_parse_number(f->ptr, f->len, v);
    if (res == FC_NUM_OK && fabs(*v) <= FLT_MAX) return FC_OK;
    fc_quote_field(f->ptr, f->len, shown, sizeof shown);
    switch (res) {
    case FC_NUM_MISSING:
        return STATIC_ERROR(s, line, col, "missing value (%s): static values must be given, one per "
                            "series and column (a static file has no missing values)",
                            f->len ? shown : "empty");
    case FC_NUM_OK:
        return STATIC_ERROR(s, line, col, "%s is beyond the float range (magnitude above %g): "
                            "expected a finite number the model can hold (rescale the column)",
                            shown, (double)FLT_MAX);
    case FC_NUM_INFINITE:
        return STATIC_ERROR(s, line, col, "%s is infinite or beyond the double range: expected a "
                            "finite number", shown);
    default:
        return STATIC_ERROR(s, line, col, "%s is not a number: expected a decimal such as 1.5 or "
                            "-2e3 (encode a category as numbers, e.g. one column per level)", shown);
    }
}

static fc_status parse_row(load_state *s, size_t line) {
    fc_static_table *t = s->t;
    if (t->n_rows == s->cap) FC_TRY(grow_rows(s));
    FC_TRY(parse_id(s, &s->r.fields[s->col_id], line));
    t->line[t->n_rows] = line;
    double *row = t->values + t->n_rows * (t->n_cols - 1);
    for (size_t c = 0, k = 0; c < t->n_cols; c++)
        if (c != s->col_id) FC_TRY(parse_value(s, &s->r.fields[c], line, c, &row[k++]));
    t->n_rows++;
    return FC_OK;
}

static fc_status field_count_error(const load_state *s, size_t line, size_t n) {
    size_t cols = s->t->n_cols;
    if (n < cols)
        return STATIC_ERROR(s, line, n, "missing: the line has %zu field%s but the header (line %zu) "
                            "has %zu columns", n, n == 1 ? "" : "s", s->header_line, cols);
    return STATIC_ERROR(s, line, FC_NO_COLUMN, "%zu fields but the header (line %zu) has %zu columns",
                        n, s->header_line, cols);
}

static fc_status read_rows(load_state *s) {
    for (;;) {
        size_t n, line;
        int blank;
        fc_csv_result res = fc_csv_next(&s->r, &n, &line, &blank);
        if (res == FC_CSV_END) break;
        if (res != FC_CSV_RECORD) return reader_failure(s, res);
        if (blank) continue;   /* as pandas' skip_blank_lines */
        if (n != s->t->n_cols) return field_count_error(s, line, n);
        FC_TRY(parse_row(s, line));
    }
    if (s->t->n_rows == 0)
        return STATIC_ERROR(s, s->header_line + 1, FC_NO_COLUMN, "no data rows after the header "
                            "(line %zu): expected one row per series", s->header_line);
    return FC_OK;
}

/* The header less unique_id: the static columns. */
static void finish(load_state *s) {
    fc_static_table *t = s->t;
    free(t->col_names[s->col_id]);
    memmove(t->col_names + s->col_id, t->col_names + s->col_id + 1,
            (t->n_cols - s->col_id - 1) * sizeof *t->col_names);
    t->n_cols--;
}

fc_status fc_static_table_load_buffer(const char *name, const char *text, size_t len,
                                      fc_static_table **out) {
    load_state s = {0};
    *out = NULL;
    if (!(s.t = fc_calloc(1, sizeof *s.t, "static table"))) return FC_ERR_MEMORY;
    fc_status st = (s.t->source = strdup(name ? name : "<memory>")) ? FC_OK
                   : fc_error(FC_ERR_MEMORY, "cannot allocate a file name");
    fc_csv_init(&s.r, text ? text : "", text ? len : 0, MAX_COLUMNS + 1);
    if (st == FC_OK) st = read_header(&s);
    if (st == FC_OK) st = read_rows(&s);
    fc_csv_free(&s.r);
    if (st != FC_OK) {
        fc_static_table_free(&s.t);
        return st;
    }
    finish(&s);
    *out = s.t;
    return FC_OK;
}

fc_status fc_static_table_load(const char *path, fc_static_table **out) {
    const char *text;
    size_t len;
    *out = NULL;
    FC_TRY(fc_text_map_open(path, &text, &len));
    fc_status st = fc_static_table_load_buffer(path, text, len, out);
    fc_text_map_close(text, len);
    return st;
}

void fc_static_table_free(fc_static_table **tp) {
    fc_static_table *t = tp ? *tp : NULL;
    if (!t) return;
    for (size_t i = 0; t->col_names && i < t->n_cols; i++) free(t->col_names[i]);
    free(t->col_names);
    free(t->source);
    free(t->line);
    free(t->values);
    fc_id_table_free(&t->ids);
    free(t);
    *tp = NULL;
}

void fc_static_table_columns(const fc_static_table *t, const char *const **names, size_t *n) {
    *names = (const char *const *)t->col_names;
    *n = t->n_cols;
}

static fc_status find_columns(const fc_static_table *t, const char *const *names, size_t n, size_t *cols) {
    for (size_t j = 0; j < n; j++) {
        for (cols[j] = 0; cols[j] < t->n_cols && strcmp(t->col_names[cols[j]], names[j]) != 0;) cols[j]++;
        if (cols[j] < t->n_cols) continue;
        char name[64], found[400];
        fc_quote_field(names[j], strlen(names[j]), name, sizeof name);
        fc_names_join((const char *const *)t->col_names, NULL, t->n_cols, found, sizeof found);
        return fc_error(FC_ERR_INVALID, "%s has no column %s; its static columns are: %s", t->source,
                        name, found);
    }
    return FC_OK;
}

/* row_of[s] = the table's row for series s of d. Rows are placed by a
 * binary search in d's sorted ids, so a table of many more series than d
 * costs O(rows log N) and needs no index of its own. */
static fc_status match_rows(const fc_static_table *t, const fc_dataset *d, const char *data_name,
                            size_t *row_of) {
    for (size_t s = 0; s < d->n_series; s++) row_of[s] = SIZE_MAX;
    for (size_t r = 0; r < t->n_rows; r++) {
        ssize_t s = fc_dataset_find(d, fc_id_table_str(&t->ids, (uint32_t)r));
        if (s >= 0) row_of[s] = r;
    }
    for (size_t s = 0; s < d->n_series; s++) {
        if (row_of[s] != SIZE_MAX) continue;
        char id[64];
        fc_quote_field(d->ids[s], strlen(d->ids[s]), id, sizeof id);
        return fc_error(FC_ERR_INVALID, "%s has no row for series %s; every series of %s needs one, "
                        "as neuralforecast's static_df", t->source, id,
                        data_name ? data_name : d->source ? d->source : "the data");
    }
    return FC_OK;
}

fc_status fc_static_values(const fc_static_table *t, const fc_dataset *d, const char *const *names,
                           size_t n_names, const char *data_name, double **out) {
    *out = NULL;
    size_t *cols = fc_malloc(n_names * sizeof *cols, "static columns");
    size_t *row_of = fc_malloc(d->n_series * sizeof *row_of, "static rows");
    double *v = NULL;
    fc_status st = cols && row_of ? FC_OK : FC_ERR_MEMORY;
    if (st == FC_OK) st = find_columns(t, names, n_names, cols);
    if (st == FC_OK) st = match_rows(t, d, data_name, row_of);
    if (st == FC_OK && !(v = fc_malloc(d->n_series * n_names * sizeof *v, "static values"))) st = FC_ERR_MEMORY;
    for (size_t s = 0; st == FC_OK && s < d->n_series; s++)
        for (size_t j = 0; j < n_names; j++) v[s * n_names + j] = t->values[row_of[s] * t->n_cols + cols[j]];
    free(cols);
    free(row_of);
    if (st == FC_OK) *out = v;
    return st;
}
