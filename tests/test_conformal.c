/* Conformal prediction intervals (train/conformal.h):
 *  - both methods against neuralforecast's own add_conformal_*_intervals
 *    (fixture from python/make_conformal_fixtures.py), levels [80, 95], [50];
 *  - coverage on synthetic Gaussian errors of known scale: within binomial
 *    error of the level (conformal_distribution) and of 1 - alpha/2
 *    (conformal_error, which takes the 1 - alpha/2 quantile of |e| on each
 *    side, as neuralforecast does);
 *  - scores from cross-validation rows, gaps left out, column names, the
 *    model-file round trip and its refusal of corrupted fields. */
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "st_files.h"
#include "core/error.h"
#include "core/rng.h"
#include "train/conformal_file.h"
#include "train/conformal.h"

static const float *tensor(const fc_safetensors *f, const char *name) {
    const fc_st_tensor *t = fc_st_find(f, name);
    CHECK_MSG(t != NULL, "fixture lacks %s", name);
    return t ? fc_st_data(f, t) : NULL;
}

static void against_fixture(const fc_safetensors *f, fc_conformal *c, const char *tag, const double *levels,
                            size_t n_levels) {
    const float *fc = tensor(f, "forecasts");
    for (int m = 0; m < 2; m++) {
        char name[64];
        c->method = (fc_conformal_method)m;
        snprintf(name, sizeof name, "%s_%s", m ? "error" : "distribution", tag);
        const float *want = tensor(f, name);
        if (!want || !fc) continue;
        float got[6 * 16];
        for (size_t s = 0; s < c->n_series; s++) {
            fc_conformal_intervals(c, s, fc + s * c->h, levels, n_levels, got);
            for (size_t i = 0; i < c->h * 2 * n_levels; i++)
                CHECK_CLOSE(got[i], want[s * c->h * 2 * n_levels + i], 1e-5, 1e-6);
        }
    }
}

static void test_neuralforecast_parity(void) {
    fc_safetensors *f = open_fixture("conformal.safetensors");
    if (!f) return;
    const fc_st_tensor *t = fc_st_find(f, "scores");
    CHECK(t && t->ndim == 3);
    if (!t) { fc_st_free(&f); return; }
    fc_conformal c = {FC_CONFORMAL_DISTRIBUTION, (size_t)t->shape[1], 1, (size_t)t->shape[2], (size_t)t->shape[0],
                      NULL, (float *)fc_st_data(f, t)};
    against_fixture(f, &c, "l80_95", (double[]){80, 95}, 2);
    against_fixture(f, &c, "l50", (double[]){50}, 1);
    char names[4][FC_LEVEL_NAME_MAX];
    fc_conformal_suffixes((double[]){80, 95}, 2, names);
    CHECK(!strcmp(names[0], "-lo-95") && !strcmp(names[1], "-lo-80") && !strcmp(names[2], "-hi-80") &&
          !strcmp(names[3], "-hi-95"));
    fc_st_free(&f);
}

static double normal(uint64_t i) {
    double z0, z1;
    fc_box_muller(fc_rng_block(7, 3, i), &z0, &z1);
    return z0;
}

/* N series with error scale 1 + s % 5, W calibration windows, K fresh
 * errors per series and step: the share of fresh errors inside. */
static double coverage(fc_conformal_method method, double level) {
    enum { N = 40, W = 199, H = 3, K = 50 };
    fc_conformal c = {method, W, 1, H, N, NULL, malloc(N * W * H * sizeof(float))};
    uint64_t draw = 0;
    for (size_t i = 0; i < (size_t)N * W * H; i++) c.scores[i] = (float)fabs(normal(draw++) * (1 + (i / (W * H)) % 5));
    size_t inside = 0, total = 0;
    float zero[H] = {0}, iv[H * 2];
    for (size_t s = 0; s < N; s++) {
        fc_conformal_intervals(&c, s, zero, &level, 1, iv);
        for (size_t t = 0; t < H; t++)
            for (int k = 0; k < K; k++, total++) {
                double e = normal(draw++) * (double)(1 + s % 5);
                inside += e >= iv[t * 2] && e <= iv[t * 2 + 1];
            }
    }
    free(c.scores);
    return (double)inside / (double)total;
}

static void test_coverage(void) {
    /* 6000 fresh errors: binomial sd ~0.005 at 0.8; calibration with 199
     * windows adds about as much again: 4 sd of the sum is 0.03. */
    double d80 = coverage(FC_CONFORMAL_DISTRIBUTION, 80), d50 = coverage(FC_CONFORMAL_DISTRIBUTION, 50);
    double e80 = coverage(FC_CONFORMAL_ERROR, 80);
    CHECK_MSG(fabs(d80 - 0.80) < 0.03, "conformal_distribution 80: coverage %.4f", d80);
    CHECK_MSG(fabs(d50 - 0.50) < 0.03, "conformal_distribution 50: coverage %.4f", d50);
    CHECK_MSG(fabs(e80 - 0.90) < 0.03, "conformal_error 80 covers 1 - alpha/2: %.4f", e80);
}

/* A two-series dataset, the second with a gap in its last window. */
static fc_dataset *small_dataset(void) {
    fc_dataset *ds = NULL;
    const char *csv = "unique_id,ds,y\na,1,1\na,2,2\na,3,3\na,4,4\na,5,5\nb,1,10\nb,2,20\nb,3,30\nb,4,40\nb,5,\n";
    CHECK_MSG(fc_dataset_load_buffer("<small>", csv, strlen(csv), NULL, &ds) == FC_OK, "%s", fc_last_error());
    return ds;
}

static void test_scores_from_cv_and_file(void) {
    fc_dataset *ds = small_dataset();
    if (!ds) return;
    fc_cv_spec cv = {2, 2, 1, 0};   /* h 2, windows with cutoffs at points 1 and 2 */
    fc_cv_origin o[8];
    size_t n = fc_cv_origins(ds, &cv, o);
    CHECK(n == 4 && o[1].cutoff == 2 && o[3].series == 1);
    float fc[8] = {2.5f, 3.0f, 4.0f, 4.0f, 30, 30, 30, 30};
    fc_conformal c;
    CHECK(fc_conformal_from_cv(ds, &cv, o, n, fc, FC_CONFORMAL_ERROR, &c) == FC_OK);
    CHECK(c.scores[0] == 0.5f && c.scores[1] == 1.0f && c.scores[2] == 0.0f && c.scores[3] == 1.0f);
    CHECK(c.scores[6] == 10.0f && isnan(c.scores[7]));   /* b's last window: y missing at its last point */
    CHECK(fc_conformal_find(&c, "b") == 1 && fc_conformal_find(&c, "c") == -1);
    float iv[4];
    fc_conformal_intervals(&c, 1, (float[]){0, 0}, (double[]){50}, 1, iv);
    CHECK_CLOSE(iv[2], -10.0, 0, 0);   /* step 1 of b: one score left (10), its quantile is itself */

    char path[] = "/tmp/fcast-conformal-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    fc_st_writer *w = fc_st_writer_new();
    char *blob = NULL;
    CHECK(fc_conformal_write(w, &c, &blob) == FC_OK && fc_st_writer_write(w, path) == FC_OK);
    fc_st_writer_free(&w);
    free(blob);
    fc_safetensors *f = NULL;
    fc_conformal back;
    int present = 0;
    CHECK(fc_st_read(path, &f) == FC_OK);
    CHECK(f && fc_conformal_read(f, path, 2, &back, &present) == FC_OK && present);
    CHECK(back.method == FC_CONFORMAL_ERROR && back.n_windows == 2 && back.n_series == 2 &&
          !strcmp(back.ids[1], "b") && memcmp(back.scores, c.scores, 6 * sizeof(float)) == 0 && isnan(back.scores[7]));
    fc_conformal_free(&back);
    CHECK(fc_conformal_read(f, path, 3, &back, &present) == FC_ERR_FORMAT);   /* another horizon */
    CHECK_CONTAINS(fc_last_error(), "conformal.scores");
    fc_st_free(&f);
    unlink(path);

    fc_cv_spec three = {2, 4, 1, 0};   /* needs h + 3 + 1 = 6 points: a has 5 */
    n = fc_cv_origins(ds, &three, o);
    CHECK(fc_conformal_from_cv(ds, &three, o, n, fc, FC_CONFORMAL_ERROR, &back) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--pi-windows 4");
    fc_conformal_free(&c);
    fc_dataset_free(&ds);
}

static void test_levels(void) {
    double l[FC_MAX_LEVELS];
    size_t n;
    CHECK(fc_levels_parse("80,95", "--level", l, &n) == FC_OK && n == 2 && l[1] == 95);
    CHECK(fc_levels_parse("80,80", "--level", l, &n) == FC_ERR_INVALID);
    CHECK(fc_levels_parse("100", "--level", l, &n) == FC_ERR_INVALID);
    CHECK(fc_levels_parse("80,x", "--level", l, &n) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--level");
}

int main(void) {
    test_neuralforecast_parity();
    test_coverage();
    test_scores_from_cv_and_file();
    test_levels();
    return CHECK_DONE();
}
