/* fcast_cross_validate: neuralforecast's cross_validation through the
 * library, on the code `fcast cv` runs (train/cross_validation.h): the
 * origins of the data, a fresh training per refit on the configuration's
 * settings, every origin's forecasts; the result keeps them with each
 * row's series, ds, cutoff and actual value. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"
#include "train/cross_validation.h"

struct fcast_cv {
    size_t n_origins, h, outputs;
    fc_cv_origin *origins;
    int64_t *ds;        /* (n_origins * h) */
    double *y;          /* (n_origins * h), NaN where missing */
    int64_t *cutoff;    /* (n_origins) */
    float *forecast;    /* (n_origins * h * outputs) */
};

void fcast_cv_free(fcast_cv *r) {
    if (!r) return;
    free(r->origins);
    free(r->ds);
    free(r->y);
    free(r->cutoff);
    free(r->forecast);
    free(r);
}

/* Each row's ds and actual value, and each origin's cutoff ds, from the
 * data (the window's points lie inside its series: cv_times' use_series). */
static fc_status read_points(fcast_cv *r, const fc_dataset *ds) {
    size_t rows = r->n_origins * r->h;
    r->ds = malloc((rows ? rows : 1) * sizeof *r->ds);
    r->y = malloc((rows ? rows : 1) * sizeof *r->y);
    r->cutoff = malloc((r->n_origins ? r->n_origins : 1) * sizeof *r->cutoff);
    if (!r->ds || !r->y || !r->cutoff) return fc_error(FC_ERR_MEMORY, "fcast_cross_validate: out of memory");
    for (size_t k = 0; k < r->n_origins; k++) {
        size_t at = ds->offsets[r->origins[k].series] + (size_t)r->origins[k].cutoff;
        r->cutoff[k] = ds->ds[at];
        for (size_t t = 0; t < r->h; t++) {
            r->ds[k * r->h + t] = ds->ds[at + 1 + t];
            r->y[k * r->h + t] = ds->mask[at + 1 + t] ? ds->y[at + 1 + t] : (double)NAN;
        }
    }
    return FC_OK;
}

/* fc_cv_fit_fn over the configuration's training. */
static fc_status fit(void *ctx, const fc_dataset *ds, size_t test_size, fc_forecaster *f) {
    fc_train_summary sum;
    return fc_cv_fit(ctx, ds, test_size, f, &sum);
}

static fc_status run(fc_cv_training *t, const fc_dataset *ds, const fc_cv_spec *cv, fcast_cv *r) {
    size_t room = ds->n_series * cv->n_windows, width = 0;
    if (!(r->origins = malloc((room ? room : 1) * sizeof *r->origins)))
        return fc_error(FC_ERR_MEMORY, "fcast_cross_validate: out of memory");
    if (!(r->n_origins = fc_cv_origins(ds, cv, r->origins)))
        return fc_error(FC_ERR_INVALID, "fcast_cross_validate: no series has more than the %zu points "
                        "cross-validation forecasts (h + step_size x (n_windows - 1))", fc_cv_test_size(cv));
    FC_TRY(fc_cross_validate(ds, cv, r->origins, r->n_origins, fit, t, &r->forecast, &width));
    r->h = cv->h;
    r->outputs = width / cv->h;
    return read_points(r, ds);
}

static fc_status fcast_cross_validate_body(const fcast_config *c, const fcast_data *d, size_t n_windows,
                                           size_t step_size, size_t refit, fcast_progress_fn progress, void *user,
                                           const volatile int *cancel, fcast_cv **out) {
    if (!c || !d || !d->ds || !out)
        return fc_error(FC_ERR_INVALID, "fcast_cross_validate: config, data and out are needed");
    *out = NULL;
    fc_cv_training t = {.scaler = c->scaler, .o = c->train};
    FC_TRY(fc_api_resolve(c, &t.cfg, &t.loss));
    FC_TRY(fc_exog_check_columns(&t.cfg, d->ds, fc_api_exog_words()));
    if (!n_windows || !step_size)
        return fc_error(FC_ERR_INVALID, "fcast_cross_validate: n_windows (%zu) and step_size (%zu) must be at least 1",
                        n_windows, step_size);
    fc_cv_spec cv = {t.cfg.h, n_windows, step_size, refit};
    FC_TRY(fc_cv_check(&cv));
    fc_api_progress hook = {progress, user};
    fc_api_watch(&t.o, &hook, cancel);
    fcast_cv *r = calloc(1, sizeof *r);
    if (!r) return fc_error(FC_ERR_MEMORY, "fcast_cross_validate: out of memory");
    fc_status st = fc_api_open_backend(c->threads, &t.be);
    if (st == FC_OK) st = run(&t, d->ds, &cv, r);
    fc_backend_destroy(&t.be);
    if (st != FC_OK) {
        fcast_cv_free(r);
        return st;
    }
    *out = r;
    return FC_OK;
}

size_t fcast_cv_rows(const fcast_cv *r) { return r ? r->n_origins * r->h : 0; }
size_t fcast_cv_outputs(const fcast_cv *r) { return r ? r->outputs : 0; }

fc_status fcast_cv_read(const fcast_cv *r, int64_t *series, int64_t *ds, int64_t *cutoff, double *y,
                        float *forecast, size_t rows) {
    if (!r) return fc_error(FC_ERR_INVALID, "fcast_cv_read: the result is NULL");
    if (rows != fcast_cv_rows(r))
        return fc_error(FC_ERR_INVALID, "fcast_cv_read: rows is %zu; the result has %zu", rows, fcast_cv_rows(r));
    for (size_t k = 0; k < r->n_origins; k++)
        for (size_t t = 0; t < r->h; t++) {
            size_t i = k * r->h + t;
            if (series) series[i] = r->origins[k].series;
            if (cutoff) cutoff[i] = r->cutoff[k];
        }
    if (ds) memcpy(ds, r->ds, rows * sizeof *ds);
    if (y) memcpy(y, r->y, rows * sizeof *y);
    if (forecast) memcpy(forecast, r->forecast, rows * r->outputs * sizeof *forecast);
    return FC_OK;
}

fc_status fcast_cross_validate(const fcast_config *c, const fcast_data *d, size_t n_windows, size_t step_size,
                               size_t refit, fcast_progress_fn progress, void *user, const volatile int *cancel,
                               fcast_cv **out) {
    return fc_api_words(fcast_cross_validate_body(c, d, n_windows, step_size, refit, progress, user, cancel, out));
}
