/* fcast_eval_file and fcast_eval_check (fcast.h) by public names only,
 * against independent truth:
 *
 *   1. the model form: a model trained here forecasts the held-out points;
 *      the table's MAE and RMSE of the model and of seasonal naive are
 *      the ones computed here from fcast_predict's forecasts and the
 *      series' own last values;
 *   2. the file forms: a cross-validation file worked out by hand (the
 *      numbers of tests/cli_eval.sh: MAE 0.5, Naive 1, SeasonalNaive(2)
 *      3, MASE 1/3), written as CSV;
 *   3. refusals name the request's fields (keys; --flags under
 *      FCAST_NAMES_FLAGS), and a bad output is refused before any work. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define H 4
#define L 8
#define N_TRAIN 40

static char dir[] = "/tmp/fcast_test_api_eval_XXXXXX";

static void path_in(char *buf, size_t cap, const char *name) { snprintf(buf, cap, "%s/%s", dir, name); }

static double value_at(int series, int t) { return 10.0 * (series + 1) + 3.0 * sin(0.7 * t) + 0.1 * t; }

/* Two series, the first N_TRAIN points in train.csv, the next H in test.csv. */
static void write_data(const char *train, const char *test) {
    FILE *a = fopen(train, "w"), *b = fopen(test, "w");
    fprintf(a, "unique_id,ds,y\n");
    fprintf(b, "unique_id,ds,y\n");
    for (int s = 0; s < 2; s++)
        for (int t = 0; t < N_TRAIN + H; t++) fprintf(t < N_TRAIN ? a : b, "S%d,%d,%.6f\n", s, t, value_at(s, t));
    fclose(a);
    fclose(b);
}

static fcast_model *train_model(const char *train, const char *model) {
    fcast_config *c = NULL;
    fcast_model *m = NULL;
    CHECK(fcast_config_new("mlp", H, L, &c) == FC_OK);
    const char *kv[][2] = {{"max-steps", "5"}, {"threads", "1"}, {"num-layers", "1"}, {"hidden-size", "8"},
                           {"out", model}};
    for (size_t i = 0; i < sizeof kv / sizeof *kv; i++) CHECK(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK);
    CHECK_MSG(fcast_train_file(c, train, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    fcast_config_free(c);
    return m;
}

/* The numbers of the table's row `metric`: model, seasonal naive. */
static int table_row(const char *path, const char *metric, double *model, double *naive) {
    FILE *f = fopen(path, "r");
    char line[256], name[32];
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = sscanf(line, "%31s %lf %lf", name, model, naive) == 3 && !strcmp(name, metric);
    if (f) fclose(f);
    return found;
}

static void model_form_against_predict(void) {
    char train[128], test[128], model[128], out[128];
    path_in(train, sizeof train, "train.csv"), path_in(test, sizeof test, "test.csv");
    path_in(model, sizeof model, "m.safetensors"), path_in(out, sizeof out, "scores.txt");
    write_data(train, test);
    fcast_model *m = train_model(train, model);
    fcast_data *d = NULL;
    float f[2 * H];
    CHECK(fcast_data_read_csv(train, &d) == FC_OK);
    CHECK_MSG(m && d && fcast_predict(m, d, f, 2 * H) == FC_OK, "%s", fc_last_error());
    double abs_m = 0, sq_m = 0, abs_n = 0, sq_n = 0;
    for (int s = 0; s < 2; s++)
        for (int k = 0; k < H; k++) {
            double y = value_at(s, N_TRAIN + k), e = (double)f[s * H + k] - y, n = value_at(s, N_TRAIN - 1) - y;
            abs_m += fabs(e), sq_m += e * e, abs_n += fabs(n), sq_n += n * n;
        }
    fcast_eval_request r = {.model = model, .train = train, .test = test, .season = 1, .threads = 1, .out = out};
    CHECK_MSG(fcast_eval_file(&r) == FC_OK, "%s", fc_last_error());
    double mae = NAN, naive = NAN, rmse = NAN, rmse_naive = NAN;
    CHECK(table_row(out, "MAE", &mae, &naive) && table_row(out, "RMSE", &rmse, &rmse_naive));
    CHECK_CLOSE(mae, abs_m / (2 * H), 1e-4, 0);   /* the table has 4 decimals */
    CHECK_CLOSE(naive, abs_n / (2 * H), 1e-4, 0);
    CHECK_CLOSE(rmse, sqrt(sq_m / (2 * H)), 1e-4, 0);
    CHECK_CLOSE(rmse_naive, sqrt(sq_n / (2 * H)), 1e-4, 0);
    fcast_data_free(d);
    fcast_model_free(m);
    remove(train), remove(test), remove(model), remove(out);
}

/* The value of metric,model over everything in a long CSV of scores. */
static double csv_value(const char *path, const char *metric, const char *model) {
    FILE *f = fopen(path, "r");
    char line[256], want[128];
    double v = NAN;
    snprintf(want, sizeof want, "%s,%s,,,", metric, model);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, want, strlen(want))) v = strtod(line + strlen(want), NULL);
    if (f) fclose(f);
    return v;
}

static void file_form_by_hand(void) {
    char history[128], cv[128], out[128];
    path_in(history, sizeof history, "h.csv"), path_in(cv, sizeof cv, "cv.csv"), path_in(out, sizeof out, "s.csv");
    FILE *f = fopen(history, "w");
    fputs("unique_id,ds,y\nA,1,1\nA,2,4\nA,3,2\nA,4,6\nA,5,7\nA,6,5\n", f);
    fclose(f);
    f = fopen(cv, "w");
    fputs("unique_id,ds,cutoff,y,M\nA,5,4,7,8\nA,6,4,5,5\n", f);
    fclose(f);
    fcast_eval_request r = {.cv = cv, .train = history, .season = 2, .format = "csv", .out = out};
    CHECK_MSG(fcast_eval_file(&r) == FC_OK, "%s", fc_last_error());
    CHECK_CLOSE(csv_value(out, "MAE", "M"), 0.5, 1e-12, 0);
    CHECK_CLOSE(csv_value(out, "MAE", "Naive"), 1.0, 1e-12, 0);
    CHECK_CLOSE(csv_value(out, "MAE", "SeasonalNaive(2)"), 3.0, 1e-12, 0);
    CHECK_CLOSE(csv_value(out, "MASE", "M"), 1.0 / 3.0, 1e-12, 0);
    remove(history), remove(cv), remove(out);
}

static void refusals_name_fields(void) {
    const char *cv = "tests/fixtures/eval/cv.csv";
    fcast_eval_request r = {.cv = cv, .model = "m.safetensors", .season = 1};
    CHECK(fcast_eval_check(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "give one of model (with train and test), cv, or forecasts");
    r = (fcast_eval_request){.cv = cv};
    CHECK(fcast_eval_file(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "season must be >= 1");
    r = (fcast_eval_request){.cv = cv, .season = 1, .format = "xml"};
    CHECK(fcast_eval_check(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "format must be table, csv or json");
    r = (fcast_eval_request){.model = "m.safetensors", .train = cv, .season = 1};
    CHECK(fcast_eval_check(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "model needs train and test");
    r = (fcast_eval_request){.cv = cv, .season = 1, .out = "/nonexistent-dir/s.txt"};
    CHECK(fcast_eval_file(&r) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "out /nonexistent-dir/s.txt");
    r = (fcast_eval_request){.cv = cv, .season = 1, .out = cv};
    CHECK(fcast_eval_file(&r) == FC_ERR_INVALID);   /* the output would overwrite the input */
    fcast_set_option_names(FCAST_NAMES_FLAGS);
    r = (fcast_eval_request){.cv = cv, .season = 1, .test = cv};
    CHECK(fcast_eval_check(&r) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "--test goes with --model or --forecasts; a --cv file holds its y");
    fcast_set_option_names(FCAST_NAMES_KEYS);
}

int main(void) {
    CHECK(mkdtemp(dir) != NULL);
    model_form_against_predict();
    file_form_by_hand();
    refusals_name_fields();
    rmdir(dir);
    return CHECK_DONE();
}
