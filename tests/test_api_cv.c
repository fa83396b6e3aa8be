/* Cross-validation through the library API (fcast_cross_validate):
 *
 *   1. without refit, window 0's forecasts are those of a model trained
 *      and predicting on the series cut at that window's cutoff: holding
 *      out test_size points is the same as not having them (same seed,
 *      one thread, same bits);
 *   2. every row carries its series, ds (the points after the cutoff),
 *      cutoff and actual value (NaN at a gap), windows step_size apart and
 *      the last one ending at the series' end;
 *   3. refit k trains ceil(n_windows / k) models (progress counts them);
 *   4. a cancel stops with FC_ERR_INTERRUPTED and no result; bad
 *      arguments are refused by name, options by their configuration
 *      keys ("lr", not the CLI's "--lr");
 *   5. conformal intervals (prediction-intervals = conformal): around
 *      fcast_predict's point, nested by level, symmetric, kept by the
 *      model file; refused for models without them and for mq losses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define H 4
#define L 8
#define N_A 40
#define N_B 30

static const char *const IDS[2] = {"a", "b"};
static double Y[N_A + N_B];
static const int64_t INDPTR[3] = {0, N_A, N_A + N_B};

static void fill_y(void) {
    for (int i = 0; i < N_A; i++) Y[i] = 20.0 + 0.3 * i + (i % 4 == 1 ? 2.0 : -1.0);
    for (int i = 0; i < N_B; i++) Y[N_A + i] = 5.0 + sin(0.7 * i);
    Y[N_A - 3] = NAN;   /* a gap inside a's last window */
}

static fcast_data *panel(const int64_t *indptr) {
    fcast_data *d = NULL;
    /* the series cut at indptr[i + 1]: the first n points of each */
    int64_t cut_indptr[3] = {0, indptr[1], indptr[1] + (indptr[2] - indptr[1])};
    double y[N_A + N_B];
    memcpy(y, Y, (size_t)indptr[1] * sizeof *y);
    memcpy(y + indptr[1], Y + N_A, (size_t)(indptr[2] - indptr[1]) * sizeof *y);
    CHECK_MSG(fcast_data_from_arrays(2, IDS, cut_indptr, y, NULL, FCAST_DS_INDEX, NULL, &d) == FC_OK, "%s",
              fc_last_error());
    return d;
}

static fcast_config *config(void) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("mlp", H, L, &c) == FC_OK);
    const char *kv[][2] = {{"max-steps", "10"}, {"windows-batch-size", "16"}, {"threads", "1"}, {"seed", "3"},
                           {"hidden-size", "16"}, {"scaler", "standard"}};
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
        CHECK_MSG(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK, "%s", fc_last_error());
    return c;
}

typedef struct {
    size_t steps;
    int cancel_at;
    volatile int *cancel;
} counter;

static void count_steps(void *user, size_t step, size_t max_steps, double loss) {
    counter *c = user;
    (void)max_steps, (void)loss;
    c->steps++;
    if (c->cancel && (int)step == c->cancel_at) *c->cancel = 1;
}

typedef struct {
    int64_t series[200], ds[200], cutoff[200];
    double y[200];
    float fc[200];
    size_t rows;
} cv_rows;

static int read_rows(const fcast_cv *r, cv_rows *out) {
    out->rows = fcast_cv_rows(r);
    if (out->rows > 200 || fcast_cv_outputs(r) != 1) return 0;
    return fcast_cv_read(r, out->series, out->ds, out->cutoff, out->y, out->fc, out->rows) == FC_OK;
}

/* 1 and 2. */
static void window_zero_is_a_cut_training(void) {
    fcast_data *all = panel(INDPTR);
    fcast_config *c = config();
    fcast_cv *r = NULL;
    const size_t windows = 3, step = 2, test = H + step * (windows - 1);
    CHECK_MSG(fcast_cross_validate(c, all, windows, step, 0, NULL, NULL, NULL, &r) == FC_OK, "%s", fc_last_error());
    cv_rows got;
    CHECK(r && read_rows(r, &got));
    CHECK(got.rows == 2 * windows * H);
    for (size_t i = 0; i < got.rows; i++) {
        size_t s = (size_t)got.series[i], k = (i / H) % windows, t = i % H;
        size_t len = s ? N_B : N_A;
        int64_t cutoff = (int64_t)(len - test + k * step - 1);
        CHECK_MSG(got.cutoff[i] == cutoff && got.ds[i] == cutoff + 1 + (int64_t)t, "row %zu: cutoff %lld ds %lld", i,
                  (long long)got.cutoff[i], (long long)got.ds[i]);
        double want = Y[(s ? N_A : 0) + (size_t)got.ds[i]];
        CHECK_MSG(isnan(want) ? isnan(got.y[i]) : got.y[i] == want, "row %zu: y %g, want %g", i, got.y[i], want);
        CHECK(isfinite(got.fc[i]));
    }
    CHECK(got.series[0] == 0 && got.series[got.rows - 1] == 1);
    /* the same model, trained and predicting on the series cut at window 0's cutoff */
    int64_t cut[3] = {0, (int64_t)(N_A - test), (int64_t)(N_A - test + N_B - test)};
    fcast_data *head = panel(cut);
    fcast_model *m = NULL;
    float want[2 * H];
    CHECK_MSG(fcast_train(c, head, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    CHECK(m && fcast_predict(m, head, want, 2 * H) == FC_OK);
    for (size_t s = 0; s < 2; s++)
        for (size_t t = 0; t < H; t++)
            CHECK_MSG(got.fc[s * windows * H + t] == want[s * H + t], "series %zu step %zu: cv %.9g, cut %.9g", s, t,
                      got.fc[s * windows * H + t], want[s * H + t]);
    /* later windows see more history than the cut model: not all equal (the comparison can fail) */
    int differs = 0;
    for (size_t t = 0; t < H; t++) differs |= got.fc[H + t] != want[t];
    CHECK(differs);
    fcast_model_free(m);
    fcast_data_free(head);
    fcast_cv_free(r);
    fcast_config_free(c);
    fcast_data_free(all);
}

/* 3 and 4. */
static void refit_cancel_and_refusals(void) {
    fcast_data *all = panel(INDPTR);
    fcast_config *c = config();
    fcast_cv *r = NULL;
    counter n = {0};
    CHECK_MSG(fcast_cross_validate(c, all, 3, 1, 2, count_steps, &n, NULL, &r) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(n.steps == 2 * 10, "refit 2 over 3 windows: %zu steps, want 2 trainings of 10", n.steps);
    CHECK(fcast_cv_rows(r) == 2 * 3 * H);
    fcast_cv_free(r);

    volatile int cancel = 0;
    counter stop = {0, 4, &cancel};
    r = (fcast_cv *)1;
    CHECK(fcast_cross_validate(c, all, 2, 1, 1, count_steps, &stop, &cancel, &r) == FC_ERR_INTERRUPTED);
    CHECK(r == NULL && stop.steps == 4);

    CHECK(fcast_cross_validate(c, all, 0, 1, 0, NULL, NULL, NULL, &r) != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "n_windows");
    CHECK(fcast_cross_validate(c, all, 20, 2, 0, NULL, NULL, NULL, &r) != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "0 training points, fewer than input-size 8");   /* the key, not --input-size */
    CHECK(fcast_config_set(c, "lr", "0") == FC_OK);   /* a number >= 0; the trainer wants > 0 */
    fcast_model *m = (fcast_model *)1;
    CHECK(fcast_train(c, all, NULL, NULL, NULL, &m) == FC_ERR_INVALID && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "lr must be");
    CHECK_MSG(!strstr(fc_last_error(), "--"), "%s", fc_last_error());
    CHECK(fcast_cross_validate(NULL, all, 1, 1, 0, NULL, NULL, NULL, &r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "fcast_cross_validate");
    int64_t series[1];
    CHECK(fcast_cv_read(NULL, series, NULL, NULL, NULL, NULL, 1) == FC_ERR_INVALID);
    CHECK(fcast_cv_rows(NULL) == 0);
    fcast_config_free(c);
    fcast_data_free(all);
}

/* 5. Conformal intervals: the point column is fcast_predict's, the bounds
 * nest by level around it and are symmetric (conformal_distribution adds
 * and subtracts one quantile of the errors), a model file keeps them. */
static void conformal_intervals(void) {
    fcast_data *all = panel(INDPTR);
    fcast_config *c = config();
    CHECK(fcast_config_set(c, "pi-windows", "3") == FC_ERR_INVALID);   /* intervals first */
    CHECK_CONTAINS(fc_last_error(), "prediction-intervals");
    CHECK(fcast_config_set(c, "prediction-intervals", "conformal") == FC_OK);
    CHECK(fcast_config_set(c, "pi-windows", "3") == FC_OK);
    fcast_model *m = NULL, *plain = NULL, *back = NULL;
    CHECK_MSG(fcast_train(c, all, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_model_has_intervals(m));
    const double levels[2] = {90, 80};
    float cols[2 * H * 5], point[2 * H];
    CHECK_MSG(fcast_predict_levels(m, all, NULL, levels, 2, cols, 2 * H * 5) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_predict(m, all, point, 2 * H) == FC_OK);
    int widens = 0;
    for (size_t i = 0; i < 2 * H; i++) {
        const float *r = cols + i * 5;   /* point, lo-90, lo-80, hi-80, hi-90 */
        CHECK(r[0] == point[i]);
        CHECK_MSG(r[1] <= r[2] && r[2] <= r[0] && r[0] <= r[3] && r[3] <= r[4], "row %zu: %g %g %g %g %g", i, r[0],
                  r[1], r[2], r[3], r[4]);
        CHECK_CLOSE(r[4] - r[0], r[0] - r[1], 1e-4, 1e-5);
        widens |= r[4] > r[3];
    }
    CHECK(widens);
    char path[] = "/tmp/fcast_api_conformal_XXXXXX";
    int fd = mkstemp(path);
    float again[2 * H * 5];
    CHECK(fd >= 0 && fcast_model_save(m, path) == FC_OK && fcast_model_load(path, &back) == FC_OK);
    CHECK(back && fcast_predict_levels(back, all, NULL, levels, 2, again, 2 * H * 5) == FC_OK &&
          !memcmp(again, cols, sizeof cols));
    unlink(path);
    if (fd >= 0) close(fd);

    double bad[2] = {80, 100};
    CHECK(fcast_predict_levels(m, all, NULL, bad, 2, cols, 2 * H * 5) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "levels[1] = 100");
    CHECK(fcast_predict_levels(m, all, NULL, levels, 2, cols, 2 * H * 5 - 1) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "columns need");
    fcast_config *p = config();
    CHECK(fcast_train(p, all, NULL, NULL, NULL, &plain) == FC_OK && !fcast_model_has_intervals(plain));
    CHECK(fcast_predict_levels(plain, all, NULL, levels, 2, cols, 2 * H * 5) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "no conformal intervals");
    CHECK(fcast_config_set(p, "loss", "mq") == FC_OK);
    CHECK(fcast_config_set(p, "prediction-intervals", "conformal") == FC_OK);
    fcast_model *mq = NULL;
    CHECK(fcast_train(p, all, NULL, NULL, NULL, &mq) == FC_ERR_INVALID && !mq);
    CHECK_CONTAINS(fc_last_error(), "point losses");
    fcast_config_free(p);
    fcast_model_free(plain);
    fcast_model_free(back);
    fcast_model_free(m);
    fcast_config_free(c);
    fcast_data_free(all);
}

/* 6. A distribution model's draws at other quantiles: fcast_predict_levels
 * and fcast_predict_quantiles give the sample mean and the asked quantiles,
 * drawn from the same samples as fcast_predict's trained quantiles (the
 * draws are keyed by the window), so shared quantiles have equal bits;
 * other losses are refused. */
static void distribution_quantiles(void) {
    fcast_data *all = panel(INDPTR);
    fcast_config *c = config();
    CHECK(fcast_config_set(c, "loss", "normal") == FC_OK && fcast_config_set(c, "level", "80") == FC_OK);
    fcast_model *m = NULL;
    CHECK_MSG(fcast_train(c, all, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_model_outputs(m) == 4);   /* mean, median, lo-80, hi-80 */
    float own[2 * H * 4], lv[2 * H * 5], q[2 * H * 3];
    const double levels[2] = {95, 80}, qs[2] = {0.9, 0.1};
    CHECK(fcast_predict(m, all, own, 2 * H * 4) == FC_OK);
    CHECK_MSG(fcast_predict_levels(m, all, NULL, levels, 2, lv, 2 * H * 5) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fcast_predict_quantiles(m, all, NULL, qs, 2, q, 2 * H * 3) == FC_OK, "%s", fc_last_error());
    for (size_t i = 0; i < 2 * H; i++) {
        const float *o = own + 4 * i, *l = lv + 5 * i, *r = q + 3 * i;   /* l: mean, lo-95, lo-80, hi-80, hi-95 */
        CHECK(l[0] == o[0] && r[0] == o[0]);
        CHECK(l[2] == o[2] && l[3] == o[3] && r[1] == o[2] && r[2] == o[3]);   /* 0.1 and 0.9: lo-80, hi-80 */
        CHECK(l[1] <= l[2] && l[3] <= l[4]);
    }
    CHECK(fcast_predict_quantiles(m, all, NULL, qs, 2, q, 2 * H * 3 - 1) == FC_ERR_INVALID);
    const double bad[1] = {1.0};
    CHECK(fcast_predict_quantiles(m, all, NULL, bad, 1, q, 2 * H * 3) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "not strictly between 0 and 1");
    fcast_config *p = config();
    fcast_model *plain = NULL;
    CHECK(fcast_train(p, all, NULL, NULL, NULL, &plain) == FC_OK);
    CHECK(fcast_predict_quantiles(plain, all, NULL, qs, 2, q, 2 * H * 3) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "forecasts no quantiles on request");
    fcast_model_free(plain);
    fcast_config_free(p);
    fcast_model_free(m);
    fcast_config_free(c);
    fcast_data_free(all);
}

int main(void) {
    fill_y();
    conformal_intervals();
    distribution_quantiles();
    window_zero_is_a_cut_training();
    refit_cancel_and_refusals();
    return CHECK_DONE();
}
