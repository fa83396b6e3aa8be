/* The columns of a cross-validation or forecast file: key columns by name,
 * then every other column belongs to a model. neuralforecast names a
 * model's extra outputs by suffixes of the model's name:
 *   NHITS            point forecast
 *   NHITS-median     quantile 0.5
 *   NHITS-lo-80      lower end of the 80 % interval, quantile 0.1
 *   NHITS-hi-80      upper end, quantile 0.9 (levels such as 80.0 too)
 *   NHITS_ql0.9      QuantileLoss's quantile 0.9
 * The point forecast is the bare column, else -median, else _ql0.5; a
 * model with none of them has quantile scores only. A quantile given by
 * two columns (-median and _ql0.5) is scored once, from the first. */
#ifndef FC_EVAL_SCORE_COLUMNS_H
#define FC_EVAL_SCORE_COLUMNS_H

#include <stddef.h>
#include <sys/types.h>
#include "fcast/status.h"

#define FC_EVAL_NO_COLUMN ((size_t)-1)

typedef enum { FC_ROLE_POINT = 0, FC_ROLE_MEDIAN, FC_ROLE_LO, FC_ROLE_HI, FC_ROLE_QL } fc_col_role;

/* The role of a model column by its name: *base_len is the length of the
 * model's name in it, *value the level (LO, HI), the quantile (QL,
 * MEDIAN: 0.5) or 0 (POINT). A suffix whose number does not parse, or
 * is out of range (level 0..100 exclusive, quantile 0..1 exclusive),
 * makes the whole name a point column. */
fc_col_role fc_score_column_role(const char *name, size_t *base_len, double *value);

typedef struct {
    char *name;
    size_t point_col;       /* FC_EVAL_NO_COLUMN: no point forecast */
    size_t n_q;             /* quantile columns, by increasing quantile */
    double *q;
    size_t *q_col;
    size_t n_lv;            /* complete intervals (both ends), by increasing level */
    double *level;
    size_t *lo_col, *hi_col;
} fc_score_model;

typedef struct {
    size_t col_id, col_ds, col_cutoff, col_y;   /* FC_EVAL_NO_COLUMN when absent */
    size_t n_cols;
    size_t n_models;
    fc_score_model *models;
} fc_score_layout;

/* Classifies the header `names` (n of them) of file `source`. unique_id
 * and ds are required, and cutoff and y too when `cv`; other columns are
 * models'. Errors (FC_ERR_PARSE) name the file, line 1 and the column. */
fc_status fc_score_layout_build(const char *source, char *const *names, size_t n, int cv, fc_score_layout *out);

/* Appends a model with a point forecast only, read from value slot `col`
 * (a baseline computed by fcast, not read from the file). */
fc_status fc_score_layout_add_point(fc_score_layout *l, const char *name, size_t col);

ssize_t fc_score_layout_find(const fc_score_layout *l, const char *name);

void fc_score_layout_free(fc_score_layout *l);

#endif
