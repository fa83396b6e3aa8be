/* The forecast endpoint's request and response bodies (see forecast_codec.h).
 *
 * A JSON request is checked field by field, then written out as the long
 * CSV it stands for and handed to the CSV loader itself. One loader means
 * one set of rules (sorting, duplicates, grid, frequency), so the dataset is
 * the one fcast predict builds from that CSV, bit for bit: values cross as
 * text that reads back to the same double (reals in the fewest of 15 to
 * 17 digits that do, integers as written). The loader's messages speak of CSV lines; they are translated
 * back to the JSON fields the client wrote (series[i].ds[j]).
 *
 * Responses are printed into memory streams; the CSV one by the very code
 * that writes fcast predict's file (io/forecast_csv.c). */
#include "forecast_codec.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "api/serve_engine.h"
#include "json_text.h"

/* The name the loader's messages give the body ("request:5: ..."). */
#define REQUEST_NAME "request"
/* fc_ds_parse reads an integer ds of at most 18 digits. */
#define DS_INDEX_MAX 999999999999999999LL

/* ---------------------------------------------------------------- limits */

/* The loader's options with max_points as the bound on the points after
 * gap filling: a few rows far apart can fill to millions of points, which
 * the counts of check_limits, made on the points as sent, cannot see. */
static fc_load_options bounded(const fc_load_options *opt, const fc_forecast_limits *lim) {
    fc_load_options lo = {0};
    if (opt) lo = *opt;
    if (lim && lim->max_points) {
        lo.max_points = lim->max_points;
        lo.bound_name = "max_points";
    }
    return lo;
}

/* A count of 0 is not checked (the CSV route knows its series only after
 * loading), nor is a limit of 0 (none). */
static fc_status check_limits(const fc_forecast_limits *lim, size_t n_series, size_t n_points) {
    if (lim && lim->max_series && n_series > lim->max_series)
        return fc_error(FC_ERR_MEMORY, "request: %zu series, more than the limit of %zu series in one "
                        "request (max_series)", n_series, lim->max_series);
    if (lim && lim->max_points && n_points > lim->max_points)
        return fc_error(FC_ERR_MEMORY, "request: %zu points, more than the limit of %zu points in one "
                        "request (max_points)", n_points, lim->max_points);
    return FC_OK;
}

/* ------------------------------------------------- request: JSON checks */

typedef struct {
    json_t *series;          /* the "series" array */
    size_t n_series, n_points;
    fc_ds_kind kind;         /* series[0].ds[0]'s; every ds must share it */
    int ds_strings;          /* 1: ds entries are strings, 0: integers */
    /* Where each series' rows land in the CSV text, to name the JSON field
     * of a loader message: the line of its first row, and the lines one
     * row takes (more than one when the unique_id holds line breaks). */
    size_t *first_line;      /* (n_series + 1); [n_series] is past the last row */
    size_t *row_lines;       /* (n_series) */
} json_request;

static const char *type_name(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

static const char *quoted(const char *text, char *buf, size_t cap) {
    fc_quote_field(text, strlen(text), buf, cap);
    return buf;
}

/* Unknown keys are errors, so that a typo ("horizon", "values") is not
 * silently ignored and the request forecast without it. */
static fc_status check_keys(json_t *obj, const char *const *known, size_t n_known, const char *where,
                            const char *expected) {
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        size_t k = 0;
        while (k < n_known && strcmp(key, known[k]) != 0) k++;
        char shown[64];
        if (k == n_known)
            return fc_error(FC_ERR_INVALID, "%s: unknown key %s (expected %s)", where,
                            quoted(key, shown, sizeof shown), expected);
    }
    return FC_OK;
}

/* "level": [80, 95]: the levels of conformal intervals, as predict --level. */
static fc_status read_levels(json_t *root, fc_forecast_params *p) {
    json_t *v = json_object_get(root, "level"), *e;
    size_t i;
    p->n_levels = 0;
    if (!v) return FC_OK;
    if (!json_is_array(v)) return fc_error(FC_ERR_INVALID, "level: expected a list of numbers, got %s", type_name(v));
    if (json_array_size(v) > FC_MAX_LEVELS) return fc_error(FC_ERR_INVALID, "level: at most %d levels", FC_MAX_LEVELS);
    json_array_foreach(v, i, e) {
        double x = json_is_number(e) ? json_number_value(e) : -1.0;
        if (!(x > 0.0 && x < 100.0))
            return fc_error(FC_ERR_INVALID, "level[%zu]: expected a number between 0 and 100", i);
        for (size_t j = 0; j < i; j++)
            if (p->levels[j] == x) return fc_error(FC_ERR_INVALID, "level[%zu]: %g is given twice", i, x);
        p->levels[p->n_levels++] = x;
    }
    fc_levels_sort(p->levels, p->n_levels);   /* as predict --level: neuralforecast's column order */
    return FC_OK;
}

static fc_status read_h(json_t *root, size_t *h) {
    json_t *v = json_object_get(root, "h");
    *h = 0;
    if (!v) return FC_OK;
    if (json_is_integer(v) && json_integer_value(v) >= 1) {
        *h = (size_t)json_integer_value(v);
        return FC_OK;
    }
    if (json_is_integer(v))
        return fc_error(FC_ERR_INVALID, "h: expected a positive integer, got %" JSON_INTEGER_FORMAT,
                        json_integer_value(v));
    return fc_error(FC_ERR_INVALID, "h: expected a positive integer, got %s", type_name(v));
}

static fc_status read_series_array(json_t *root, json_request *q) {
    json_t *v = json_object_get(root, "series");
    if (!v)
        return fc_error(FC_ERR_INVALID, "series: missing: expected a non-empty array of "
                        "{\"unique_id\", \"ds\", \"y\"} objects");
    if (!json_is_array(v) || json_array_size(v) == 0)
        return fc_error(FC_ERR_INVALID, "series: expected a non-empty array, got %s",
                        json_is_array(v) ? "an empty one" : type_name(v));
    q->series = v;
    q->n_series = json_array_size(v);
    return FC_OK;
}

static fc_status check_id(json_t *id, size_t i) {
    if (!id) return fc_error(FC_ERR_INVALID, "series[%zu].unique_id: missing", i);
    if (!json_is_string(id) || json_string_length(id) == 0)
        return fc_error(FC_ERR_INVALID, "series[%zu].unique_id: expected a non-empty string, got %s", i,
                        json_is_string(id) ? "an empty one" : type_name(id));
    if (json_string_length(id) > FC_MAX_ID_BYTES)   /* the loader's bound, named here */
        return fc_error(FC_ERR_INVALID, "series[%zu].unique_id: %zu bytes, more than the %d a "
                        "unique_id may hold", i, json_string_length(id), FC_MAX_ID_BYTES);
    return FC_OK;
}

static fc_status check_array(json_t *a, size_t i, const char *name) {
    if (!a) return fc_error(FC_ERR_INVALID, "series[%zu].%s: missing", i, name);
    if (!json_is_array(a) || json_array_size(a) == 0)
        return fc_error(FC_ERR_INVALID, "series[%zu].%s: expected a non-empty array, got %s", i, name,
                        json_is_array(a) ? "an empty one" : type_name(a));
    return FC_OK;
}

/* Series i's object, keys, unique_id and array lengths (not its entries:
 * the limits are checked first). */
static fc_status check_series_shape(json_request *q, size_t i) {
    static const char *const keys[] = {"unique_id", "ds", "y"};
    json_t *s = json_array_get(q->series, i);
    char where[48];
    snprintf(where, sizeof where, "series[%zu]", i);
    if (!json_is_object(s))
        return fc_error(FC_ERR_INVALID, "%s: expected an object with unique_id, ds and y, got %s", where,
                        type_name(s));
    FC_TRY(check_keys(s, keys, 3, where, "unique_id, ds and y"));
    FC_TRY(check_id(json_object_get(s, "unique_id"), i));
    json_t *ds = json_object_get(s, "ds"), *y = json_object_get(s, "y");
    FC_TRY(check_array(ds, i, "ds"));
    FC_TRY(check_array(y, i, "y"));
    if (json_array_size(ds) != json_array_size(y))
        return fc_error(FC_ERR_INVALID, "%s.ds and %s.y have different lengths (%zu and %zu)", where, where,
                        json_array_size(ds), json_array_size(y));
    q->n_points += json_array_size(ds);
    return FC_OK;
}

/* A string ds must be a date or datetime of the request's one kind. An
 * integer in a string ("17") is refused too: the header promises integer
 * ds as JSON integers, and a client mixing the two has a bug. */
static fc_status check_ds_string(json_request *q, size_t i, size_t j, json_t *v) {
    char shown[64];
    fc_ds_kind kind;
    int64_t value;
    const char *text = json_string_value(v);
    quoted(text, shown, sizeof shown);
    if (!fc_ds_parse(text, json_string_length(v), &kind, &value))
        return fc_error(FC_ERR_INVALID, "series[%zu].ds[%zu]: cannot parse %s: expected a date "
                        "(2000-06-05) or a datetime (2000-06-05 00:30:00)", i, j, shown);
    if (kind == FC_DS_INDEX)
        return fc_error(FC_ERR_INVALID, "series[%zu].ds[%zu]: %s is an integer in a string: write an "
                        "integer ds as a JSON integer", i, j, shown);
    if (i == 0 && j == 0) q->kind = kind;
    if (kind != q->kind)
        return fc_error(FC_ERR_INVALID, "series[%zu].ds[%zu]: %s is a %s but series[0].ds[0] is a %s: "
                        "every ds must be of the same kind", i, j, shown, fc_ds_kind_name(kind),
                        fc_ds_kind_name(q->kind));
    return FC_OK;
}

static fc_status check_ds_entry(json_request *q, size_t i, size_t j, json_t *v) {
    if (!json_is_string(v) && !json_is_integer(v))
        return fc_error(FC_ERR_INVALID, "series[%zu].ds[%zu]: expected a date string or an integer, got %s",
                        i, j, type_name(v));
    if (i == 0 && j == 0) q->ds_strings = json_is_string(v);
    if (json_is_string(v) != q->ds_strings)
        return fc_error(FC_ERR_INVALID, "series[%zu].ds[%zu]: expected %s like series[0].ds[0], got %s: "
                        "ds entries are all strings or all integers", i, j,
                        q->ds_strings ? "a string" : "an integer", type_name(v));
    if (q->ds_strings) return check_ds_string(q, i, j, v);
    json_int_t n = json_integer_value(v);
    if (n < -DS_INDEX_MAX || n > DS_INDEX_MAX)
        return fc_error(FC_ERR_INVALID, "series[%zu].ds[%zu]: %" JSON_INTEGER_FORMAT " is out of range: an "
                        "integer ds has at most 18 digits", i, j, n);
    return FC_OK;
}

/* Numbers reach here finite: jansson refuses NaN and Infinity literals and
 * reals that overflow. Magnitudes beyond float are the loader's to refuse. */
static fc_status check_y_entry(size_t i, size_t j, json_t *v) {
    if (json_is_number(v) || json_is_null(v)) return FC_OK;
    return fc_error(FC_ERR_INVALID, "series[%zu].y[%zu]: expected a number or null, got %s", i, j,
                    type_name(v));
}

static fc_status check_entries(json_request *q, size_t i) {
    json_t *s = json_array_get(q->series, i);
    json_t *ds = json_object_get(s, "ds"), *y = json_object_get(s, "y");
    for (size_t j = 0; j < json_array_size(ds); j++) {
        FC_TRY(check_ds_entry(q, i, j, json_array_get(ds, j)));
        FC_TRY(check_y_entry(i, j, json_array_get(y, j)));
    }
    return FC_OK;
}

typedef struct {
    const char *id;
    size_t index;
} id_ref;

static int compare_ids(const void *a, const void *b) {
    const id_ref *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static const char *series_id(const json_request *q, size_t i) {
    return json_string_value(json_object_get(json_array_get(q->series, i), "unique_id"));
}

/* The CSV loader would merge two series of one unique_id into one (and
 * then report a duplicate ds, or worse, none): refused by name instead. */
static fc_status check_unique_ids(const json_request *q) {
    id_ref *r = fc_malloc(q->n_series * sizeof *r, "request unique_ids");
    if (!r) return FC_ERR_MEMORY;
    for (size_t i = 0; i < q->n_series; i++) r[i] = (id_ref){series_id(q, i), i};
    qsort(r, q->n_series, sizeof *r, compare_ids);
    fc_status st = FC_OK;
    for (size_t k = 1; k < q->n_series && st == FC_OK; k++) {
        char shown[64];
        if (strcmp(r[k - 1].id, r[k].id) == 0)
            st = fc_error(FC_ERR_INVALID, "series[%zu].unique_id: %s is already series[%zu]'s; each series "
                          "needs its own unique_id", r[k].index, quoted(r[k].id, shown, sizeof shown),
                          r[k - 1].index);
    }
    free(r);
    return st;
}

/* The request's structure, limits, entries and ids, in that order: the
 * limits before anything proportional to the points is done. */
static fc_status read_request(json_t *root, const fc_forecast_limits *lim, json_request *q, fc_forecast_params *p) {
    static const char *const keys[] = {"series", "h", "level"};
    if (!json_is_object(root))
        return fc_error(FC_ERR_INVALID, "request: expected a JSON object {\"series\": [...]}, got %s",
                        type_name(root));
    FC_TRY(check_keys(root, keys, 3, "request", "\"series\" and optionally \"h\" and \"level\""));
    FC_TRY(read_h(root, &p->h));
    FC_TRY(read_levels(root, p));
    FC_TRY(read_series_array(root, q));
    FC_TRY(check_limits(lim, q->n_series, 0));
    for (size_t i = 0; i < q->n_series; i++) FC_TRY(check_series_shape(q, i));
    FC_TRY(check_limits(lim, q->n_series, q->n_points));
    for (size_t i = 0; i < q->n_series; i++) FC_TRY(check_entries(q, i));
    return check_unique_ids(q);
}

/* ------------------------------------------ request: JSON to CSV text */

/* Line breaks in a quoted CSV field, counted as the reader counts them
 * (CRLF, LF and a lone CR each end one line). */
static size_t line_breaks(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += *s == '\n' || (*s == '\r' && s[1] != '\n');
    return n;
}

/* Two literals cannot cross exactly, both jansson's doing: -0 is read as
 * the integer 0 (y +0.0 where the CSV's -0 gives -0.0: a sign of zero no
 * forecast sees), and an integer beyond int64 is a parse error ("too big
 * integer") where the CSV would round it (a client writes 1e19 instead). */
static void write_number(FILE *f, json_t *v) {
    if (json_is_integer(v)) fprintf(f, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
    else if (json_is_real(v)) fc_csv_write_real(f, json_real_value(v));
    /* null: an empty field, which the loader reads as missing */
}

static void write_series_rows(FILE *f, json_t *s) {
    const char *id = json_string_value(json_object_get(s, "unique_id"));
    json_t *ds = json_object_get(s, "ds"), *y = json_object_get(s, "y");
    for (size_t j = 0; j < json_array_size(ds); j++) {
        fc_csv_write_field(f, id);   /* quoted as RFC 4180 when it holds , " CR or LF */
        fputc(',', f);
        json_t *when = json_array_get(ds, j);
        if (json_is_string(when)) fc_csv_write_field(f, json_string_value(when));
        else write_number(f, when);
        fputc(',', f);
        write_number(f, json_array_get(y, j));
        fputc('\n', f);
    }
}

/* Memory streams: a growing buffer behind a FILE *, ended by mem_close. */
typedef struct {
    FILE *f;
    char *text;
    size_t len;
} mem_text;

static fc_status mem_open(mem_text *m, const char *what) {
    m->text = NULL;
    m->len = 0;
    m->f = open_memstream(&m->text, &m->len);
    return m->f ? FC_OK : fc_error(FC_ERR_MEMORY, "cannot open a memory stream for the %s", what);
}

/* The text (NUL-terminated, m->len bytes), or NULL when a write failed. */
static char *mem_close(mem_text *m, const char *what) {
    int failed = ferror(m->f);
    if (fclose(m->f) != 0 || failed) {
        free(m->text);
        fc_error(FC_ERR_MEMORY, "cannot build the %s in memory", what);
        return NULL;
    }
    return m->text;
}

static fc_status write_request_csv(json_request *q, mem_text *m) {
    FC_TRY(mem_open(m, "request's CSV text"));
    fputs("unique_id,ds,y\n", m->f);
    size_t line = 2;
    for (size_t i = 0; i < q->n_series; i++) {
        json_t *s = json_array_get(q->series, i);
        q->first_line[i] = line;
        q->row_lines[i] = 1 + line_breaks(series_id(q, i));
        write_series_rows(m->f, s);
        line += json_array_size(json_object_get(s, "ds")) * q->row_lines[i];
    }
    q->first_line[q->n_series] = line;
    return mem_close(m, "request's CSV text") ? FC_OK : FC_ERR_MEMORY;
}

/* --------------------------------- request: loader messages to fields */

/* The series and point whose row starts on CSV line `line`; 0 if none. */
static int row_of_line(const json_request *q, size_t line, size_t *s, size_t *j) {
    if (line < q->first_line[0] || line >= q->first_line[q->n_series]) return 0;
    size_t lo = 0, hi = q->n_series;   /* the last series starting at or before line */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (q->first_line[mid] <= line) lo = mid;
        else hi = mid;
    }
    size_t off = line - q->first_line[lo];
    if (off % q->row_lines[lo]) return 0;
    *s = lo;
    *j = off / q->row_lines[lo];
    return 1;
}

/* Appends to a fixed buffer, cutting what does not fit. */
typedef struct {
    char buf[1024];
    size_t len;
} msg_out;

static void put(msg_out *o, const char *text, size_t n) {
    size_t room = sizeof o->buf - 1 - o->len;
    if (n > room) n = room;
    memcpy(o->buf + o->len, text, n);
    o->len += n;
    o->buf[o->len] = '\0';
}

static void put_path(msg_out *o, size_t s, const char *column, size_t j) {
    char path[96];
    int n = strcmp(column, "unique_id") == 0 ? snprintf(path, sizeof path, "series[%zu].unique_id", s)
            : snprintf(path, sizeof path, "series[%zu].%s[%zu]", s, column, j);
    put(o, path, (size_t)n);
}

/* Copies text, "line N" of a row becoming that row's series[i].ds[j]. */
static void put_rewritten(msg_out *o, const json_request *q, const char *text) {
    const char *p = text, *hit;
    while ((hit = strstr(p, "line ")) != NULL) {
        char *end;
        size_t line = (size_t)strtoull(hit + 5, &end, 10), s, j;
        int digits = hit[5] >= '0' && hit[5] <= '9';
        put(o, p, (size_t)(hit - p));
        if (digits && row_of_line(q, line, &s, &j)) put_path(o, s, "ds", j);
        else put(o, hit, (size_t)((digits ? end : hit + 5) - hit));
        p = digits ? end : hit + 5;
    }
    put(o, p, strlen(p));
}

/* The column a loader message names ("column 'y' (3): ..."), moving *p
 * past it; "ds" when it names none. */
static void take_column(const char **p, char *column, size_t cap) {
    snprintf(column, cap, "ds");
    if (strncmp(*p, "column '", 8) != 0) return;
    const char *name = *p + 8, *close = strstr(name, "' (");
    const char *rest = close ? strstr(close, "): ") : NULL;
    if (!rest) return;
    snprintf(column, cap, "%.*s", (int)(close - name), name);
    *p = rest + 3;
}

/* "request:5: column 'y' (3): '1e39' is beyond..." becomes
 * "series[1].y[2]: '1e39' is beyond...". The JSON itself was well-formed,
 * so a parse failure of its CSV form is invalid content (FC_ERR_INVALID). */
static fc_status translate_loader_error(const json_request *q, fc_status st) {
    char msg[1024], column[16], *end = NULL;
    msg_out o = {.len = 0};
    size_t line = 0, s, j, prefix = strlen(REQUEST_NAME ":");
    snprintf(msg, sizeof msg, "%s", fc_last_error());
    if (st == FC_ERR_PARSE) st = FC_ERR_INVALID;
    if (strncmp(msg, REQUEST_NAME ":", prefix) == 0) line = (size_t)strtoull(msg + prefix, &end, 10);
    if (line == 0 || strncmp(end, ": ", 2) != 0 || !row_of_line(q, line, &s, &j))
        return fc_error(st, "%s", msg);   /* not about a row: as the loader said it */
    const char *p = end + 2;
    take_column(&p, column, sizeof column);
    if (strcmp(column, "y") != 0 && strcmp(column, "unique_id") != 0) snprintf(column, sizeof column, "ds");
    put_path(&o, s, column, j);
    put(&o, ": ", 2);
    put_rewritten(&o, q, p);
    return fc_error(st, "%s", o.buf);
}

static fc_status load_request(json_request *q, const fc_load_options *opt, fc_dataset **ds) {
    mem_text m;
    q->first_line = fc_malloc((2 * q->n_series + 1) * sizeof *q->first_line, "request line map");
    if (!q->first_line) return FC_ERR_MEMORY;
    q->row_lines = q->first_line + q->n_series + 1;
    FC_TRY(write_request_csv(q, &m));
    fc_status st = fc_dataset_load_buffer(REQUEST_NAME, m.text, m.len, opt, ds);
    free(m.text);
    return st == FC_OK ? FC_OK : translate_loader_error(q, st);
}

fc_status fc_forecast_request_json(const char *body, size_t len, const fc_load_options *opt,
                                   const fc_forecast_limits *lim, fc_dataset **ds, fc_forecast_params *p) {
    json_error_t err;
    json_request q;
    fc_forecast_params unused;
    memset(&q, 0, sizeof q);
    *ds = NULL;
    if (!p) p = &unused;
    memset(p, 0, sizeof *p);
    json_t *root = json_loadb(body ? body : "", body ? len : 0, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        return fc_error(FC_ERR_PARSE, "request: invalid JSON at line %d, column %d: %s", err.line, err.column,
                        err.text);
    fc_status st = read_request(root, lim, &q, p);
    fc_load_options lo = bounded(opt, lim);
    if (st == FC_OK) st = load_request(&q, &lo, ds);
    if (st != FC_OK) memset(p, 0, sizeof *p);
    free(q.first_line);
    json_decref(root);
    return st;
}

/* ------------------------------------------------------- request: CSV */

/* The data rows of a CSV body (its non-blank records less the header),
 * counted without keeping any, so that a body past max_points is refused
 * before the loader allocates for it. A syntax error ends the count early:
 * the loader then reports it. */
static fc_status count_csv_rows(const char *body, size_t len, size_t *rows) {
    fc_csv_reader r;
    size_t records = 0, n, line;
    int blank;
    fc_csv_result res;
    fc_csv_init(&r, body, len, 1);
    while ((res = fc_csv_next(&r, &n, &line, &blank)) == FC_CSV_RECORD) records += !blank;
    fc_csv_free(&r);
    *rows = records ? records - 1 : 0;
    return res == FC_CSV_NOMEM ? FC_ERR_MEMORY : FC_OK;
}

fc_status fc_forecast_request_csv(const char *body, size_t len, const fc_load_options *opt,
                                  const fc_forecast_limits *lim, fc_dataset **ds) {
    size_t rows = 0;
    *ds = NULL;
    if (lim && lim->max_points) FC_TRY(count_csv_rows(body, len, &rows));
    FC_TRY(check_limits(lim, 0, rows));
    fc_load_options lo = bounded(opt, lim);
    FC_TRY(fc_dataset_load_buffer(REQUEST_NAME, body, len, &lo, ds));
    /* Series are known only now; the load was bounded by max_points. */
    fc_status st = check_limits(lim, (*ds)->n_series, 0);
    if (st != FC_OK) fc_dataset_free(ds);
    return st;
}

/* ---------------------------------------------------------- responses */


typedef struct {
    const fc_dataset *ds;
    const fc_freq *freq;
    size_t h;
    const fc_forecast_columns *cols;   /* one model's columns */
} response_ctx;

/* An integer ds is a JSON number (as in the request), a date a string;
 * either is the CSV's text. */
static void put_future_ds(FILE *f, const response_ctx *c, size_t s) {
    char when[64];
    for (size_t k = 0; k < c->h; k++) {
        if (k) fputc(',', f);
        fc_forecast_ds_text(c->ds, c->freq, s, k, when, sizeof when);
        if (c->ds->ds_kind == FC_DS_INDEX) fputs(when, f);
        else fc_json_put_string(f, when);
    }
}

/* The CSV's digits; a non-finite forecast (which JSON cannot write) as null. */
static void put_values(FILE *f, const response_ctx *c, size_t s, size_t q) {
    size_t Q = c->cols->n_outputs;
    for (size_t k = 0; k < c->h; k++) {
        double v = c->cols->values[(s * c->h + k) * Q + q];
        if (k) fputc(',', f);
        if (isfinite(v)) fprintf(f, FC_FORECAST_VALUE_FORMAT, v);
        else fputs("null", f);
    }
}

static void put_series(FILE *f, const response_ctx *c, size_t s) {
    fputs("{\"unique_id\":", f);
    fc_json_put_string(f, c->ds->ids[s]);
    fputs(",\"ds\":[", f);
    put_future_ds(f, c, s);
    fputs("]", f);
    for (size_t q = 0; q < c->cols->n_outputs; q++) {
        char name[256];
        snprintf(name, sizeof name, "%s%s", c->cols->name, c->cols->suffixes[q]);
        fputc(',', f);
        fc_json_put_string(f, name);
        fputs(":[", f);
        put_values(f, c, s, q);
        fputs("]", f);
    }
    fputs("}", f);
}

static const char *const POINT_SUFFIX[1] = {""};

char *fc_forecast_response_json(const char *model, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                const char *column, const float *forecasts, size_t *len) {
    fc_forecast_columns one = {column, 1, POINT_SUFFIX, forecasts};
    return fc_forecast_response_json_columns(model, ds, freq, h, &one, len);
}

char *fc_forecast_response_json_columns(const char *model, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                        const fc_forecast_columns *cols, size_t *len) {
    response_ctx c = {ds, freq, h, cols};
    mem_text m;
    if (mem_open(&m, "JSON response") != FC_OK) return NULL;
    fputs("{\"model\":", m.f);
    fc_json_put_string(m.f, model ? model : "");
    fprintf(m.f, ",\"h\":%zu,\"forecasts\":[", h);
    for (size_t s = 0; s < ds->n_series; s++) {
        if (s) fputc(',', m.f);
        put_series(m.f, &c, s);
    }
    fputs("]}\n", m.f);
    char *text = mem_close(&m, "JSON response");
    if (text && len) *len = m.len;
    return text;
}

char *fc_forecast_response_csv(const fc_dataset *ds, const fc_freq *freq, size_t h, const char *column,
                               const float *forecasts, size_t *len) {
    fc_forecast_columns one = {column, 1, POINT_SUFFIX, forecasts};
    return fc_forecast_response_csv_columns(ds, freq, h, &one, len);
}

char *fc_forecast_response_csv_columns(const fc_dataset *ds, const fc_freq *freq, size_t h,
                                       const fc_forecast_columns *cols, size_t *len) {
    mem_text m;
    if (mem_open(&m, "CSV response") != FC_OK) return NULL;
    if (fc_forecast_write_columns_stream(m.f, ds, freq, h, cols, 1) != FC_OK) {
        fclose(m.f);
        free(m.text);
        return NULL;
    }
    char *text = mem_close(&m, "CSV response");
    if (text && len) *len = m.len;
    return text;
}
