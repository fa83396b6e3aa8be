/* End-to-end prediction against neuralforecast for the kinds beyond
 * tests/test_predict_parity.c's N-HiTS:
 *
 * - exogenous inputs (tests/fixtures/exog, python/make_exog_fixtures.py):
 *   NHITS (robust scaler), NBEATSx (standard) and MLP (minmax) fitted with
 *   future, past and static columns and a learning rate of 0 on history.csv
 *   + static.csv, with their weights and NeuralForecast.predict(futr_df=
 *   future.csv). fcast loads the same files the way `fcast predict` does
 *   (the history with its extra columns, the static values attached, the
 *   history extended by the future file): this checks the scaling of every
 *   exogenous channel, the future part of the windows and the static
 *   values, not only the models' arithmetic;
 * - LSTM (tests/fixtures/lstm, python/make_lstm_fixtures.py) with the robust
 *   scaler, from its history alone;
 * - TiDE (tests/fixtures/tide, python/make_tide_fixtures.py) with the exog
 *   files, with and without layer norm. PyTorch's inference-mode LSTM differs
 *   from its autograd one in the last bits (about 1.5e-8), so the tolerance
 *   is not bitwise;
 * - PatchTST (tests/fixtures/patchtst, python/make_patchtst_fixtures.py)
 *   from the LSTM's history: fitted one step at learning rate 0, which
 *   leaves the weights but moves BatchNorm's running statistics, which its
 *   predict (eval mode) then uses. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "st_files.h"
#include "core/error.h"
#include "data/exog_data.h"
#include "train/model_file.h"
#include "io/safetensors.h"
#include "train/forecaster.h"

#define FIXTURES FC_SOURCE_DIR "/tests/fixtures/"

/* dir's history, extended by its future file's values of the model's
 * future columns and given its static file, when the model reads them. */
static fc_dataset *history_for(const char *dir, const fc_model_config *c) {
    char path[512];
    fc_dataset *hist = NULL, *futr = NULL, *ext = NULL;
    snprintf(path, sizeof path, FIXTURES "%s/history.csv", dir);
    CHECK_MSG(fc_dataset_load_csv(path, NULL, &hist) == FC_OK, "%s", fc_last_error());
    if (!hist || !fc_model_has_exog(c)) return hist;
    snprintf(path, sizeof path, FIXTURES "%s/future.csv", dir);
    CHECK_MSG(fc_dataset_load_csv(path, &(fc_load_options){.y_optional = 1, .keep_gaps = 1}, &futr) == FC_OK, "%s",
              fc_last_error());
    const char *names[FC_MAX_EXOG];
    size_t hc[FC_MAX_EXOG], fcols[FC_MAX_EXOG], n = (size_t)c->futr_exog.n;
    fc_exog_list_names(&c->futr_exog, names);
    if (futr) {
        CHECK(fc_exog_columns(hist, names, n, "--futr-exog", hc) == FC_OK);
        CHECK(fc_exog_columns(futr, names, n, "--futr-exog", fcols) == FC_OK);
        CHECK_MSG(fc_futr_extend(hist, futr, hc, fcols, n, c->h, &ext) == FC_OK, "%s", fc_last_error());
    }
    snprintf(path, sizeof path, FIXTURES "%s/static.csv", dir);
    if (ext) CHECK_MSG(fc_dataset_attach_static(ext, path) == FC_OK, "%s", fc_last_error());
    fc_dataset_free(&hist);
    fc_dataset_free(&futr);
    return ext;
}

/* The fixture dir/file, predicted from data_dir's history (and future and
 * static files). */
static void check_case(const char *dir, const char *file, const char *data_dir) {
    char path[512];
    snprintf(path, sizeof path, FIXTURES "%s/%s", dir, file);
    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(path, &f) == FC_OK, "%s", fc_last_error());
    if (!f) return;
    const char *cfg_json = fc_st_meta(f, "config");
    fc_forecaster fo = {0};
    fc_model_config cfg;
    fc_backend *be = NULL;
    CHECK_MSG(fc_model_config_from_json(cfg_json, path, &cfg) == FC_OK, "%s", fc_last_error());
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    CHECK_MSG(fc_model_create(&cfg, be, &fo.model) == FC_OK, "%s", fc_last_error());
    const char *scaler = strstr(cfg_json, "\"scaler_type\": \"");
    char name[16] = "";   /* the name that follows, up to its quote */
    CHECK(scaler != NULL);
    sscanf(scaler ? scaler + 16 : "", "%15[a-z]", name);
    CHECK(fc_scaler_parse(name, &fo.scaler) == 0);
    st_load_state_dict(fo.model, f);
    fc_dataset *ext = history_for(data_dir, &cfg);
    size_t N = ext ? ext->n_series : 0, H = cfg.h, tail = cfg.futr_exog.n ? H : 0;
    float *fc = malloc((N ? N : 1) * H * sizeof(float));
    CHECK_MSG(ext && fc_predict_before(&fo, ext, tail, fc) == FC_OK, "%s", fc_last_error());
    const float *ref;
    int64_t shape[2] = {(int64_t)N, (int64_t)H};
    CHECK(fc_st_get_f32(f, "forecast", 2, shape, &ref) == FC_OK);
    double worst = 0.0;
    for (size_t i = 0; ext && i < N * H; i++) {
        CHECK_CLOSE(fc[i], ref[i], 1e-4, 1e-5);
        double e = fabs((double)fc[i] - ref[i]) / fabs(ref[i]);
        if (e > worst) worst = e;
    }
    printf("%s: %s with %s scaler, %zu series x %zu steps, worst relative error %.2g\n", file,
           fc_model_kind_name(cfg.kind), name, N, H, worst);
    free(fc);
    fc_dataset_free(&ext);
    fc_forecaster_free(&fo);
    fc_backend_destroy(&be);
    fc_st_free(&f);
}

int main(void) {
    check_case("exog", "predict_nhits.safetensors", "exog");
    check_case("exog", "predict_nbeatsx.safetensors", "exog");
    check_case("exog", "predict_mlp.safetensors", "exog");
    check_case("lstm", "predict_lstm.safetensors", "lstm");
    check_case("tide", "predict_tide.safetensors", "exog");
    check_case("tide", "predict_tide_noln.safetensors", "exog");
    check_case("patchtst", "predict_patchtst.safetensors", "lstm");
    return CHECK_DONE();
}
