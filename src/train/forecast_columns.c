/* A forecaster's output columns (see forecast_columns.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "train/forecast_columns.h"

fc_status fc_columns_of(const fc_forecaster *f, const char *name, const double *levels, size_t n_levels,
                        fc_column_set *out) {
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", name);
    const fc_model_config *c = &f->model->cfg;
    int dist = fc_loss_kind_is_distribution(f->loss.kind);
    int quantiles = c->n_outputs > 1 || fc_loss_kind_is_one_quantile(f->loss.kind) || dist;
    out->n_cols = quantiles ? fc_forecast_width(f) : 1;
    for (size_t q = 0; quantiles && q < out->n_cols; q++) fc_loss_output_name(&f->loss, q, out->suffix_text[q]);
    out->levels_ignored = quantiles && n_levels && !dist && f->loss.kind != FC_LOSS_IQ;
    if (f->loss.kind == FC_LOSS_IQ && n_levels) {   /* the levels' bounds alone */
        char names[2 * FC_MAX_LEVELS][FC_LEVEL_NAME_MAX];
        fc_conformal_suffixes(levels, n_levels, names);
        for (size_t j = 0; j < 2 * n_levels; j++) memcpy(out->suffix_text[j], names[j], sizeof names[j]);
        out->n_cols = 2 * n_levels;
        out->iq_levels = 1;
    }
    if (dist && n_levels) {   /* the mean, then the levels' bounds as conformal intervals name them */
        char names[2 * FC_MAX_LEVELS][FC_LEVEL_NAME_MAX];
        fc_conformal_suffixes(levels, n_levels, names);
        for (size_t j = 0; j < 2 * n_levels; j++) memcpy(out->suffix_text[1 + j], names[j], sizeof names[j]);
        out->n_cols = 1 + 2 * n_levels;
        out->draws_levels = 1;
    }
    if (n_levels && !quantiles) {
        if (!f->conformal)
            return fc_error(FC_ERR_INVALID, "level: %s was trained without --prediction-intervals conformal "
                            "(or a quantile loss), so it has no intervals", name);
        char names[2 * FC_MAX_LEVELS][FC_LEVEL_NAME_MAX];
        fc_conformal_suffixes(levels, n_levels, names);
        for (size_t j = 0; j < 2 * n_levels; j++) memcpy(out->suffix_text[1 + j], names[j], sizeof names[j]);
        out->n_cols = 1 + 2 * n_levels;
        out->intervals = 1;
    }
    for (size_t q = 0; q < out->n_cols; q++) out->suffixes[q] = out->suffix_text[q];
    return FC_OK;
}

fc_status fc_columns_fill(const fc_forecaster *f, const fc_column_set *c, const fc_dataset *ds, const float *raw,
                          const double *levels, size_t n_levels, float *out) {
    size_t h = f->model->cfg.h, N = ds->n_series;
    if (!c->intervals)   /* the raw outputs are the columns already: callers use them as they are */
        return fc_error(FC_ERR_INVALID, "%s: no intervals to add", c->name);
    size_t w = 2 * n_levels;
    float *iv = fc_malloc(h * w * sizeof *iv, "intervals");
    if (!iv) return FC_ERR_MEMORY;
    for (size_t s = 0; s < N; s++) {
        ssize_t k = fc_conformal_find(f->conformal, ds->ids[s]);
        if (k < 0) {
            free(iv);
            return fc_error(FC_ERR_INVALID, "%s: series '%s' was not in %s's training data: it has no conformal "
                            "scores (they are fitted per series, as neuralforecast's)", ds->source, ds->ids[s],
                            c->name);
        }
        fc_conformal_intervals(f->conformal, (size_t)k, raw + s * h, levels, n_levels, iv);
        for (size_t t = 0; t < h; t++) {
            float *row = out + (s * h + t) * c->n_cols;
            row[0] = raw[s * h + t];
            memcpy(row + 1, iv + t * w, w * sizeof *iv);
        }
    }
    free(iv);
    return FC_OK;
}
