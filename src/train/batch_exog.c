/* Exogenous inputs of a window (see batch_exog.h). */
#include <math.h>
#include <string.h>

#include "core/error.h"
#include "data/exog_data.h"
#include "train/batch_exog.h"

/* The static columns by name among those attached to ds. */
static fc_status resolve_static(const fc_exog_list *l, const fc_dataset *ds, size_t *out) {
    for (int i = 0; i < l->n; i++) {
        size_t k = 0;
        while (k < ds->n_static && strcmp(ds->static_names[k], l->name[i])) k++;
        if (k == ds->n_static)
            return fc_error(FC_ERR_INVALID, "the static file has no column '%s', which the model reads as a static "
                            "exogenous input (--stat-exog-file)", l->name[i]);
        out[i] = k;
    }
    return FC_OK;
}

fc_status fc_exog_resolve(const fc_model_config *c, const fc_dataset *ds, fc_exog_cols *out) {
    const char *names[FC_MAX_EXOG];
    out->F = (size_t)c->futr_exog.n;
    out->X = (size_t)c->hist_exog.n;
    out->S = (size_t)c->stat_exog.n;
    fc_exog_list_names(&c->futr_exog, names);
    FC_TRY(fc_exog_columns(ds, names, out->F, "--futr-exog", out->futr));
    fc_exog_list_names(&c->hist_exog, names);
    FC_TRY(fc_exog_columns(ds, names, out->X, "--hist-exog", out->hist));
    if (out->S && !ds->static_values)
        return fc_error(FC_ERR_INVALID, "%s: the model reads static exogenous values ('%s', ...): give the file "
                        "that holds them with --stat-exog-file", ds->source ? ds->source : "data",
                        c->stat_exog.name[0]);
    return resolve_static(&c->stat_exog, ds, out->stat);
}

void fc_exog_widths(const fc_model_config *c, size_t w[3]) {
    w[0] = (c->input_size + c->h) * (size_t)c->futr_exog.n;
    w[1] = c->input_size * (size_t)c->hist_exog.n;
    w[2] = (size_t)c->stat_exog.n;
}

/* Column `col` over the window's first n points into x, scaled with the
 * statistics of its insample (L) where y is observed, then laid into out
 * (n, C) at channel j. */
static void channel(const fc_dataset *ds, size_t col, const fc_window *w, size_t n, size_t L, size_t limit,
                    const float *ym, fc_scaler_kind scaler, float *x, float *sort_work, float *out, size_t C,
                    size_t j) {
    size_t base = ds->offsets[w->series];
    for (size_t t = 0; t < n; t++) {
        int64_t pos = w->start + (int64_t)t;
        int inside = pos >= 0 && pos < (int64_t)limit;
        x[t] = inside ? (float)ds->exog[(base + (size_t)pos) * ds->n_exog + col] : 0.0f;
    }
    float shift, scale;
    fc_scaler_stats(scaler, x, ym, L, sort_work, &shift, &scale);
    fc_scaler_apply(x, n, shift, scale);
    for (size_t t = 0; t < n; t++) out[t * C + j] = x[t];
}

void fc_exog_gather(const fc_dataset *ds, const fc_exog_cols *cols, const fc_window *w, size_t L, size_t H,
                    size_t limit, const float *ym, fc_scaler_kind scaler, float *work, float *futr, float *hist,
                    float *stat) {
    float *x = work, *sort_work = work + L + H;
    for (size_t j = 0; j < cols->F; j++)
        channel(ds, cols->futr[j], w, L + H, L, limit, ym, scaler, x, sort_work, futr, cols->F, j);
    for (size_t j = 0; j < cols->X; j++)
        channel(ds, cols->hist[j], w, L, L, limit, ym, scaler, x, sort_work, hist, cols->X, j);
    const double *row = ds->static_values ? ds->static_values + (size_t)w->series * ds->n_static : NULL;
    for (size_t j = 0; j < cols->S; j++) stat[j] = (float)row[cols->stat[j]];
}
