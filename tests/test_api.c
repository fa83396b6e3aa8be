/* The library API (include/fcast.h) through its public names only:
 *
 *   1. a panel from the caller's arrays equals the same panel read from a
 *      file: a model trained on each (one thread, same seed) predicts the
 *      same bits, and the arrays may go once the call returns;
 *   2. training calls the progress callback once per step, with the steps
 *      and finite losses; a cancel flag set from the callback stops the run
 *      after that step with FC_ERR_INTERRUPTED and the model so far;
 *   3. a saved model loads back and predicts the same bits; settings by
 *      flag name reach the model (an mq loss gives 3 outputs, a hidden size
 *      changes the file);
 *   4. every misuse is refused with a message naming the argument, key,
 *      series or position: unknown model or key, values out of range,
 *      indptr that decreases, a duplicate ds, a short output buffer,
 *      NULL handles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fcast.h"

#define H 6
#define L 12

/* Two series of a linear trend plus a season of 4, the second with a gap
 * (NaN) and given out of order. */
static const char *const IDS[2] = {"b", "a"};
static const int64_t INDPTR[3] = {0, 40, 76};
static double Y[76];

static void fill_y(void) {
    for (int i = 0; i < 40; i++) Y[i] = 10.0 + 0.5 * i + (i % 4 == 0 ? 3.0 : 0.0);
    for (int i = 0; i < 36; i++) Y[40 + i] = 50.0 - 0.25 * i + (i % 4 == 1 ? -2.0 : 1.0);
    Y[40 + 7] = NAN;
}

/* The same panel as a file (series a first, as files may come in any order too). */
static void write_csv(const char *path) {
    FILE *f = fopen(path, "w");
    fprintf(f, "unique_id,ds,y\n");
    for (int s = 0; s < 2; s++)
        for (int64_t r = INDPTR[s]; r < INDPTR[s + 1]; r++) {
            if (isnan(Y[r])) fprintf(f, "%s,%lld,\n", IDS[s], (long long)(r - INDPTR[s]));
            else fprintf(f, "%s,%lld,%.17g\n", IDS[s], (long long)(r - INDPTR[s]), Y[r]);
        }
    fclose(f);
}

static fcast_config *small_config(const char *model) {
    fcast_config *c = NULL;
    CHECK_MSG(fcast_config_new(model, H, L, &c) == FC_OK, "%s", fc_last_error());
    const char *kv[][2] = {{"max-steps", "12"}, {"windows-batch-size", "32"}, {"threads", "1"}, {"seed", "7"},
                           {"scaler", "robust"}, {"mlp-units", "16,16,16"}};
    for (size_t i = 0; c && i < sizeof kv / sizeof *kv; i++)
        if (strcmp(model, "nhits") == 0 || strcmp(kv[i][0], "mlp-units"))
            CHECK_MSG(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK, "%s=%s: %s", kv[i][0], kv[i][1],
                      fc_last_error());
    return c;
}

typedef struct {
    size_t calls, last_step, max_steps;
    int finite;
    volatile int *cancel;
    size_t cancel_at;
} progress_log;

static void on_progress(void *user, size_t step, size_t max_steps, double loss) {
    progress_log *p = user;
    p->calls++;
    p->finite &= isfinite(loss) && step == p->last_step + 1;
    p->last_step = step;
    p->max_steps = max_steps;
    if (p->cancel && step == p->cancel_at) *p->cancel = 1;
}

static float *predict_all(const fcast_model *m, const fcast_data *d, size_t *n) {
    *n = fcast_data_n_series(d) * fcast_model_h(m) * fcast_model_outputs(m);
    float *out = malloc(*n * sizeof *out);
    CHECK_MSG(fcast_predict(m, d, out, *n) == FC_OK, "%s", fc_last_error());
    return out;
}

static void arrays_equal_file(void) {
    fcast_data *arrays = NULL, *file = NULL;
    double *y = malloc(sizeof Y);
    memcpy(y, Y, sizeof Y);
    CHECK_MSG(fcast_data_from_arrays(2, IDS, INDPTR, y, NULL, FCAST_DS_INDEX, NULL, &arrays) == FC_OK, "%s",
              fc_last_error());
    memset(y, 0, sizeof Y);   /* copied: the caller's arrays may change */
    free(y);
    write_csv("/tmp/fcast_test_api.csv");
    CHECK_MSG(fcast_data_read_csv("/tmp/fcast_test_api.csv", &file) == FC_OK, "%s", fc_last_error());
    remove("/tmp/fcast_test_api.csv");
    CHECK(fcast_data_n_series(arrays) == 2 && fcast_data_n_series(file) == 2);
    CHECK(!strcmp(fcast_data_id(arrays, 0), "a") && !strcmp(fcast_data_id(arrays, 1), "b"));   /* sorted */
    CHECK(fcast_data_id(arrays, 2) == NULL);
    fcast_config *c = small_config("nhits");
    fcast_model *ma = NULL, *mf = NULL;
    CHECK_MSG(fcast_train(c, arrays, NULL, NULL, NULL, &ma) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fcast_train(c, file, NULL, NULL, NULL, &mf) == FC_OK, "%s", fc_last_error());
    size_t n = 0, n2 = 0;
    float *pa = ma ? predict_all(ma, arrays, &n) : NULL, *pf = mf ? predict_all(mf, file, &n2) : NULL;
    CHECK(n == 2 * H && n2 == n && pa && pf && !memcmp(pa, pf, n * sizeof *pa));
    /* 3. save, load, the same bits */
    CHECK_MSG(ma && fcast_model_save(ma, "/tmp/fcast_test_api.safetensors") == FC_OK, "%s", fc_last_error());
    fcast_model *back = NULL;
    CHECK_MSG(fcast_model_load("/tmp/fcast_test_api.safetensors", &back) == FC_OK, "%s", fc_last_error());
    remove("/tmp/fcast_test_api.safetensors");
    float *pb = back ? predict_all(back, arrays, &n2) : NULL;
    CHECK(pb && n2 == n && !memcmp(pa, pb, n * sizeof *pa));
    /* a short buffer is refused, naming what it needs */
    float small[3];
    CHECK(back && fcast_predict(back, arrays, small, 3) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "need 12");
    free(pa), free(pf), free(pb);
    fcast_model_free(ma), fcast_model_free(mf), fcast_model_free(back);
    fcast_config_free(c);
    fcast_data_free(arrays), fcast_data_free(file);
}

static void progress_and_cancel(void) {
    fill_y();
    fcast_data *d = NULL;
    CHECK(fcast_data_from_arrays(2, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, &d) == FC_OK);
    fcast_config *c = small_config("mlp");
    progress_log p = {.finite = 1};
    fcast_model *m = NULL;
    CHECK_MSG(fcast_train(c, d, on_progress, &p, NULL, &m) == FC_OK, "%s", fc_last_error());
    CHECK(p.calls == 12 && p.last_step == 12 && p.max_steps == 12 && p.finite);
    fcast_model_free(m);
    volatile int cancel = 0;
    progress_log q = {.finite = 1, .cancel = &cancel, .cancel_at = 5};
    m = NULL;
    CHECK(fcast_train(c, d, on_progress, &q, &cancel, &m) == FC_ERR_INTERRUPTED);
    CHECK_CONTAINS(fc_last_error(), "after step 5 of 12");
    CHECK(q.calls == 5 && m != NULL && fcast_model_h(m) == H);   /* the model so far */
    fcast_model_free(m);
    /* settings reach the model: an mq loss with two levels gives 5 outputs */
    CHECK(fcast_config_set(c, "loss", "mq") == FC_OK && fcast_config_set(c, "level", "80,95") == FC_OK);
    m = NULL;
    CHECK_MSG(fcast_train(c, d, NULL, NULL, NULL, &m) == FC_OK, "%s", fc_last_error());
    CHECK(fcast_model_outputs(m) == 5);
    fcast_model_free(m);
    fcast_config_free(c);
    fcast_data_free(d);
}

static void refusals(void) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("prophet", H, L, &c) == FC_ERR_INVALID && c == NULL);
    CHECK_CONTAINS(fc_last_error(), "'prophet' is not one of NHITS");
    CHECK(fcast_config_new("nhits", 0, L, &c) == FC_ERR_INVALID);
    CHECK(fcast_config_new("PatchTST", H, L, &c) == FC_OK);   /* any case */
    CHECK_MSG(fcast_config_check(c) == FC_OK, "%s", fc_last_error());   /* neuralforecast's defaults */
    CHECK(fcast_config_set(c, "hidden-size", "30") == FC_OK && fcast_config_set(c, "n-heads", "4") == FC_OK);
    CHECK(fcast_config_check(c) == FC_ERR_INVALID);   /* 4 heads do not divide 30: found before any data */
    CHECK_CONTAINS(fc_last_error(), "n_heads (4) must divide hidden_size (30)");
    CHECK(fcast_config_set(c, "hidden-size", "128") == FC_OK && fcast_config_check(c) == FC_OK);
    CHECK(fcast_config_check(NULL) == FC_ERR_INVALID);
    CHECK(fcast_config_set(c, "hiden-size", "8") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "unknown key 'hiden-size'");
    CHECK(fcast_config_set(c, "max-steps", "-3") == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "max-steps '-3'");
    CHECK(fcast_config_set(c, "lr", "nan") == FC_ERR_INVALID);
    CHECK(fcast_config_set(c, "scaler", "zscore") == FC_ERR_INVALID);
    CHECK(fcast_config_set(c, "n-heads", "5") == FC_OK);           /* checked against hidden-size when training */
    fcast_data *d = NULL;
    CHECK(fcast_data_from_arrays(2, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, &d) == FC_OK);
    fcast_model *m = NULL;
    CHECK(fcast_train(c, d, NULL, NULL, NULL, &m) == FC_ERR_INVALID && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "n_heads (5) must divide hidden_size (128)");
    fcast_config_free(c);
    fcast_data_free(d);
    /* arrays */
    const int64_t bad_indptr[3] = {0, 40, 30};
    CHECK(fcast_data_from_arrays(2, IDS, bad_indptr, Y, NULL, FCAST_DS_INDEX, NULL, &d) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "series 1 ('a') is empty or indptr decreases");
    int64_t ds[76];
    for (int i = 0; i < 76; i++) ds[i] = i < 40 ? i : i - 40;
    ds[45] = ds[44];   /* series a, positions 44 and 45: the same ds twice */
    CHECK(fcast_data_from_arrays(2, IDS, INDPTR, Y, ds, FCAST_DS_INDEX, "1", &d) != FC_OK && d == NULL);
    CHECK_CONTAINS(fc_last_error(), "duplicate (unique_id, ds) = ('a', 4)");
    CHECK_CONTAINS(fc_last_error(), "fcast_data_from_arrays, position 45: column 'ds'");
    CHECK_CONTAINS(fc_last_error(), "already at position 44;");   /* a position, not a line */
    CHECK(fcast_data_from_arrays(0, IDS, INDPTR, Y, NULL, FCAST_DS_INDEX, NULL, &d) == FC_ERR_INVALID);
    CHECK(fcast_data_read_csv("/nonexistent/x.csv", &d) == FC_ERR_IO && d == NULL);
    CHECK(fcast_model_load("/nonexistent/m.safetensors", &m) != FC_OK && m == NULL);
    CHECK(fcast_predict(NULL, NULL, NULL, 0) == FC_ERR_INVALID);
    fcast_data_free(NULL);
    fcast_config_free(NULL);
    fcast_model_free(NULL);
}

int main(void) {
    CHECK(fcast_api_version() == FCAST_API_VERSION);
    fill_y();
    arrays_equal_file();
    progress_and_cancel();
    refusals();
    return CHECK_DONE();
}
