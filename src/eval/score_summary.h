/* From the windows' sums to scores: each metric of each model on every
 * (unique_id, cutoff) window, as utilsforecast.losses computes it, then
 * means over windows (NaN windows left out, as pandas' mean does):
 *   overall     all windows (utilsforecast.evaluate(..., agg_fn="mean"))
 *   per cutoff  the windows of one cutoff, cutoffs in increasing order
 *   per series  the windows of one unique_id, ids in byte order */
#ifndef FC_EVAL_SCORE_SUMMARY_H
#define FC_EVAL_SCORE_SUMMARY_H

#include "eval/score_table.h"

typedef enum {
    FC_METRIC_MAE = 0, FC_METRIC_MSE, FC_METRIC_RMSE, FC_METRIC_SMAPE, FC_METRIC_MAPE, FC_METRIC_MASE,
    FC_METRIC_CRPS, FC_METRIC_QL, FC_METRIC_COVERAGE, FC_METRIC_CROSSING
} fc_metric_kind;

/* A metric row: kind and its parameter (the quantile of QL, the level of
 * coverage), named "MAE", "MSE", "RMSE", "sMAPE_200", "MAPE_pct", "MASE",
 * "scaled_CRPS", "QL_0.9", "coverage_80", "quantile_crossing" (the share of
 * points whose quantile forecasts are out of order). */
typedef struct {
    fc_metric_kind kind;
    double param;
    char name[48];
} fc_metric_row;

typedef enum { FC_GROUP_ALL = 0, FC_GROUP_CUTOFF, FC_GROUP_SERIES } fc_group_kind;

typedef struct {
    fc_group_kind kind;
    int64_t cutoff;            /* FC_GROUP_CUTOFF */
    const char *id;            /* FC_GROUP_SERIES (the table's string) */
    size_t windows, points;
    double *means;             /* (n_rows, n_models): NaN where undefined or the model lacks the metric */
} fc_score_group;

typedef struct {
    size_t n_rows;
    fc_metric_row *rows;
    size_t n_models;
    size_t n_groups;
    fc_score_group *groups;    /* overall, then per cutoff, then (per_series) per series */
    size_t windows, mase_left_out;   /* windows scored; of them without a MASE scale (> 0) */
    size_t n_cutoffs, n_series;
} fc_score_summary;

/* train: the history the table was read with (NULL: none, no MASE). */
fc_status fc_score_summarize(const fc_score_table *t, const fc_dataset *train, int per_series,
                             fc_score_summary *out);
void fc_score_summary_free(fc_score_summary *s);

static inline double fc_score_mean(const fc_score_summary *s, const fc_score_group *g, size_t row, size_t model) {
    return g->means[row * s->n_models + model];
}

#endif
