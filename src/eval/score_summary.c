/* Window scores and their means (see score_summary.h). */
#include "eval/score_summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "eval/metrics.h"
#include "eval/scores.h"

/* ---- the metric rows: the union over models, in a fixed order ---- */

static int compare_rows(const void *a, const void *b) {
    const fc_metric_row *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return x->param < y->param ? -1 : x->param > y->param;
}

static void name_row(fc_metric_row *r) {
    static const char *const base[] = {"MAE", "MSE", "RMSE", "sMAPE_200", "MAPE_pct", "MASE", "scaled_CRPS"};
    if (r->kind == FC_METRIC_QL) snprintf(r->name, sizeof r->name, "QL_%g", r->param);
    else if (r->kind == FC_METRIC_COVERAGE) snprintf(r->name, sizeof r->name, "coverage_%g", r->param);
    else if (r->kind == FC_METRIC_CROSSING) snprintf(r->name, sizeof r->name, "quantile_crossing");
    else snprintf(r->name, sizeof r->name, "%s", base[r->kind]);
}

static size_t model_rows(const fc_score_model *m, int mase, fc_metric_row *out) {
    size_t n = 0;
    if (m->point_col != FC_EVAL_NO_COLUMN)
        for (int k = FC_METRIC_MAE; k <= (mase ? FC_METRIC_MASE : FC_METRIC_MAPE); k++)
            out[n++] = (fc_metric_row){.kind = (fc_metric_kind)k};
    if (m->n_q) out[n++] = (fc_metric_row){.kind = FC_METRIC_CRPS};
    for (size_t i = 0; i < m->n_q; i++) out[n++] = (fc_metric_row){.kind = FC_METRIC_QL, .param = m->q[i]};
    for (size_t i = 0; i < m->n_lv; i++) out[n++] = (fc_metric_row){.kind = FC_METRIC_COVERAGE, .param = m->level[i]};
    if (m->n_q >= 2) out[n++] = (fc_metric_row){.kind = FC_METRIC_CROSSING};
    return n;
}

static fc_status build_rows(const fc_score_table *t, int mase, fc_score_summary *s) {
    size_t cap = 0;
    for (size_t i = 0; i < t->lay.n_models; i++)
        cap += 8 + t->lay.models[i].n_q + t->lay.models[i].n_lv;
    s->rows = fc_malloc(cap * sizeof *s->rows, "metric rows");
    if (!s->rows) return FC_ERR_MEMORY;
    size_t n = 0;
    for (size_t i = 0; i < t->lay.n_models; i++) n += model_rows(&t->lay.models[i], mase, s->rows + n);
    qsort(s->rows, n, sizeof *s->rows, compare_rows);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (kept == 0 || compare_rows(&s->rows[kept - 1], &s->rows[i]) != 0) s->rows[kept++] = s->rows[i];
    for (size_t i = 0; i < kept; i++) name_row(&s->rows[i]);
    s->n_rows = kept;
    return FC_OK;
}

/* ---- one window ---- */

static double quantile_sum(const fc_score_model *m, const double *p, double q) {
    for (size_t i = 0; i < m->n_q; i++)
        if (m->q[i] == q) return p[FC_SCORE_POINT_DOUBLES + i];
    return NAN;
}

static double coverage_count(const fc_score_model *m, const double *p, double level) {
    for (size_t i = 0; i < m->n_lv; i++)
        if (m->level[i] == level) return p[FC_SCORE_POINT_DOUBLES + m->n_q + i];
    return NAN;
}

/* Metric `r` of model m on a window with block b and MASE scale `scale`. */
static double window_value(const fc_score_model *m, const double *b, const double *p, const fc_metric_row *r,
                           double scale) {
    int point = m->point_col != FC_EVAL_NO_COLUMN;
    fc_point_scores ps = fc_point_scores_of((const fc_point_sums *)p);
    switch (r->kind) {
    case FC_METRIC_MAE: return point ? ps.mae : NAN;
    case FC_METRIC_MSE: return point ? ps.mse : NAN;
    case FC_METRIC_RMSE: return point ? ps.rmse : NAN;
    case FC_METRIC_SMAPE: return point ? ps.smape200 : NAN;
    case FC_METRIC_MAPE: return point ? ps.mape_pct : NAN;
    case FC_METRIC_MASE: return point ? fc_mase(ps.mae, scale) : NAN;
    case FC_METRIC_CRPS: return fc_scaled_crps(p + FC_SCORE_POINT_DOUBLES, m->n_q, b[0], b[1]);
    case FC_METRIC_QL: return quantile_sum(m, p, r->param) / b[0];
    case FC_METRIC_COVERAGE: return coverage_count(m, p, r->param) / b[0];
    case FC_METRIC_CROSSING: return m->n_q >= 2 ? p[FC_SCORE_POINT_DOUBLES + m->n_q + m->n_lv] / b[0] : NAN;
    }
    return NAN;
}

/* Adds window w's values into sums / counts ((n_rows, n_models) each). */
static void add_window(const fc_score_table *t, const fc_score_summary *s, size_t w, double scale, double *sums,
                       double *counts) {
    const double *b = fc_score_window(t, w);
    for (size_t j = 0; j < t->lay.n_models; j++) {
        const double *p = b + t->model_off[j];
        for (size_t r = 0; r < s->n_rows; r++) {
            double v = window_value(&t->lay.models[j], b, p, &s->rows[r], scale);
            if (isnan(v)) continue;
            sums[r * s->n_models + j] += v;
            counts[r * s->n_models + j] += 1.0;
        }
    }
}

/* ---- groups ---- */

/* Orders of window numbers (qsort_r: the table is the context). */
static int by_cutoff(const void *a, const void *b, void *ctx) {
    const fc_score_table *t = ctx;
    int64_t x = t->w_cutoff[*(const size_t *)a], y = t->w_cutoff[*(const size_t *)b];
    return (x > y) - (x < y);
}

static int by_series(const void *a, const void *b, void *ctx) {
    const fc_score_table *t = ctx;
    return strcmp(fc_id_table_str(&t->ids, t->w_id[*(const size_t *)a]),
                  fc_id_table_str(&t->ids, t->w_id[*(const size_t *)b]));
}

/* Group of windows order[0..n) into g. */
static fc_status fill_group(const fc_score_table *t, fc_score_summary *s, const double *scale, const size_t *order,
                            size_t n, fc_score_group *g) {
    size_t cells = s->n_rows * s->n_models;
    g->means = fc_calloc(cells, sizeof *g->means, "scores");
    double *counts = fc_calloc(cells, sizeof *counts, "scores");
    if (!g->means || !counts) {
        free(counts);
        return FC_ERR_MEMORY;
    }
    for (size_t i = 0; i < n; i++) {
        add_window(t, s, order[i], scale[order[i]], g->means, counts);
        g->points += (size_t)fc_score_window(t, order[i])[0];
    }
    for (size_t c = 0; c < cells; c++) g->means[c] = counts[c] > 0 ? g->means[c] / counts[c] : NAN;
    g->windows = n;
    free(counts);
    return FC_OK;
}

static fc_status add_group(fc_score_summary *s, size_t *cap) {
    if (s->n_groups < *cap) return FC_OK;
    *cap = *cap ? *cap * 2 : 16;
    fc_score_group *g = fc_realloc(s->groups, *cap * sizeof *g, "score groups");
    if (!g) return FC_ERR_MEMORY;
    s->groups = g;
    return FC_OK;
}

/* One group per run of equal keys in order (sorted by cmp). */
static fc_status runs(const fc_score_table *t, fc_score_summary *s, const double *scale, size_t *order, size_t n,
                      fc_group_kind kind, int (*cmp)(const void *, const void *, void *), size_t *cap, size_t *count) {
    qsort_r(order, n, sizeof *order, cmp, (void *)t);
    for (size_t a = 0, b; a < n; a = b) {
        for (b = a + 1; b < n && cmp(&order[a], &order[b], (void *)t) == 0;) b++;
        FC_TRY(add_group(s, cap));
        fc_score_group *g = &s->groups[s->n_groups++];
        memset(g, 0, sizeof *g);
        g->kind = kind;
        g->cutoff = t->w_cutoff[order[a]];
        g->id = fc_id_table_str(&t->ids, t->w_id[order[a]]);
        FC_TRY(fill_group(t, s, scale, order + a, b - a, g));
        (*count)++;
    }
    return FC_OK;
}

/* The MASE scale of every window (0 when none, counted). */
static void scales(const fc_score_table *t, const fc_dataset *train, double *scale, size_t *left_out) {
    for (size_t w = 0; w < t->n_windows; w++) {
        scale[w] = 0.0;
        if (!train) continue;
        int32_t s = t->id_train[t->w_id[w]];
        scale[w] = fc_seasonal_scale_upto(train, (size_t)s, t->w_cutoff_at[w], t->season);
        if (!(scale[w] > 0) && fc_score_window(t, w)[0] > 0) (*left_out)++;
    }
}

fc_status fc_score_summarize(const fc_score_table *t, const fc_dataset *train, int per_series,
                             fc_score_summary *out) {
    memset(out, 0, sizeof *out);
    out->n_models = t->lay.n_models;
    fc_status st = build_rows(t, train != NULL, out);
    double *scale = fc_malloc((t->n_windows + 1) * sizeof *scale, "MASE scales");
    size_t *order = fc_malloc((t->n_windows + 1) * sizeof *order, "window order");
    if (st == FC_OK && (!scale || !order)) st = FC_ERR_MEMORY;
    size_t n = 0, cap = 0;
    if (st == FC_OK) {
        scales(t, train, scale, &out->mase_left_out);
        for (size_t w = 0; w < t->n_windows; w++)
            if (fc_score_window(t, w)[0] > 0) order[n++] = w;   /* windows with something scored */
        out->windows = n;
        st = add_group(out, &cap);
    }
    if (st == FC_OK) {
        fc_score_group *g = &out->groups[out->n_groups++];
        memset(g, 0, sizeof *g);
        st = fill_group(t, out, scale, order, n, g);
    }
    if (st == FC_OK) st = runs(t, out, scale, order, n, FC_GROUP_CUTOFF, by_cutoff, &cap, &out->n_cutoffs);
    size_t series = 0;
    if (st == FC_OK && per_series) st = runs(t, out, scale, order, n, FC_GROUP_SERIES, by_series, &cap, &series);
    out->n_series = series;
    free(scale);
    free(order);
    if (st != FC_OK) fc_score_summary_free(out);
    return st;
}

void fc_score_summary_free(fc_score_summary *s) {
    for (size_t i = 0; i < s->n_groups; i++) free(s->groups[i].means);
    free(s->groups);
    free(s->rows);
    memset(s, 0, sizeof *s);
}
