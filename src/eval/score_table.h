/* Scores of forecast files, gathered by window: one window is the rows of
 * one (unique_id, cutoff), the unit utilsforecast.losses scores.
 *
 * A file is read once, through a read-only mapping handed back to the
 * kernel as it goes, with the CSV reader of the data layer. The heap holds
 * the sums of each window (a few doubles per model) and, to refuse a
 * repeated (unique_id, ds, cutoff), one 24-byte key per row in a table at
 * most half full: memory proportional to the file's rows once, about 48
 * bytes a row, never the rows themselves.
 *
 * Two inputs:
 *   cross-validation  unique_id, ds, cutoff, y and model columns (what
 *                     neuralforecast's cross_validation writes);
 *   forecasts         unique_id, ds and model columns (fcast predict), whose
 *                     actual y come from a test file joined on (unique_id,
 *                     ds) and whose cutoff is each series' last ds in the
 *                     training history.
 * With a history (train), Naive and SeasonalNaive(m) forecasts made at each
 * cutoff are scored beside the models, and MASE is scaled by each window's
 * in-sample seasonal-naive MAE over the history up to its cutoff. */
#ifndef FC_EVAL_SCORE_TABLE_H
#define FC_EVAL_SCORE_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include "data/dataset.h"
#include "data/id_table.h"
#include "eval/pair_map.h"
#include "eval/score_columns.h"

typedef struct {
    const char *path;          /* the cross-validation or forecast file */
    const fc_dataset *train;   /* history; NULL: no MASE and no baselines (cv only) */
    const fc_dataset *test;    /* actuals: the forecasts input; NULL: cross-validation */
    size_t season;             /* m of SeasonalNaive and MASE (>= 1) */
} fc_score_input;

typedef struct {
    char *source;
    fc_score_layout lay;       /* the file's models, then the baselines */
    size_t n_file_models;      /* lay.models[0..n_file_models) come from the file */
    size_t n_values;           /* value slots of a row: the file's columns, then the baselines */
    size_t *model_off;         /* per model: offset of its sums in a window's block */
    size_t stride;             /* doubles per window: count, sum |y|, then the models' sums */
    fc_id_table ids;
    int32_t *id_train, *id_test;   /* per unique_id: series in train / test, or -1 */
    size_t id_slots;
    fc_pair_map windows;       /* (unique_id, cutoff) -> window */
    fc_pair_map rows;          /* (window, ds) -> line, the duplicate check */
    size_t n_windows, cap_windows;
    uint32_t *w_id;            /* per window: unique_id number */
    int64_t *w_cutoff;
    size_t *w_cutoff_at;       /* the cutoff's point in its train series */
    double *w_sums;            /* (n_windows, stride) */
    fc_ds_kind kind;           /* of ds and cutoff (date and datetime mix as datetime) */
    int kind_set;
    size_t season;
    int has_train;
    size_t rows_scored, rows_without_y, rows_without_actual;
    size_t baselines_shadowed;  /* baselines left out: the file has a model of that name */
} fc_score_table;

fc_status fc_score_table_read(const fc_score_input *in, fc_score_table *t);
void fc_score_table_free(fc_score_table *t);

/* Window w's block of sums (stride doubles). */
static inline double *fc_score_window(const fc_score_table *t, size_t w) { return t->w_sums + w * t->stride; }

/* In a model's block: its fc_point_sums (6 doubles), then one quantile-loss
 * sum per quantile, then one covered count per interval level. */
#define FC_SCORE_POINT_DOUBLES 6

#endif
