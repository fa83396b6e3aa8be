/* Cross-validation (see cross_validation.h). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "train/cross_validation.h"

size_t fc_cv_test_size(const fc_cv_spec *cv) { return cv->h + cv->step_size * (cv->n_windows - 1); }

fc_status fc_cv_check(const fc_cv_spec *cv) {
    if (cv->n_windows < 1) return fc_error(FC_ERR_INVALID, "--n-windows must be at least 1");
    if (cv->step_size < 1) return fc_error(FC_ERR_INVALID, "--step-size must be at least 1");
    if (cv->h < 1) return fc_error(FC_ERR_INVALID, "the horizon h must be at least 1");
    if (cv->n_windows > ((size_t)1 << 20) || cv->step_size > ((size_t)1 << 30))
        return fc_error(FC_ERR_INVALID, "--n-windows %zu with --step-size %zu is beyond any series fcast can hold",
                        cv->n_windows, cv->step_size);
    return FC_OK;
}

/* cv_times: window i exists for a series of len points when
 * len >= test_size - i * step + 1 (one point at least before its cutoff). */
size_t fc_cv_origins(const fc_dataset *ds, const fc_cv_spec *cv, fc_cv_origin *out) {
    size_t test = fc_cv_test_size(cv), n = 0;
    for (size_t s = 0; s < ds->n_series; s++) {
        size_t len = fc_dataset_len(ds, s);
        for (size_t i = 0; i < cv->n_windows; i++) {
            size_t offset = test - i * cv->step_size + 1;
            if (len < offset) continue;
            if (out) out[n] = (fc_cv_origin){(uint32_t)s, (uint32_t)i, (int64_t)(len - offset)};
            n++;
        }
    }
    return n;
}

/* Forecasts of the origins whose window is in [first, last) with f, into
 * their rows of out (n, width). */
static fc_status predict_windows_in(fc_forecaster *f, const fc_dataset *ds, const fc_cv_origin *o, size_t n,
                                    size_t first, size_t last, float *out, size_t width) {
    size_t L = f->model->cfg.input_size, count = 0;
    for (size_t k = 0; k < n; k++) count += o[k].window >= first && o[k].window < last;
    if (!count) return FC_OK;
    fc_window *w = fc_malloc(count * sizeof *w, "cross-validation windows");
    size_t *row = fc_malloc(count * sizeof *row, "cross-validation rows");
    float *fc = fc_malloc(count * width * sizeof *fc, "cross-validation forecasts");
    fc_status st = w && row && fc ? FC_OK : FC_ERR_MEMORY;
    for (size_t k = 0, j = 0; st == FC_OK && k < n; k++) {
        if (o[k].window < first || o[k].window >= last) continue;
        w[j] = (fc_window){o[k].series, o[k].cutoff + 1 - (int64_t)L};
        row[j++] = k;
    }
    if (st == FC_OK) st = fc_predict_windows(f, ds, w, count, fc);
    for (size_t j = 0; st == FC_OK && j < count; j++) memcpy(out + row[j] * width, fc + j * width, width * sizeof *fc);
    free(w);
    free(row);
    free(fc);
    return st;
}

/* Windows per training: refit's, or all of them in one. */
static size_t windows_per_training(const fc_cv_spec *cv) { return cv->refit ? cv->refit : cv->n_windows; }

/* Training g: held out is everything after its first window's cutoff
 * (test_size - first * step points); it forecasts windows [first, last)
 * into their rows of *out, allocated here at the first training's width
 * when NULL, else checked to be of *width. */
static fc_status fit_and_predict(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *o, size_t n,
                                 size_t g, fc_cv_fit_fn fit, void *ctx, float **out, size_t *width) {
    size_t every = windows_per_training(cv), first = g * every;
    if (first >= cv->n_windows)
        return fc_error(FC_ERR_INVALID, "cross-validation training %zu of %zu", g + 1, fc_cv_trainings(cv));
    size_t last = first + every < cv->n_windows ? first + every : cv->n_windows;
    fc_forecaster f = {0};
    fc_status st = fit(ctx, ds, fc_cv_test_size(cv) - first * cv->step_size, &f);
    size_t mine = st == FC_OK ? f.model->cfg.h * fc_forecast_width(&f) : 0;
    if (st == FC_OK && f.model->cfg.h != cv->h)
        st = fc_error(FC_ERR_INVALID, "the model's horizon %zu is not the cross-validation's %zu", f.model->cfg.h,
                      cv->h);
    else if (st == FC_OK && *out && mine != *width)
        st = fc_error(FC_ERR_INVALID, "cross-validation: the model forecasts %zu values per origin, not %zu", mine,
                      *width);
    else if (st == FC_OK && !*out && !(*out = fc_calloc(n ? n : 1, mine * sizeof **out, "cross-validation forecasts")))
        st = FC_ERR_MEMORY;
    if (st == FC_OK) *width = mine;
    if (st == FC_OK) st = predict_windows_in(&f, ds, o, n, first, last, *out, mine);
    fc_forecaster_free(&f);
    return st;
}

fc_status fc_cv_run_training(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *o, size_t n, size_t g,
                             fc_cv_fit_fn fit, void *ctx, float *out, size_t width) {
    return fit_and_predict(ds, cv, o, n, g, fit, ctx, &out, &width);
}

size_t fc_cv_trainings(const fc_cv_spec *cv) {
    size_t every = windows_per_training(cv);
    return every ? (cv->n_windows + every - 1) / every : 0;
}

fc_status fc_cross_validate_dealt(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *origins, size_t n,
                                  fc_cv_fit_fn fit, void *ctx, const fc_cv_deal *deal, float **out, size_t *width) {
    *out = NULL;
    *width = 0;
    FC_TRY(fc_cv_check(cv));
    fc_status st = FC_OK;
    for (size_t g = 0; st == FC_OK && g < fc_cv_trainings(cv); g++) {
        if (deal && (deal->first + g) % (size_t)deal->ranks != (size_t)deal->rank) continue;   /* another rank's */
        st = fit_and_predict(ds, cv, origins, n, g, fit, ctx, out, width);
    }
    if (st != FC_OK) {
        free(*out);
        *out = NULL;
    }
    return st;
}

fc_status fc_cross_validate(const fc_dataset *ds, const fc_cv_spec *cv, const fc_cv_origin *origins, size_t n,
                            fc_cv_fit_fn fit, void *ctx, float **out, size_t *width) {
    return fc_cross_validate_dealt(ds, cv, origins, n, fit, ctx, NULL, out, width);
}
