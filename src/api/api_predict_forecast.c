/* The forecasts of one call's forecasters and ensembles, and the CSV that
 * holds them side by side (api_predict.h). */
#include <stdlib.h>

#include "api/api_predict.h"
#include "core/error.h"
#include "dist/dist.h"
#include "io/forecast_csv.h"
#include "train/iq_forecast.h"

/* An ensemble's column: its members' point forecasts combined per point. */
static fc_status combine_file(const fc_predict_run *r, fc_predict_file *pf, size_t points) {
    const float *values[FC_ENSEMBLE_MAX_MEMBERS];
    for (size_t k = 0; k < pf->n; k++) values[k] = r->m[pf->first + k].values;
    if (!(pf->values = fc_malloc((points ? points : 1) * sizeof(float), "ensemble forecasts"))) return FC_ERR_MEMORY;
    fc_ensemble_combine(pf->combine, values, pf->n, points, pf->values);
    return FC_OK;
}

/* The forecaster's raw outputs for every series: in an MPI job each rank
 * forecasts its part, in whole chunks of a single run's forecast, and the
 * parts are merged (dist/dist.h), so every rank holds the bits one process
 * would; raw must be zero on entry. */
static fc_status forecast_raw(fc_predict_model *pm, const fc_dataset *ds, const fc_dataset *ext, float *raw) {
    const fc_model_config *c = &pm->f.model->cfg;
    size_t N = ds->n_series, lo, hi, chunk = fc_predict_chunk(&pm->f, N);
    /* the room one process would take, on every rank whatever its part, so a later forecast of
     * this model chunks alike on every rank too */
    if (N) FC_TRY(fc_model_reserve(pm->f.model, chunk, 0));
    fc_dist_part(N, chunk, fc_dist_rank(), fc_dist_size(), &lo, &hi);
    FC_TRY(fc_predict_part(&pm->f, ext ? ext : ds, ext ? c->h : 0, lo, hi, raw));
    return fc_dist_merge(raw, N * c->h * fc_forecast_width(&pm->f) * sizeof *raw, 1);
}

/* An IQLoss model's columns at the levels' bounds: its forecasts at the 11
 * quantiles of neuralforecast's grid, then np.quantile of them per point
 * (train/iq_forecast.h). */
static fc_status forecast_iq_levels(const fc_predict_run *r, fc_predict_model *pm, const fc_dataset *ds,
                                    const fc_dataset *ext) {
    size_t N = ds->n_series ? ds->n_series : 1, points = N * pm->f.model->cfg.h, n = r->n_levels;
    double q[2 * FC_MAX_LEVELS];
    fc_levels_to_bounds(r->levels, n, q);   /* r->levels ascending: lower bounds from the widest in, then the upper */
    float *grid = fc_calloc(points * FC_IQ_GRID_N, sizeof(float), "forecasts");
    if (!grid) return FC_ERR_MEMORY;
    fc_status st = FC_OK;
    for (size_t k = 0; st == FC_OK && k < FC_IQ_GRID_N; k++) {
        pm->f.model->iq.quantile = FC_IQ_GRID[k];
        st = forecast_raw(pm, ds, ext, grid + k * points);
    }
    pm->f.model->iq.quantile = 0.5f;
    if (st == FC_OK) fc_iq_quantiles_of(grid, points, q, 2 * n, pm->values);
    free(grid);
    return st;
}

/* One forecaster's columns: its outputs, or its point forecasts followed
 * by their conformal intervals. */
static fc_status forecast_one(const fc_predict_run *r, fc_predict_model *pm, const fc_dataset *ds,
                              const fc_dataset *ext) {
    const fc_model_config *c = &pm->f.model->cfg;
    size_t N = ds->n_series ? ds->n_series : 1, width = c->h * fc_forecast_width(&pm->f);
    pm->values = fc_calloc(N * c->h, pm->cols.n_cols * sizeof(float), "forecasts");
    if (!pm->values) return FC_ERR_MEMORY;
    if (pm->cols.iq_levels) return forecast_iq_levels(r, pm, ds, ext);
    int intervals = pm->cols.intervals;
    float *raw = intervals ? fc_calloc(N, width * sizeof(float), "forecasts") : pm->values;
    if (!raw) return FC_ERR_MEMORY;
    fc_loss_spec trained = pm->f.loss;   /* a distribution drawn at the levels' quantiles for this forecast */
    fc_status st = pm->cols.draws_levels ? fc_loss_draw_levels(&pm->f.loss, r->levels, r->n_levels) : FC_OK;
    if (st == FC_OK) st = forecast_raw(pm, ds, ext, raw);
    pm->f.loss = trained;
    if (st == FC_OK && intervals) st = fc_columns_fill(&pm->f, &pm->cols, ds, raw, r->levels, r->n_levels, pm->values);
    if (intervals) free(raw);
    return st;
}

fc_status fc_predict_forecast_all(fc_predict_run *r, const fc_dataset *ds, const fc_dataset *ext) {
    for (size_t i = 0; i < r->n_models; i++) FC_TRY(forecast_one(r, &r->m[i], ds, ext));
    for (size_t i = 0; i < r->n_files; i++)
        if (r->files[i].ensemble) FC_TRY(combine_file(r, &r->files[i], ds->n_series * r->m[0].f.model->cfg.h));
    return FC_OK;
}

/* File by file: an ensemble's column Ensemble, then its members' (when
 * shown); a model's columns. */
fc_status fc_predict_write(const fc_predict_run *r, const char *path, const fc_dataset *ds) {
    static const char *const point[1] = {""};
    size_t n = 0;
    fc_forecast_columns *cols = fc_malloc((r->n_models + r->n_files) * sizeof *cols, "forecast columns");
    if (!cols) return FC_ERR_MEMORY;
    for (size_t f = 0; f < r->n_files; f++) {
        const fc_predict_file *pf = &r->files[f];
        if (pf->ensemble) cols[n++] = (fc_forecast_columns){pf->name, 1, point, pf->values};
        for (size_t i = pf->first; i < pf->first + pf->n; i++)
            if (r->m[i].shown)
                cols[n++] = (fc_forecast_columns){r->m[i].cols.name, r->m[i].cols.n_cols, r->m[i].cols.suffixes,
                                                   r->m[i].values};
    }
    fc_status st = fc_forecast_write_columns(path, ds, &r->m[0].f.freq, r->m[0].f.model->cfg.h, cols, n);
    free(cols);
    return st;
}
