/* RFC 4180 record reader (see csv_reader.h). One pass, byte at a time for
 * unquoted fields (the common case, a few bytes each) and memchr between
 * quotes for quoted ones. Lenient where pandas is lenient: a quote inside an
 * unquoted field is kept as a character. Strict where silence would corrupt
 * data: text after a closing quote and an unterminated quote are errors. */
#include "data/csv_reader.h"

#include <stdint.h>
#include <string.h>
#include "core/error.h"

void fc_csv_init(fc_csv_reader *r, const char *text, size_t len, size_t max_fields) {
    memset(r, 0, sizeof *r);
    r->pos = text;
    r->end = text + len;
    r->line = 1;
    r->max_fields = max_fields;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) r->pos += 3;
}

void fc_csv_free(fc_csv_reader *r) {
    free(r->fields);
    free(r->scratch);
    free(r->scratch_index);
    r->fields = NULL;
    r->scratch = NULL;
    r->scratch_index = NULL;
}

/* Makes room for field number `i` (0-based) in the span arrays. */
static int ensure_field_slot(fc_csv_reader *r, size_t i) {
    if (i < r->fields_cap) return 1;
    size_t cap = r->fields_cap ? r->fields_cap * 2 : 16;
    fc_span *f = fc_realloc(r->fields, cap * sizeof *f, "CSV field spans");
    if (!f) return 0;
    r->fields = f;
    size_t *s = fc_realloc(r->scratch_index, cap * sizeof *s, "CSV field spans");
    if (!s) return 0;
    r->scratch_index = s;
    r->fields_cap = cap;
    return 1;
}

static int ensure_scratch(fc_csv_reader *r, size_t extra) {
    if (r->scratch_used + extra <= r->scratch_cap) return 1;
    size_t cap = r->scratch_cap ? r->scratch_cap : 256;
    while (cap < r->scratch_used + extra) cap *= 2;
    char *s = fc_realloc(r->scratch, cap, "CSV quoted fields");
    if (!s) return 0;
    r->scratch = s;
    r->scratch_cap = cap;
    return 1;
}

static int is_field_end(const fc_csv_reader *r, const char *p) {
    return p == r->end || *p == ',' || *p == '\n' || *p == '\r';
}

static void read_unquoted(fc_csv_reader *r, fc_span *f) {
    const char *p = r->pos, *end = r->end;
    while (p < end && *p != ',' && *p != '\n' && *p != '\r') p++;
    f->ptr = r->pos;
    f->len = (size_t)(p - r->pos);
    r->pos = p;
}

/* Counts line ends inside [p, end) the way the record loop does: CRLF, LF
 * and lone CR each end one line. */
static size_t count_lines(const char *p, const char *end) {
    size_t n = 0;
    for (; p < end; p++)
        n += *p == '\n' || (*p == '\r' && (p + 1 == end || p[1] != '\n'));
    return n;
}

/* Copies the quoted content [p, end), "" collapsed to ", to the scratch. */
static int unescape_to_scratch(fc_csv_reader *r, const char *p, const char *end, size_t *offset) {
    if (!ensure_scratch(r, (size_t)(end - p))) return 0;
    *offset = r->scratch_used;
    char *out = r->scratch + r->scratch_used;
    while (p < end) {
        *out++ = *p;
        p += (*p == '"') ? 2 : 1;
    }
    r->scratch_used = (size_t)(out - r->scratch);
    return 1;
}

/* Reads "..." at r->pos. *scratch_at is 0, or offset + 1 in the scratch. */
static fc_csv_result read_quoted(fc_csv_reader *r, size_t field, int store, fc_span *f,
                                 size_t *scratch_at) {
    const char *open = r->pos, *p = open + 1, *q;
    int escaped = 0;
    for (;;) {
        q = memchr(p, '"', (size_t)(r->end - p));
        if (!q) {
            r->error_line = r->line;
            r->error_field = field;
            r->error_what = "unterminated quoted field: expected a closing '\"'";
            return FC_CSV_SYNTAX;
        }
        if (q + 1 < r->end && q[1] == '"') { escaped = 1; p = q + 2; continue; }
        break;
    }
    size_t lines = count_lines(open + 1, q);
    *scratch_at = 0;
    f->ptr = open + 1;
    f->len = (size_t)(q - open - 1);
    if (escaped && store) {
        size_t off;
        if (!unescape_to_scratch(r, open + 1, q, &off)) return FC_CSV_NOMEM;
        *scratch_at = off + 1;
        f->len = r->scratch_used - off;
    }
    r->pos = q + 1;
    r->line += lines;
    if (!is_field_end(r, r->pos)) {
        r->error_line = r->line;
        r->error_field = field;
        r->error_what = "unexpected text after a closing quote: expected ',' or the end of the line";
        return FC_CSV_SYNTAX;
    }
    return FC_CSV_RECORD;
}

static void consume_line_end(fc_csv_reader *r) {
    if (r->pos == r->end) return;
    if (*r->pos == '\r') {
        r->pos++;
        if (r->pos < r->end && *r->pos == '\n') r->pos++;
    } else {
        r->pos++;  /* '\n' */
    }
    r->line++;
}

fc_csv_result fc_csv_next(fc_csv_reader *r, size_t *n_fields, size_t *line, int *blank) {
    if (r->pos >= r->end) return FC_CSV_END;
    *line = r->line;
    r->scratch_used = 0;
    int first_quoted = *r->pos == '"';
    size_t n = 0;
    for (;;) {
        int store = n < r->max_fields;
        fc_span f;
        size_t at = 0;
        if (store && !ensure_field_slot(r, n)) return FC_CSV_NOMEM;
        if (r->pos < r->end && *r->pos == '"') {
            fc_csv_result res = read_quoted(r, n + 1, store, &f, &at);
            if (res != FC_CSV_RECORD) return res;
        } else {
            read_unquoted(r, &f);
        }
        if (store) {
            r->fields[n] = f;
            r->scratch_index[n] = at;
        }
        n++;
        if (r->pos < r->end && *r->pos == ',') { r->pos++; continue; }
        consume_line_end(r);
        break;
    }
    size_t stored = n < r->max_fields ? n : r->max_fields;
    for (size_t i = 0; i < stored; i++)  /* the scratch may have moved: resolve now */
        if (r->scratch_index[i]) r->fields[i].ptr = r->scratch + r->scratch_index[i] - 1;
    *n_fields = n;
    *blank = n == 1 && !first_quoted && r->fields_cap && r->fields[0].len == 0;
    return FC_CSV_RECORD;
}
