/* End-to-end prediction with exogenous inputs against neuralforecast:
 * python/make_exog_fixtures.py fitted NHITS (robust scaler), NBEATSx
 * (standard) and MLP (minmax) with future, past and static columns and a
 * learning rate of 0 on tests/fixtures/exog/history.csv + static.csv, and
 * stored their weights and NeuralForecast.predict(futr_df=future.csv).
 * fcast loads the same files the way `fcast predict` does (the history
 * with its extra columns, the static values attached, the history extended
 * by the future file) and must give the same forecasts: this checks the
 * scaling of every exogenous channel, the future part of the windows and
 * the static values, not only the models' arithmetic. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "st_files.h"
#include "core/error.h"
#include "data/exog_data.h"
#include "io/model_file.h"
#include "io/safetensors.h"
#include "train/forecaster.h"

#define DIR FC_SOURCE_DIR "/tests/fixtures/exog/"

/* The history extended by the future file's values of the model's future columns. */
static fc_dataset *history_with_future(const fc_model_config *c) {
    fc_dataset *hist = NULL, *futr = NULL, *ext = NULL;
    CHECK_MSG(fc_dataset_load_csv(DIR "history.csv", NULL, &hist) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(fc_dataset_load_csv(DIR "future.csv", &(fc_load_options){.y_optional = 1, .keep_gaps = 1}, &futr) ==
                  FC_OK, "%s", fc_last_error());
    const char *names[FC_MAX_EXOG];
    size_t hc[FC_MAX_EXOG], fcols[FC_MAX_EXOG], n = (size_t)c->futr_exog.n;
    fc_exog_list_names(&c->futr_exog, names);
    if (hist && futr) {
        CHECK(fc_exog_columns(hist, names, n, "--futr-exog", hc) == FC_OK);
        CHECK(fc_exog_columns(futr, names, n, "--futr-exog", fcols) == FC_OK);
        CHECK_MSG(fc_futr_extend(hist, futr, hc, fcols, n, c->h, &ext) == FC_OK, "%s", fc_last_error());
    }
    if (ext) CHECK_MSG(fc_dataset_attach_static(ext, DIR "static.csv") == FC_OK, "%s", fc_last_error());
    fc_dataset_free(&hist);
    fc_dataset_free(&futr);
    return ext;
}

static void check_case(const char *file) {
    char path[512];
    snprintf(path, sizeof path, DIR "%s", file);
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
    st_load_trainable(fo.model, f);
    fc_dataset *ext = history_with_future(&cfg);
    size_t N = ext ? ext->n_series : 0, H = cfg.h;
    float *fc = malloc((N ? N : 1) * H * sizeof(float));
    CHECK_MSG(ext && fc_predict_before(&fo, ext, H, fc) == FC_OK, "%s", fc_last_error());
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
    check_case("predict_nhits.safetensors");
    check_case("predict_nbeatsx.safetensors");
    check_case("predict_mlp.safetensors");
    return CHECK_DONE();
}
