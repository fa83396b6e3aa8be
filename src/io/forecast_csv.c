/* Writing forecasts as a long CSV (see forecast_csv.h). */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "io/atomic_file.h"
#include "io/forecast_csv.h"

typedef struct {
    const fc_dataset *ds;
    const fc_freq *freq;
    size_t h;
    const char *column;
    const float *fc;
} forecast_ctx;

void fc_forecast_ds_text(const fc_dataset *ds, const fc_freq *freq, size_t s, size_t k, char *buf, size_t cap) {
    int64_t last = ds->ds[ds->offsets[s + 1] - 1];
    fc_ds_format(ds->ds_kind, fc_freq_advance(freq, last, (int64_t)k + 1), buf, cap);
}

static fc_status write_rows(FILE *f, void *vctx) {
    const forecast_ctx *c = vctx;
    char when[64];
    size_t since = 0;
    fprintf(f, "unique_id,ds,%s\n", c->column);
    for (size_t i = 0; i < c->ds->n_series; i++) {
        for (size_t k = 0; k < c->h; k++) {
            fc_forecast_ds_text(c->ds, c->freq, i, k, when, sizeof when);
            fc_csv_write_field(f, c->ds->ids[i]);
            fprintf(f, ",%s," FC_FORECAST_VALUE_FORMAT "\n", when, (double)c->fc[i * c->h + k]);
        }
        fc_dataset_release_every(c->ds, &since, 1, FC_RELEASE_SERIES);
    }
    fc_dataset_release_pages(c->ds);
    return FC_OK;   /* a failed write is the caller's to report (the atomic writer, with its cause) */
}

fc_status fc_forecast_write_csv(const char *path, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                const char *column, const float *forecasts) {
    forecast_ctx c = {ds, freq, h, column, forecasts};
    return fc_write_file_atomic(path, write_rows, &c);
}

fc_status fc_forecast_write_stream(FILE *f, const fc_dataset *ds, const fc_freq *freq, size_t h,
                                   const char *column, const float *forecasts) {
    forecast_ctx c = {ds, freq, h, column, forecasts};
    return write_rows(f, &c);
}
