/* Writing cross-validation results (see cv_csv.h). */
#include <stdio.h>

#include "io/atomic_file.h"
#include "io/csv_write.h"
#include "train/cv_csv.h"
#include "io/forecast_csv.h"

typedef struct {
    const fc_dataset *ds;
    const fc_cv_origin *o;
    size_t n, h;
    const fc_cv_columns *models;
    size_t n_models;
} cv_ctx;

static void write_header(FILE *f, const cv_ctx *c) {
    fputs("unique_id,ds,cutoff", f);
    fc_forecast_write_column_names(f, c->models, c->n_models);
    fputs(",y\n", f);
}

/* Row t of origin k: its series' point cutoff + 1 + t, always inside the
 * series (a window exists only when its last point does). */
static void write_row(FILE *f, const cv_ctx *c, size_t k, size_t t, char *when, char *cut, size_t cap) {
    const fc_dataset *ds = c->ds;
    size_t base = ds->offsets[c->o[k].series], r = base + (size_t)c->o[k].cutoff + 1 + t;
    fc_ds_format(ds->ds_kind, ds->ds[r], when, cap);
    fc_csv_write_field(f, ds->ids[c->o[k].series]);
    fprintf(f, ",%s,%s", when, cut);
    for (size_t m = 0; m < c->n_models; m++) {
        size_t Q = c->models[m].n_outputs;
        const float *v = c->models[m].values + (k * c->h + t) * Q;
        for (size_t q = 0; q < Q; q++) fprintf(f, "," FC_FORECAST_VALUE_FORMAT, (double)v[q]);
    }
    fputc(',', f);
    if (ds->mask[r]) fc_csv_write_real(f, ds->y[r]);
    fputc('\n', f);
}

static fc_status write_rows(FILE *f, void *vctx) {
    const cv_ctx *c = vctx;
    char when[64], cut[64];
    write_header(f, c);
    for (size_t k = 0; k < c->n; k++) {
        const fc_dataset *ds = c->ds;
        fc_ds_format(ds->ds_kind, ds->ds[ds->offsets[c->o[k].series] + (size_t)c->o[k].cutoff], cut, sizeof cut);
        for (size_t t = 0; t < c->h; t++) write_row(f, c, k, t, when, cut, sizeof when);
    }
    return FC_OK;   /* a failed write is the atomic writer's to report */
}

fc_status fc_cv_write_csv(const char *path, const fc_dataset *ds, const fc_cv_origin *o, size_t n, size_t h,
                          const fc_cv_columns *models, size_t n_models) {
    cv_ctx c = {ds, o, n, h, models, n_models};
    return fc_write_file_atomic(path, write_rows, &c);
}
