/* A forecast over files through the library as `fcast predict` runs it
 * (fcast.h, fcast_predict_files), by public names only, against the
 * lower-level calls:
 *
 *   1. one model: the CSV's header is unique_id, ds, MLP; its rows are
 *      the series in fcast_data_id's order, h each, and every value is
 *      fcast_predict's on the same file, to the bit (%.9g round-trips a
 *      float); the summary says series, h and files;
 *   2. models side by side: MLP, MLP1, MLP2 with the values of
 *      fcast_predict; with level 80, two conformal models' MLP,
 *      MLP-lo-80, MLP-hi-80, MLP1, ... with fcast_predict_levels';
 *   3. exogenous inputs: a model reading future, past and static columns,
 *      its forecast from the files equal to fcast_predict_future's on the
 *      same files read by fcast_data_read_*; without the future file it
 *      is refused naming the key;
 *   4. refusals: bad values name their key, an unwritable output is
 *      refused before the data is read, a memory limit below a model's
 *      plan is FC_ERR_MEMORY naming the key, intervals of a point model are refused and leave no
 *      file; under FCAST_NAMES_FLAGS the same messages name --flags. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define H 6
#define L 12
#define DATA "data/monthly_classics.csv"
#define EXOG "tests/fixtures/exog/"
#define MAX_COLS 8

static char dir[] = "/tmp/fcast_test_api_predict_run_XXXXXX";
static char model_a[128], model_b[128], model_conf[128], model_conf2[128], model_wide[128], model_exog[128],
    out_csv[128];

/* A small MLP trained into path with the extra keys kv (NULL-terminated pairs). */
static void train(const char *path, const char *data, const char *const *kv) {
    fcast_config *c = NULL;
    CHECK_MSG(fcast_config_new("mlp", H, L, &c) == FC_OK, "%s", fc_last_error());
    const char *base[][2] = {{"max-steps", "6"}, {"windows-batch-size", "32"}, {"threads", "1"},
                             {"num-layers", "1"}, {"hidden-size", "16"}, {"out", path}};
    for (size_t i = 0; c && i < sizeof base / sizeof *base; i++)
        CHECK_MSG(fcast_config_set(c, base[i][0], base[i][1]) == FC_OK, "%s: %s", base[i][0], fc_last_error());
    for (size_t i = 0; c && kv && kv[i]; i += 2)
        CHECK_MSG(fcast_config_set(c, kv[i], kv[i + 1]) == FC_OK, "%s: %s", kv[i], fc_last_error());
    fcast_model *m = NULL;
    CHECK_MSG(fcast_train_file(c, data, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    fcast_model_free(m);
    fcast_config_free(c);
}

static fcast_model *load(const char *path) {
    fcast_model *m = NULL;
    CHECK_MSG(fcast_model_load(path, &m) == FC_OK, "%s", fc_last_error());
    return m;
}

/* The forecast CSV at path against the header and the values expected:
 * row r (series r / H, step r % H) holds want[r * n_cols ..]. */
static void check_csv(const char *path, const char *header, const fcast_data *d, const float *want, size_t n_cols) {
    FILE *f = fopen(path, "r");
    CHECK_MSG(f != NULL, "%s", path);
    if (!f) return;
    char line[4096];
    CHECK(fgets(line, sizeof line, f) && !strcmp(strtok(line, "\n"), header));
    size_t rows = 0, bad_id = 0, bad_value = 0;
    while (fgets(line, sizeof line, f)) {
        char *save = NULL, *id = strtok_r(line, ",\n", &save);
        strtok_r(NULL, ",\n", &save);   /* ds */
        if (!id || strcmp(id, fcast_data_id(d, rows / H) ? fcast_data_id(d, rows / H) : "")) bad_id++;
        for (size_t k = 0; k < n_cols; k++) {
            const char *cell = strtok_r(NULL, ",\n", &save);
            if (!cell || strtof(cell, NULL) != want[rows * n_cols + k]) bad_value++;
        }
        rows++;
    }
    fclose(f);
    CHECK_MSG(rows == fcast_data_n_series(d) * H, "%zu rows", rows);
    CHECK_MSG(!bad_id && !bad_value, "%zu ids and %zu values differ", bad_id, bad_value);
}

/* Column k of `cols` columns of want from (n, H, width) values of one model. */
static void place(float *want, size_t cols, size_t k, const float *values, size_t rows, size_t width) {
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < width; j++) want[r * cols + k + j] = values[r * width + j];
}

static float *predicted(const char *path, const fcast_data *d, const double *levels, size_t n_levels) {
    size_t n = fcast_data_n_series(d) * H * (1 + 2 * n_levels);
    float *out = calloc(n, sizeof *out);
    fcast_model *m = load(path);
    CHECK_MSG(m && fcast_predict_levels(m, d, NULL, levels, n_levels, out, n) == FC_OK, "%s", fc_last_error());
    fcast_model_free(m);
    return out;
}

static void one_model(void) {
    fcast_data *d = NULL;
    CHECK(fcast_data_read_csv(DATA, &d) == FC_OK);
    fcast_predict_request q = {.model = model_a, .data = DATA, .out = out_csv, .threads = 1};
    fcast_predict_summary s = {0};
    CHECK_MSG(fcast_predict_files(&q, &s) == FC_OK, "%s", fc_last_error());
    CHECK(s.series == fcast_data_n_series(d) && s.h == H && s.files == 1);
    float *want = predicted(model_a, d, NULL, 0);
    check_csv(out_csv, "unique_id,ds,MLP", d, want, 1);
    free(want);
    fcast_data_free(d);
}

static void side_by_side(void) {
    fcast_data *d = NULL;
    CHECK(fcast_data_read_csv(DATA, &d) == FC_OK);
    char list[512];
    snprintf(list, sizeof list, "%s,%s,%s", model_a, model_b, model_conf);
    fcast_predict_request q = {.model = list, .data = DATA, .out = out_csv, .threads = 1};
    fcast_predict_summary s = {0};
    CHECK_MSG(fcast_predict_files(&q, &s) == FC_OK, "%s", fc_last_error());
    CHECK(s.files == 3 && s.h == H);
    size_t rows = fcast_data_n_series(d) * H, cols = 3;
    float *want = calloc(rows * cols, sizeof *want), *a = predicted(model_a, d, NULL, 0),
          *b = predicted(model_b, d, NULL, 0), *c = predicted(model_conf, d, NULL, 0);
    place(want, cols, 0, a, rows, 1);
    place(want, cols, 1, b, rows, 1);
    place(want, cols, 2, c, rows, 1);
    check_csv(out_csv, "unique_id,ds,MLP,MLP1,MLP2", d, want, cols);
    CHECK(memcmp(a, b, rows * sizeof *a));   /* two models, not one twice */
    free(want), free(a), free(b), free(c);
    fcast_data_free(d);
}

static void side_by_side_with_levels(void) {
    fcast_data *d = NULL;
    CHECK(fcast_data_read_csv(DATA, &d) == FC_OK);
    char list[512];
    snprintf(list, sizeof list, "%s,%s", model_conf, model_conf2);
    fcast_predict_request q = {.model = list, .data = DATA, .out = out_csv, .level = "80", .threads = 1};
    CHECK_MSG(fcast_predict_files(&q, NULL) == FC_OK, "%s", fc_last_error());
    size_t rows = fcast_data_n_series(d) * H, cols = 6;
    double level = 80;
    float *want = calloc(rows * cols, sizeof *want), *a = predicted(model_conf, d, &level, 1),
          *b = predicted(model_conf2, d, &level, 1);
    place(want, cols, 0, a, rows, 3);
    place(want, cols, 3, b, rows, 3);
    check_csv(out_csv, "unique_id,ds,MLP,MLP-lo-80,MLP-hi-80,MLP1,MLP1-lo-80,MLP1-hi-80", d, want, cols);
    free(want), free(a), free(b);
    fcast_data_free(d);
}

static void exogenous_inputs(void) {
    fcast_data *history = NULL, *future = NULL;
    CHECK(fcast_data_read_csv_exog(EXOG "history.csv", &history) == FC_OK);
    CHECK(history && fcast_data_read_static_csv(history, EXOG "static.csv") == FC_OK);
    CHECK(fcast_data_read_future_csv(EXOG "future.csv", &future) == FC_OK);
    fcast_predict_request q = {.model = model_exog, .data = EXOG "history.csv", .out = out_csv,
                               .futr_data = EXOG "future.csv", .stat_exog_file = EXOG "static.csv", .threads = 1};
    CHECK_MSG(fcast_predict_files(&q, NULL) == FC_OK, "%s", fc_last_error());
    size_t n = fcast_data_n_series(history) * H;
    float *want = calloc(n, sizeof *want);
    fcast_model *m = load(model_exog);
    CHECK_MSG(m && fcast_predict_future(m, history, future, want, n) == FC_OK, "%s", fc_last_error());
    check_csv(out_csv, "unique_id,ds,MLP", history, want, 1);
    q.futr_data = NULL;
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "give their values over the horizon with futr-data");
    free(want);
    fcast_model_free(m);
    fcast_data_free(history), fcast_data_free(future);
}

static void refusals(void) {
    fcast_predict_request q = {.model = model_a, .data = DATA, .out = out_csv, .threads = 1};
    CHECK(fcast_predict_files(NULL, NULL) == FC_ERR_INVALID);
    q.memory_limit = "lots";
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "memory-limit 'lots' is not a size");
    CHECK(!strstr(fc_last_error(), "--"));
    remove(out_csv);
    q.model = model_wide, q.memory_limit = "17MiB";   /* the data fits, the model's 4 MiB of weights do not */
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_MEMORY && access(out_csv, F_OK) != 0);
    CHECK_CONTAINS(fc_last_error(), "memory-limit 17.0 MiB: this run needs");
    q.model = model_a, q.memory_limit = NULL, q.data_store = "disk";
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "data-store");
    q.data_store = NULL, q.level = "120";
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "level");
    q.level = NULL, q.device = "tpu";
    CHECK(fcast_predict_files(&q, NULL) != FC_OK);
    q.device = NULL, q.out = "/nonexistent-dir/f.csv", q.data = "/nonexistent-data.csv";
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "out /nonexistent-dir/f.csv");   /* the output, not the data */
    q.out = DATA, q.data = DATA;
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "is the input file given to data");
    remove(out_csv);
    q.out = out_csv, q.level = "80";   /* a point model has no intervals */
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_INVALID && access(out_csv, F_OK) != 0);
    q.level = NULL, q.model = "/nonexistent-model.safetensors";
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_IO);
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    q.model = model_a, q.memory_limit = "lots";
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--memory-limit 'lots' is not a size");
    q.memory_limit = NULL, q.out = DATA;
    CHECK(fcast_predict_files(&q, NULL) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--out");
    fcast_set_option_names(FCAST_NAMES_KEYS);
}

int main(void) {
    CHECK(mkdtemp(dir) != NULL);
    snprintf(model_a, sizeof model_a, "%s/a.safetensors", dir);
    snprintf(model_b, sizeof model_b, "%s/b.safetensors", dir);
    snprintf(model_conf, sizeof model_conf, "%s/conf.safetensors", dir);
    snprintf(model_conf2, sizeof model_conf2, "%s/conf2.safetensors", dir);
    snprintf(model_wide, sizeof model_wide, "%s/wide.safetensors", dir);
    snprintf(model_exog, sizeof model_exog, "%s/exog.safetensors", dir);
    snprintf(out_csv, sizeof out_csv, "%s/forecast.csv", dir);
    train(model_a, DATA, (const char *[]){"seed", "1", NULL});
    train(model_b, DATA, (const char *[]){"seed", "2", NULL});
    train(model_conf, DATA, (const char *[]){"seed", "3", "prediction-intervals", "conformal", "pi-windows", "2", NULL});
    train(model_conf2, DATA, (const char *[]){"seed", "4", "prediction-intervals", "conformal", NULL});
    train(model_wide, DATA, (const char *[]){"hidden-size", "1024", "num-layers", "2", "max-steps", "1", NULL});
    train(model_exog, EXOG "history.csv",
          (const char *[]){"futr-exog", "trend_f,season_f", "hist-exog", "lag_h", "stat-exog-file",
                           EXOG "static.csv", NULL});
    one_model();
    side_by_side();
    side_by_side_with_levels();
    exogenous_inputs();
    refusals();
    const char *files[] = {model_a, model_b, model_conf, model_conf2, model_wide, model_exog, out_csv};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) remove(files[i]);
    rmdir(dir);
    return CHECK_DONE();
}
