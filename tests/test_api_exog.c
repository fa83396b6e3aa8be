/* Exogenous inputs through the library API: extra columns of a panel
 * (fcast_data_from_columns), static values (fcast_data_set_static), the
 * "futr-exog" / "hist-exog" / "stat-exog" keys, and forecasts with the
 * future values (fcast_predict_future):
 *
 *   1. a model whose target follows a future-known column forecasts
 *      higher when that column's future values are higher (it reads
 *      them), and a model file keeps its lists and forecasts the same bits;
 *   2. the getters say what the model reads and names its outputs as
 *      neuralforecast does (mq: -median, -lo-80, -hi-80);
 *   3. every misuse is refused by name: an unknown column, a NaN where the
 *      model reads, no future values, a series missing from them, static
 *      values missing or repeated, inf, a column named y, two of a name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define H 4
#define L 8
#define N 60

static const char *const IDS[2] = {"s1", "s2"};
static const int64_t INDPTR[3] = {0, N, 2 * N};
static double Y[2 * N], F[2 * N], G[2 * N];

/* y = 3 f + the static level + a little of g: f known ahead drives it. */
static void fill(void) {
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < N; i++) {
            int r = s * N + i;
            F[r] = (double)((i * 7 + s) % 5);
            G[r] = sin(0.3 * i);
            Y[r] = 3.0 * F[r] + 10.0 * (s + 1) + 0.1 * G[r];
        }
}

static fcast_data *history(void) {
    fcast_column cols[2] = {{"f", F}, {"g", G}};
    fcast_data *d = NULL;
    CHECK_MSG(fcast_data_from_columns(2, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, cols, 2, &d) == FC_OK, "%s",
              fc_last_error());
    double level[2] = {1.0, 2.0};
    fcast_column stat = {"level", level};
    CHECK_MSG(d && fcast_data_set_static(d, 2, IDS, &stat, 1) == FC_OK, "%s", fc_last_error());
    return d;
}

/* The future values of f over the next H points of both series, all `value`. */
static fcast_data *future(double value, int series) {
    int64_t ds[2 * H], indptr[3] = {0, H, 2 * H};
    double f[2 * H];
    for (int r = 0; r < 2 * H; r++) ds[r] = N + r % H, f[r] = value;
    fcast_column col = {"f", f};
    fcast_data *d = NULL;
    CHECK_MSG(fcast_data_from_columns((size_t)series, IDS, indptr, NULL, ds, FCAST_DS_INDEX, NULL, &col, 1, &d) ==
              FC_OK, "%s", fc_last_error());
    return d;
}

static fcast_config *config(const char *loss) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("nhits", H, L, &c) == FC_OK);
    const char *kv[][2] = {{"max-steps", "200"}, {"windows-batch-size", "64"}, {"threads", "1"}, {"seed", "1"},
                           {"mlp-units", "32,32"}, {"scaler", "standard"}, {"futr-exog", "f"}, {"hist-exog", "g"},
                           {"stat-exog", "level"}, {"loss", loss}};
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++)
        CHECK_MSG(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK, "%s=%s: %s", kv[i][0], kv[i][1], fc_last_error());
    return c;
}

static double mean_forecast(const fcast_model *m, const fcast_data *hist, double f_value, float *out) {
    fcast_data *fut = future(f_value, 2);
    CHECK_MSG(fcast_predict_future(m, hist, fut, out, 2 * H) == FC_OK, "%s", fc_last_error());
    fcast_data_free(fut);
    double sum = 0;
    for (int i = 0; i < 2 * H; i++) sum += out[i];
    return sum / (2 * H);
}

/* 1 and 2. */
static void reads_the_future(void) {
    fcast_data *hist = history();
    fcast_config *c = config("mae");
    fcast_model *m = NULL;
    CHECK_MSG(fcast_train(c, hist, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    if (!m) return;
    float low[2 * H], high[2 * H], again[2 * H];
    double lo = mean_forecast(m, hist, 0.0, low), hi = mean_forecast(m, hist, 4.0, high);
    /* y moves by 12 between f = 0 and f = 4: a model that reads f moves (6.7 measured); one that does not, 0 */
    CHECK_MSG(hi - lo > 3.0, "forecast with f = 4: %.3f, with f = 0: %.3f", hi, lo);
    CHECK(fcast_predict(m, hist, low, 2 * H) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "fcast_predict_future");
    CHECK_CONTAINS(fc_last_error(), "'f'");

    CHECK(!strcmp(fcast_model_kind(m), "NHITS") && fcast_model_input_size(m) == L);
    CHECK(!strcmp(fcast_model_exog(m, FCAST_EXOG_FUTURE, 0), "f") && !fcast_model_exog(m, FCAST_EXOG_FUTURE, 1));
    CHECK(!strcmp(fcast_model_exog(m, FCAST_EXOG_HISTORIC, 0), "g"));
    CHECK(!strcmp(fcast_model_exog(m, FCAST_EXOG_STATIC, 0), "level"));
    CHECK(!strcmp(fcast_model_output_name(m, 0), "") && !fcast_model_output_name(m, 1));

    char path[] = "/tmp/fcast_api_exog_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && fcast_model_save(m, path) == FC_OK);
    fcast_model *back = NULL;
    CHECK_MSG(fcast_model_load(path, &back) == FC_OK, "%s", fc_last_error());
    if (back) {
        mean_forecast(back, hist, 4.0, again);
        CHECK(!memcmp(again, high, sizeof high));
        CHECK(!strcmp(fcast_model_exog(back, FCAST_EXOG_STATIC, 0), "level"));
    }
    unlink(path);
    if (fd >= 0) close(fd);
    fcast_model_free(back);
    fcast_model_free(m);
    fcast_config_free(c);
    fcast_data_free(hist);
}

static void mq_output_names(void) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("mlp", H, L, &c) == FC_OK);
    const char *kv[][2] = {{"max-steps", "2"}, {"loss", "mq"}, {"level", "80"}, {"threads", "1"}};
    for (size_t i = 0; i < 4; i++) CHECK(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK);
    fcast_data *d = NULL;
    CHECK(fcast_data_from_arrays(2, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, &d) == FC_OK);
    fcast_model *m = NULL;
    CHECK_MSG(fcast_train(c, d, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    const char *want[3] = {"-median", "-lo-80", "-hi-80"};
    for (size_t k = 0; m && k < 3; k++)
        CHECK_MSG(!strcmp(fcast_model_output_name(m, k), want[k]), "output %zu: '%s'", k, fcast_model_output_name(m, k));
    CHECK(!fcast_model_output_name(m, 3) && !fcast_model_exog(m, FCAST_EXOG_FUTURE, 0));
    fcast_model_free(m);
    fcast_data_free(d);
    fcast_config_free(c);
}

/* Training with config key `key` = `value` on hist fails, naming `needle`. */
static void train_refused(fcast_data *hist, const char *key, const char *value, const char *needle) {
    fcast_config *c = config("mae");
    fcast_model *m = NULL;
    CHECK(fcast_config_set(c, key, value) == FC_OK);
    CHECK_MSG(fcast_train(c, hist, NULL, NULL, NULL, &m) == FC_ERR_INVALID && !m, "%s=%s trained", key, value);
    CHECK_CONTAINS(fc_last_error(), needle);
    fcast_config_free(c);
}

static void refusals(void) {
    fcast_data *hist = history();
    train_refused(hist, "futr-exog", "zz", "'zz'");
    train_refused(hist, "hist-exog", "zz", "hist-exog");
    fcast_config *c2 = config("mae");
    CHECK(fcast_config_set(c2, "hist-exog", "g,f") == FC_ERR_INVALID);   /* f is a future column already */
    CHECK_CONTAINS(fc_last_error(), "one role");
    fcast_config_free(c2);
    fcast_config *beats = NULL;
    CHECK(fcast_config_new("nbeats", H, L, &beats) == FC_OK);
    CHECK(fcast_config_set(beats, "futr-exog", "f") == FC_ERR_INVALID);   /* NBEATS takes no exogenous input */
    CHECK_CONTAINS(fc_last_error(), "NBEATS");
    fcast_config_free(beats);
    train_refused(hist, "stat-exog", "height", "'height'");
    double f = F[5];
    F[5] = NAN;
    fcast_data *gap = history();
    F[5] = f;
    train_refused(gap, "futr-exog", "f", "s1");
    fcast_data_free(gap);

    fcast_data *bare = NULL;
    fcast_column cols[2] = {{"f", F}, {"g", G}};
    CHECK(fcast_data_from_columns(2, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, cols, 2, &bare) == FC_OK);
    train_refused(bare, "stat-exog", "level", "fcast_data_set_static");

    double level[2] = {1.0, NAN};
    fcast_column stat = {"level", level};
    CHECK(fcast_data_set_static(bare, 2, IDS, &stat, 1) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "'level', row 1 (series 's2')");
    const char *twice[2] = {"s1", "s1"};
    level[1] = 2.0;
    CHECK(fcast_data_set_static(bare, 2, twice, &stat, 1) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "rows 0 and 1 are both series 's1'");
    CHECK(fcast_data_set_static(bare, 1, IDS, &stat, 1) == FC_ERR_INVALID);   /* no row for s2 */
    CHECK_CONTAINS(fc_last_error(), "'s2'");

    fcast_data *d = NULL;
    fcast_column named_y = {"y", F}, same[2] = {{"f", F}, {"f", G}};
    CHECK(fcast_data_from_columns(2, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, &named_y, 1, &d) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "columns[0] is named 'y'");
    CHECK(fcast_data_from_columns(2, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, same, 2, &d) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "both named 'f'");
    double g = G[70];
    G[70] = INFINITY;
    CHECK(fcast_data_from_columns(2, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, cols, 2, &d) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "position 70 (series 's2'): column 'g' is inf");
    G[70] = g;
    CHECK(d == NULL);

    /* forecasts: the future values lack series s2 */
    fcast_config *c = config("mae");
    CHECK(fcast_config_set(c, "max-steps", "2") == FC_OK);
    fcast_model *m = NULL;
    CHECK_MSG(fcast_train(c, hist, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    fcast_data *half = future(1.0, 1);
    float out[2 * H];
    CHECK(fcast_predict_future(m, hist, half, out, 2 * H) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "s2");
    fcast_data_free(half);
    fcast_model_free(m);
    fcast_config_free(c);
    fcast_data_free(bare);
    fcast_data_free(hist);
}

int main(void) {
    fill();
    reads_the_future();
    mq_output_names();
    refusals();
    return CHECK_DONE();
}
