/* The loader's intermediate form: the CSV's rows in file order, parsed but
 * not yet grouped, sorted or gap-filled. dataset_parse.c fills it in one pass
 * over the text; dataset_build.c turns it into an fc_dataset. */
#ifndef FC_DATA_RAW_TABLE_H
#define FC_DATA_RAW_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "data/csv_reader.h"
#include "data/dataset.h"
#include "data/freq.h"
#include "data/id_table.h"

#define FC_NO_COLUMN ((size_t)-1)
#define FC_MAX_ID_BYTES 4096

typedef struct {
    const char *source;      /* file name for messages */
    const char *row_noun;    /* NULL: rows are a file's lines ("FILE:LINE:"); else what a row's number
                              * counts ("position": arrays given to the C API, from 0) */
    fc_load_options opt;
    /* Header. */
    size_t n_cols;
    char **col_names;        /* (n_cols) */
    size_t col_id, col_ds, col_y;
    size_t n_exog;
    size_t *exog_cols;       /* (n_exog) column index of each exogenous variable */
    /* Rows, in file order. */
    size_t n_rows, cap;
    uint32_t *series;        /* (n_rows) interned unique_id */
    int64_t *ds;             /* (n_rows) */
    double *y;               /* (n_rows) 0 where missing */
    uint8_t *mask;           /* (n_rows) */
    size_t *line;            /* (n_rows) line where the row starts */
    double *exog;            /* (n_rows, n_exog) */
    fc_ds_kind kind;
    size_t kind_line;        /* first data line, which fixed `kind` */
    size_t header_line;
    size_t rows_read;        /* over all chunks (the streaming loader empties the columns) */
    fc_id_table ids;
    /* When the text is a read-only mapping of the file: its start, and how
     * far the parsed part has been handed back to the kernel (the parser
     * reads the text once, so the file never has to be resident whole). */
    const char *file_map;
    size_t map_released;
} fc_raw_table;

/* Parses the whole text into t (t zeroed by the caller, source and opt set). */
fc_status fc_raw_table_parse(fc_raw_table *t, const char *text, size_t len);

/* The same in chunks, for the streaming loader: the header, then at most
 * max_rows more rows appended at a time (the caller empties the columns by
 * setting n_rows to 0; interned ids stay). *end = 1 when the text is read.
 * The reader r belongs to the caller (fc_csv_free). */
fc_status fc_raw_table_begin(fc_raw_table *t, fc_csv_reader *r, const char *text, size_t len);
fc_status fc_raw_table_read(fc_raw_table *t, fc_csv_reader *r, size_t max_rows, int *end);

/* Groups, sorts, validates and gap-fills t into a new dataset. */
fc_status fc_raw_table_build(const fc_raw_table *t, fc_dataset **out);

void fc_raw_table_free(fc_raw_table *t);

/* The data's frequency: opt.freq when given (c may then be NULL), else the
 * one c inferred; an error when none can be inferred and the grid is
 * needed. */
fc_status fc_raw_table_freq(const fc_raw_table *t, const fc_freq_counter *c, fc_freq *out);

/* A point of a series as the messages show it. */
typedef struct {
    int64_t ds;
    size_t line;
} fc_grid_point;

/* The error of a point off series' grid: `at` against the previous point
 * (`relation`, e.g. "off", and a hint), or, with prev NULL, a first point
 * that is not the month anchor the frequency requires. */
fc_status fc_raw_off_grid_error(const fc_raw_table *t, const fc_freq *f, const char *series,
                                const fc_grid_point *at, const fc_grid_point *prev, const char *relation,
                                const char *hint);

/* The error of a second row for the same (unique_id, ds). */
fc_status fc_raw_duplicate_error(const fc_raw_table *t, const char *series, int64_t ds, size_t line,
                                 size_t first_line);

/* Gap filling may add at most FC_FILL_PER_ROW points per parsed row, plus
 * an allowance of FC_FILL_ALLOWANCE values shared by the row's columns: a
 * typo such as index 100000000 instead of 100 must become an error, not a
 * request for billions of rows. The most points rows parsed rows may fill to. */
#define FC_FILL_PER_ROW 64
#define FC_FILL_ALLOWANCE 1000000
static inline size_t fc_fill_limit(size_t rows, size_t n_exog) {
    return rows * FC_FILL_PER_ROW + FC_FILL_ALLOWANCE / (1 + n_exog);
}

/* A series as its first and last rows show it, and its points after gap
 * filling (fc_freq_grid_points; its rows when its last row is off its
 * grid, which the grid checks report). */
typedef struct {
    const char *name;
    fc_grid_point first, last;
    size_t rows, points;
} fc_series_span;

/* The bounds of t->opt (max_points, max_fill_bytes) on data of `rows`
 * parsed rows and `points` after gap filling: FC_OK within them, else
 * FC_ERR_MEMORY at `widest`, the series whose filling adds the most
 * points, naming it, its span, its points after filling and the bound
 * passed. Called before anything is allocated for the points. */
fc_status fc_fill_bounds_check(const fc_raw_table *t, const fc_freq *f, size_t rows, size_t points,
                               const fc_series_span *widest);

/* Writes parsed row r of t, or a missing point at ds (y 0, mask 0,
 * exogenous NaN), as point o of d. */
void fc_dataset_put_row(fc_dataset *d, size_t o, const fc_raw_table *t, size_t r);
void fc_dataset_put_missing(fc_dataset *d, size_t o, int64_t ds);

/* Sets a message "<source>:<line>: column '<name>' (<col+1>): <text>" (no
 * column part when col is FC_NO_COLUMN) and returns `code`. */
fc_status fc_raw_error(const fc_raw_table *t, fc_status code, size_t line, size_t col,
                       const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Writes a field for a message: quoted, at most ~40 bytes (not cutting a
 * UTF-8 sequence), control bytes as \xNN so a binary file cannot garble
 * the terminal. */
void fc_quote_field(const char *text, size_t len, char *buf, size_t cap);

#endif
