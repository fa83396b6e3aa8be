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
 *      values missing or repeated, inf, values beyond float's range (y,
 *      extra columns, static values), a column named y, two of a name;
 *   4. the file readers (fcast_data_read_csv_exog, _future_csv,
 *      _static_csv) give the panel fcast_data_from_columns makes of the
 *      same files' numbers: the same forecasts, bit for bit. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
        CHECK_MSG(!strcmp(fcast_model_output_name(m, k), want[k]), "output %zu: '%s'", k,
                  fcast_model_output_name(m, k));
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
    CHECK_CONTAINS(fc_last_error(), "position 70 (series 's2', ds 10): column 'g' is inf");
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

/* ---- 4. files and arrays give the same panel: the exogenous fixture
 * (tests/fixtures/exog) read by the file readers, and parsed here into
 * the arrays of fcast_data_from_columns, train and forecast the same bits. */

#define EXOG_DIR FC_SOURCE_DIR "/tests/fixtures/exog/"
#define MAX_ROWS 128

typedef struct {
    size_t n_rows, n_cols, n_series;
    char names[8][32];
    char ids[MAX_ROWS][32];
    int64_t ds[MAX_ROWS];
    double v[8][MAX_ROWS];          /* v[0] is y when the file has it */
    const char *series_ids[MAX_ROWS];
    int64_t indptr[MAX_ROWS + 1];
} csv_table;

static int64_t date_seconds(const char *text) {
    struct tm t = {0};
    sscanf(text, "%d-%d-%d", &t.tm_year, &t.tm_mon, &t.tm_mday);
    t.tm_year -= 1900, t.tm_mon -= 1;
    return (int64_t)timegm(&t);
}

/* A comma-separated file without quoting: unique_id, then ds (a date) or
 * not (static), then numbers; the rows of a series contiguous. */
static int read_table(const char *path, int has_ds, csv_table *t) {
    FILE *f = fopen(path, "r");
    char line[512];
    memset(t, 0, sizeof *t);
    if (!f || !fgets(line, sizeof line, f)) return f ? fclose(f), 0 : 0;
    line[strcspn(line, "\r\n")] = 0;
    size_t col = 0;
    for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ","), col++)
        if (col >= (size_t)(1 + has_ds)) snprintf(t->names[t->n_cols++], 32, "%s", tok);
    while (t->n_rows < MAX_ROWS && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        size_t r = t->n_rows++;
        col = 0;
        for (char *tok = strtok(line, ","); tok; tok = strtok(NULL, ","), col++) {
            if (col == 0) snprintf(t->ids[r], 32, "%s", tok);
            else if (col == 1 && has_ds) t->ds[r] = date_seconds(tok);
            else t->v[col - 1 - (size_t)has_ds][r] = strtod(tok, NULL);
        }
        if (!r || strcmp(t->ids[r], t->ids[r - 1])) {   /* a new series starts */
            t->indptr[t->n_series] = (int64_t)r;
            t->series_ids[t->n_series++] = t->ids[r];
        }
    }
    t->indptr[t->n_series] = (int64_t)t->n_rows;
    fclose(f);
    return 1;
}

/* The table's columns from `first` on as fcast_columns. */
static size_t as_columns(csv_table *t, size_t first, fcast_column *cols) {
    for (size_t j = first; j < t->n_cols; j++) cols[j - first] = (fcast_column){t->names[j], t->v[j]};
    return t->n_cols - first;
}

static float *train_and_forecast(fcast_data *hist, fcast_data *futr) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("nhits", 6, 12, &c) == FC_OK);
    const char *kv[][2] = {{"max-steps", "5"}, {"windows-batch-size", "16"}, {"threads", "1"}, {"seed", "2"},
                           {"mlp-units", "16,16"}, {"scaler", "robust"}, {"futr-exog", "trend_f,season_f"},
                           {"hist-exog", "lag_h"}, {"stat-exog", "s_size,s_flag"}};
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++) CHECK(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK);
    fcast_model *m = NULL;
    float *out = calloc(2 * 6, sizeof *out);
    CHECK_MSG(fcast_train(c, hist, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(m && fcast_predict_future(m, hist, futr, out, 2 * 6) == FC_OK, "%s", fc_last_error());
    fcast_model_free(m);
    fcast_config_free(c);
    return out;
}

static void files_equal_arrays(void) {
    fcast_data *hist = NULL, *futr = NULL, *ahist = NULL, *afutr = NULL;
    CHECK_MSG(fcast_data_read_csv_exog(EXOG_DIR "history.csv", &hist) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(hist && fcast_data_read_static_csv(hist, EXOG_DIR "static.csv") == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fcast_data_read_future_csv(EXOG_DIR "future.csv", &futr) == FC_OK, "%s", fc_last_error());
    static csv_table h, f, st;
    CHECK(read_table(EXOG_DIR "history.csv", 1, &h) && read_table(EXOG_DIR "future.csv", 1, &f) &&
          read_table(EXOG_DIR "static.csv", 0, &st));
    fcast_column hc[8], fc[8], sc[8];
    size_t nh = as_columns(&h, 1, hc), nf = as_columns(&f, 0, fc), ns = as_columns(&st, 0, sc);
    CHECK(nh == 3 && nf == 2 && ns == 2 && h.n_series == 2);
    CHECK_MSG(fcast_data_from_columns(h.n_series, h.series_ids, h.indptr, h.v[0], h.ds, FCAST_DS_DATE, "MS", hc, nh,
                                      &ahist) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(ahist && fcast_data_set_static(ahist, st.n_rows, st.series_ids, sc, ns) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fcast_data_from_columns(f.n_series, f.series_ids, f.indptr, NULL, f.ds, FCAST_DS_DATE, "MS", fc, nf,
                                      &afutr) == FC_OK, "%s", fc_last_error());
    if (hist && futr && ahist && afutr) {
        float *from_files = train_and_forecast(hist, futr), *from_arrays = train_and_forecast(ahist, afutr);
        CHECK(!memcmp(from_files, from_arrays, 2 * 6 * sizeof(float)));
        int finite = 1;
        for (int i = 0; i < 12; i++) finite &= isfinite(from_files[i]) != 0;
        CHECK(finite);
        free(from_files), free(from_arrays);
    }
    /* a text column cannot be an exogenous variable: the reader names it */
    FILE *bad = fopen("/tmp/fcast_api_exog_text.csv", "w");
    fprintf(bad, "unique_id,ds,y,store\na,1,1.5,north\na,2,2.5,south\n");
    fclose(bad);
    fcast_data *text = NULL;
    CHECK(fcast_data_read_csv_exog("/tmp/fcast_api_exog_text.csv", &text) == FC_ERR_PARSE && !text);
    CHECK_CONTAINS(fc_last_error(), "'store'");
    CHECK(fcast_data_read_csv("/tmp/fcast_api_exog_text.csv", &text) == FC_OK);   /* the plain reader skips it */
    remove("/tmp/fcast_api_exog_text.csv");
    CHECK(fcast_data_read_static_csv(hist, "/nonexistent/static.csv") != FC_OK);
    CHECK_CONTAINS(fc_last_error(), "/nonexistent/static.csv");
    fcast_data_free(text), fcast_data_free(hist), fcast_data_free(futr), fcast_data_free(ahist);
    fcast_data_free(afutr);
}

/* Values beyond float's range are refused from arrays as from a file (the
 * CSV loader's "beyond the float range", exit 3 in the CLI): the model reads
 * floats, where 1e39 is inf and the forecasts came out inf. The message
 * names the series, the position and the ds, in the panel's ds format. */
static void beyond_float_range(void) {
    static const char *const id[1] = {"s1"};
    const int64_t indptr[2] = {0, 3}, days[3] = {0, 86400, 2 * 86400};
    double y[3] = {1, 1e39, 2}, f[3] = {0, 0, -3.5e38}, ok[3] = {1, 2, 3};
    fcast_column col = {"f", f}, fine = {"f", ok};
    fcast_data *d = NULL;
    CHECK(fcast_data_from_arrays(1, id, indptr, y, days, FCAST_DS_DATE, "D", &d) == FC_ERR_INVALID && !d);
    CHECK_CONTAINS(fc_last_error(), "position 1 (series 's1', ds 1970-01-02): y is 1e+39, beyond the float range");
    y[1] = -FLT_MAX;   /* the edge is kept */
    CHECK(fcast_data_from_columns(1, id, indptr, y, days, FCAST_DS_DATE, "D", &col, 1, &d) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "position 2 (series 's1', ds 1970-01-03): column 'f' is -3.5e+38, beyond");
    CHECK(fcast_data_from_columns(1, id, indptr, NULL, days, FCAST_DS_DATE, "D", &col, 1, &d) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "column 'f' is -3.5e+38");   /* future values too */
    CHECK_MSG(fcast_data_from_columns(1, id, indptr, y, days, FCAST_DS_DATE, "D", &fine, 1, &d) == FC_OK, "%s",
              fc_last_error());
    double level[1] = {4e38};
    fcast_column stat = {"level", level};
    CHECK(fcast_data_set_static(d, 1, id, &stat, 1) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "column 'level', row 0 (series 's1'): 4e+38 is beyond the float range");
    fcast_data_free(d);
}

int main(void) {
    files_equal_arrays();
    fill();
    reads_the_future();
    mq_output_names();
    refusals();
    beyond_float_range();
    return CHECK_DONE();
}
