/* Static exogenous variables: one row of numbers per series, read from a
 * CSV of its own (neuralforecast's static_df: a unique_id column and one
 * column per static variable), and looked up in a dataset's series order. */
#ifndef FC_DATA_STATIC_TABLE_H
#define FC_DATA_STATIC_TABLE_H

#include <stddef.h>
#include "data/dataset.h"
#include "data/id_table.h"

typedef struct {
    char *source;        /* file name (or the name given for a buffer), for messages */
    size_t n_cols;       /* static columns: the file's columns but unique_id */
    char **col_names;    /* (n_cols) in the file's order */
    size_t n_rows;       /* one per series, in file order */
    fc_id_table ids;     /* row r's unique_id is fc_id_table_str(&ids, r) */
    size_t *line;        /* (n_rows) line of each row, for messages */
    double *values;      /* (n_rows, n_cols) row-major, every one finite */
} fc_static_table;

/* Reads a static CSV. Errors (FC_ERR_PARSE) name the file, line and
 * column: empty file, no unique_id column, no other column, an empty or
 * repeated column name, a row with the wrong number of fields, an empty or
 * repeated unique_id (with both lines), a value that is not a finite
 * number, or an empty/NaN value (static values must be given). */
fc_status fc_static_table_load(const char *path, fc_static_table **out);

/* The same from a buffer (HTTP bodies, tests); `name` stands for the file. */
fc_status fc_static_table_load_buffer(const char *name, const char *text, size_t len,
                                      fc_static_table **out);

void fc_static_table_free(fc_static_table **t);

/* The static columns, to default to all of them as neuralforecast does
 * when stat_exog_list names every column of static_df: *names is
 * t->col_names (owned by t), *n their count. */
void fc_static_table_columns(const fc_static_table *t, const char *const **names, size_t *n);

/* Fills *out with a new (d->n_series, n_names) row-major array (free()
 * it): the named static columns of every series of d, in d's series order.
 * Rows of series d does not have are ignored. data_name names d's file in
 * messages (NULL: d->source). FC_ERR_INVALID when a name is not a column of
 * the static file (the message lists its columns) or a series of d has no
 * row in it. */
fc_status fc_static_values(const fc_static_table *t, const fc_dataset *d, const char *const *names,
                           size_t n_names, const char *data_name, double **out);

/* Attaches every column of t to d (fc_dataset.static_*), replacing any
 * attached before: FC_ERR_INVALID naming t's source when a series of d has
 * no row in it. */
fc_status fc_dataset_attach_static_table(fc_dataset *d, const fc_static_table *t);

#endif
