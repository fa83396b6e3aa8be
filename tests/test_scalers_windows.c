/* Parity of the per-window scalers and of window enumeration with
 * neuralforecast (fixtures from python/make_fixtures.py):
 *  - scalers.safetensors: TemporalNorm statistics and transforms for edge
 *    cases (even counts, constant windows, MAD 0, masked points);
 *  - windows.safetensors: the training windows neuralforecast's
 *    _create_windows keeps (with step_size, val_size, availability
 *    threshold, start_padding_enabled) and its validation windows. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "st_files.h"
#include "core/error.h"
#include "io/safetensors.h"
#include "kernels/scaler.h"
#include "train/windows.h"

static const void *data(const fc_safetensors *f, const char *name) {
    const fc_st_tensor *t = fc_st_find(f, name);
    CHECK_MSG(t != NULL, "fixture lacks %s", name);
    return t ? fc_st_data(f, t) : NULL;
}

static void check_scalers(void) {
    fc_safetensors *f = open_fixture("scalers.safetensors");
    if (!f) return;
    size_t L = (size_t)atoi(fc_st_meta(f, "L")), H = (size_t)atoi(fc_st_meta(f, "h")), W = L + H;
    size_t rows = fc_st_find(f, "x")->shape[0];
    const float *x = data(f, "x"), *mask = data(f, "mask");
    const char *names[4] = {"identity", "standard", "robust", "minmax"};
    float work[64], z[64];
    for (int k = 0; k < 4; k++) {
        char key[64];
        snprintf(key, sizeof key, "%s.z", names[k]);
        const float *rz = data(f, key);
        snprintf(key, sizeof key, "%s.shift", names[k]);
        const float *rshift = data(f, key);
        snprintf(key, sizeof key, "%s.scale", names[k]);
        const float *rscale = data(f, key);
        for (size_t r = 0; r < rows; r++) {
            float shift, scale;
            fc_scaler_stats((fc_scaler_kind)k, x + r * W, mask + r * W, L, work, &shift, &scale);
            int none_observed = 1;
            for (size_t t = 0; t < L; t++) none_observed &= !(mask[r * W + t] > 0);
            if (k == FC_SCALER_MINMAX && none_observed) {
                /* torch gives shift FLT_MAX, scale -inf (NaN forecasts); fcast leaves the window as is */
                CHECK(shift == 0.0f && scale == 1.0f + FC_SCALER_EPS);
                continue;
            }
            CHECK_MSG(fabsf(shift - rshift[r]) <= 1e-5f * (1 + fabsf(rshift[r])), "%s row %zu shift %g vs %g",
                      names[k], r, shift, rshift[r]);
            CHECK_MSG(fabsf(scale - rscale[r]) <= 1e-5f * (1 + fabsf(rscale[r])), "%s row %zu scale %g vs %g",
                      names[k], r, scale, rscale[r]);
            memcpy(z, x + r * W, W * sizeof(float));
            fc_scaler_apply(z, W, shift, scale);
            for (size_t t = 0; t < W; t++)
                CHECK_MSG(fabsf(z[t] - rz[r * W + t]) <= 1e-4f * (1 + fabsf(rz[r * W + t])), "%s row %zu z[%zu] %g vs %g",
                          names[k], r, t, z[t], rz[r * W + t]);
            fc_scaler_invert(z, W, shift, scale);
            for (size_t t = 0; t < W; t++) CHECK_CLOSE(z[t], x[r * W + t], 1e-4, 1e-5);
        }
    }
    fc_st_free(&f);
}

/* The two-series dataset of the window fixture. */
static fc_dataset *fixture_dataset(const fc_safetensors *f) {
    const fc_st_tensor *ty = fc_st_find(f, "data.y");
    const int32_t *off = data(f, "data.offsets");
    const float *y = data(f, "data.y"), *mask = data(f, "data.mask");
    fc_dataset *ds = NULL;
    CHECK(fc_dataset_alloc(2, ty->numel, 0, &ds) == FC_OK);
    for (size_t i = 0; i <= 2; i++) ds->offsets[i] = (size_t)off[i];
    for (size_t r = 0; r < ty->numel; r++) {
        ds->y[r] = y[r];
        ds->mask[r] = mask[r] > 0;
        ds->ds[r] = (int64_t)r;
    }
    ds->ids[0] = strdup("A");
    ds->ids[1] = strdup("B");
    ds->source = strdup("windows fixture");
    return ds;
}

static void compare_windows(const char *c, const fc_dataset *ds, const fc_window *w, size_t n, size_t L,
                            size_t H, size_t val, const fc_safetensors *f, int full) {
    char key[64];
    snprintf(key, sizeof key, "%s.start", c);
    const fc_st_tensor *ts = fc_st_find(f, key);
    CHECK_MSG(ts && ts->numel == n, "%s: fcast has %zu windows, neuralforecast %zu", c, n, ts ? ts->numel : 0);
    if (!ts || ts->numel != n) return;
    const int32_t *start = fc_st_data(f, ts);
    snprintf(key, sizeof key, "%s.series", c);
    const int32_t *series = data(f, key);
    snprintf(key, sizeof key, "%s.y", c);
    const float *ry = data(f, key);
    snprintf(key, sizeof key, "%s.mask", c);
    const float *rm = data(f, key);
    fc_window_spec spec = {L, H, 1, val, 0, 0, 0, 0};
    float y[64], m[64];
    for (size_t k = 0; k < n; k++) {
        CHECK_MSG(w[k].series == (uint32_t)series[k] && w[k].start == start[k], "%s window %zu: (%u, %ld) vs (%d, %d)",
                  c, k, w[k].series, (long)w[k].start, series[k], start[k]);
        size_t limit = full ? fc_dataset_len(ds, w[k].series) : fc_train_length(ds, &spec, w[k].series);
        fc_window_gather(ds, &w[k], L, H, limit, y, m);
        for (size_t t = 0; t < L + H; t++) {
            CHECK(y[t] == ry[k * (L + H) + t]);
            CHECK(m[t] == rm[k * (L + H) + t]);
        }
    }
}

static void check_case(const fc_safetensors *f, const fc_dataset *ds, const char *c, size_t L, size_t step,
                       size_t val, double threshold, int start_padding) {
    fc_window_spec spec = {L, 3, step, val, threshold, threshold, 0, start_padding ? L - 1 : 0};
    fc_window_sampler s;
    CHECK_MSG(fc_window_sampler_init(&s, ds, &spec, 32, 16, 1) == FC_OK, "%s", fc_last_error());
    fc_window w[128];
    size_t n = 0;
    for (size_t i = 0; i < ds->n_series; i++) n += fc_window_sampler_list(&s, i, w + n);
    compare_windows(c, ds, w, n, L, 3, val, f, 0);
    fc_window_sampler_free(&s);
    if (val) {
        char key[16];
        snprintf(key, sizeof key, "%s.val", c);
        n = fc_validation_windows(ds, &spec, w);
        compare_windows(key, ds, w, n, L, 3, val, f, 1);
    }
}

static int cmp_float(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* fc_select_kth against sorting, for every k, on sizes 1..130 with few
 * distinct values (ties), spread values, ascending and descending runs. */
static void check_selection(void) {
    uint32_t seed = 12345;
    float a[130], sorted[130], work[130];
    for (size_t n = 1; n <= 130; n++)
        for (int shape = 0; shape < 4; shape++) {
            for (size_t i = 0; i < n; i++) {
                seed = seed * 1664525u + 1013904223u;
                float r = (float)(seed >> 8) / 16777216.0f;
                a[i] = shape == 0 ? (float)(seed >> 29) : shape == 1 ? r * 100.0f - 50.0f
                     : shape == 2 ? (float)i : (float)(n - i);
            }
            memcpy(sorted, a, n * sizeof *a);
            qsort(sorted, n, sizeof *sorted, cmp_float);
            for (size_t k = 0; k < n; k++) {
                memcpy(work, a, n * sizeof *a);
                float v = fc_select_kth(work, n, k);
                CHECK_MSG(v == sorted[k], "n %zu shape %d k %zu: %g, sorted %g", n, shape, k, v, sorted[k]);
            }
        }
    float with_nan[5] = {3.0f, NAN, 1.0f, NAN, 2.0f};   /* terminates; the value is unspecified */
    (void)fc_select_kth(with_nan, 5, 2);
}

int main(void) {
    check_selection();
    check_scalers();
    fc_safetensors *f = open_fixture("windows.safetensors");
    if (f) {
        fc_dataset *ds = fixture_dataset(f);
        check_case(f, ds, "a", 6, 1, 0, 0.0, 0);
        check_case(f, ds, "b", 6, 2, 4, 0.0, 0);
        check_case(f, ds, "c", 6, 1, 0, 0.5, 0);
        check_case(f, ds, "d", 20, 1, 0, 0.0, 1);   /* series B (17 points) shorter than the input */
        check_case(f, ds, "e", 6, 2, 4, 0.0, 1);
        fc_dataset_free(&ds);
        fc_st_free(&f);
    }
    return CHECK_DONE();
}
