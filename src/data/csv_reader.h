/* An RFC 4180 CSV record reader over a memory buffer.
 *
 * Fields are spans into the buffer; only a quoted field holding doubled
 * quotes ("a ""b""") is copied, unescaped, into a scratch buffer owned by the
 * reader. Nothing is allocated per field: the span array and the scratch
 * buffer grow geometrically and are reused for every record. Accepts CRLF, LF
 * or lone CR line ends, a missing final newline, and quoted fields spanning
 * lines. */
#ifndef FC_DATA_CSV_READER_H
#define FC_DATA_CSV_READER_H

#include <stddef.h>
#include "fcast/status.h"

typedef struct {
    const char *ptr;
    size_t len;
} fc_span;

typedef struct {
    const char *pos, *end;  /* unread part of the buffer */
    size_t line;            /* 1-based line at `pos` */
    fc_span *fields;        /* fields of the last record (at most `max_fields`) */
    size_t fields_cap;
    size_t max_fields;      /* fields beyond this are counted, not stored */
    char *scratch;          /* unescaped quoted fields of the last record */
    size_t scratch_cap, scratch_used;
    size_t *scratch_index;  /* per stored field: scratch offset + 1, or 0 */
    /* Where a syntax error was found (for the caller's message). */
    size_t error_line, error_field;
    const char *error_what;
} fc_csv_reader;

typedef enum {
    FC_CSV_RECORD = 0,  /* a record was read */
    FC_CSV_END,         /* no more records */
    FC_CSV_SYNTAX,      /* error_line / error_field / error_what say why */
    FC_CSV_NOMEM        /* fc_error was set */
} fc_csv_result;

/* Skips a UTF-8 byte order mark. `max_fields` bounds the stored spans. */
void fc_csv_init(fc_csv_reader *r, const char *text, size_t len, size_t max_fields);
void fc_csv_free(fc_csv_reader *r);

/* Reads the next record: *n_fields is its true field count (fields beyond
 * max_fields are not stored), *line the line where it starts. A blank line
 * is returned as one empty unquoted field with *blank = 1. */
fc_csv_result fc_csv_next(fc_csv_reader *r, size_t *n_fields, size_t *line, int *blank);

#endif
