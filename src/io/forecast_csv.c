/* Writing forecasts as a long CSV (see forecast_csv.h). */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/forecast_csv.h"

void fc_forecast_ds_text(const fc_dataset *ds, const fc_freq *freq, size_t s, size_t k, char *buf, size_t cap) {
    int64_t last = ds->ds[ds->offsets[s + 1] - 1];
    fc_ds_format(ds->ds_kind, fc_freq_advance(freq, last, (int64_t)k + 1), buf, cap);
}

void fc_forecast_write_column_names(FILE *f, const fc_forecast_columns *models, size_t n_models) {
    for (size_t m = 0; m < n_models; m++)
        for (size_t q = 0; q < models[m].n_outputs; q++) {
            char name[256];
            snprintf(name, sizeof name, "%s%s", models[m].name, models[m].suffixes[q]);
            fputc(',', f);
            fc_csv_write_field(f, name);
        }
}

typedef struct {
    const fc_dataset *ds;
    const fc_freq *freq;
    size_t h;
    const fc_forecast_columns *models;
    size_t n_models;
} columns_ctx;

static fc_status write_column_rows(FILE *f, void *vctx) {
    const columns_ctx *c = vctx;
    char when[64];
    size_t since = 0;
    fputs("unique_id,ds", f);
    fc_forecast_write_column_names(f, c->models, c->n_models);
    fputc('\n', f);
    for (size_t i = 0; i < c->ds->n_series; i++) {
        for (size_t k = 0; k < c->h; k++) {
            fc_forecast_ds_text(c->ds, c->freq, i, k, when, sizeof when);
            fc_csv_write_field(f, c->ds->ids[i]);
            fprintf(f, ",%s", when);
            for (size_t m = 0; m < c->n_models; m++) {
                size_t Q = c->models[m].n_outputs;
                const float *v = c->models[m].values + (i * c->h + k) * Q;
                for (size_t q = 0; q < Q; q++) fprintf(f, "," FC_FORECAST_VALUE_FORMAT, (double)v[q]);
            }
            fputc('\n', f);
        }
        fc_dataset_release_every(c->ds, &since, 1, FC_RELEASE_SERIES);
    }
    fc_dataset_release_pages(c->ds);
    return FC_OK;
}

fc_status fc_forecast_write_columns(const char *path, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                    const fc_forecast_columns *models, size_t n_models) {
    columns_ctx c = {ds, freq, h, models, n_models};
    return fc_write_file_atomic(path, write_column_rows, &c);
}

/* One point-forecast column: the models' writer with one model. */
static const char *const POINT_SUFFIX[1] = {""};

fc_status fc_forecast_write_csv(const char *path, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                const char *column, const float *forecasts) {
    fc_forecast_columns one = {column, 1, POINT_SUFFIX, forecasts};
    return fc_forecast_write_columns(path, ds, freq, h, &one, 1);
}

fc_status fc_forecast_write_stream(FILE *f, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                   const char *column, const float *forecasts) {
    fc_forecast_columns one = {column, 1, POINT_SUFFIX, forecasts};
    columns_ctx c = {ds, freq, h, &one, 1};
    return write_column_rows(f, &c);
}

fc_status fc_forecast_write_columns_stream(FILE *f, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                           const fc_forecast_columns *models, size_t n_models) {
    columns_ctx c = {ds, freq, h, models, n_models};
    return write_column_rows(f, &c);
}
