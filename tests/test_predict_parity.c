/* End-to-end prediction parity: NeuralForecast.fit/predict on a 2-series
 * monthly history (tests/fixtures/predict_history.csv) against fcast's
 * fc_predict with the same weights and the standard scaler, including the
 * future ds written to the forecast CSV. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "st_files.h"
#include "core/error.h"
#include "data/dataset.h"
#include "io/forecast_csv.h"
#include "train/model_file.h"
#include "io/safetensors.h"
#include "train/forecaster.h"

/* The ds column of the forecast CSV, row by row, against the reference. */
static void check_forecast_ds(const char *csv, json_t *want) {
    FILE *fp = fopen(csv, "r");
    char line[256];
    CHECK(fp && fgets(line, sizeof line, fp) && !strcmp(line, "unique_id,ds,NHITS\n"));
    for (size_t s = 0; fp && s < json_array_size(want); s++) {
        json_t *row = json_array_get(want, s);
        for (size_t k = 0; k < json_array_size(row); k++) {
            CHECK(fgets(line, sizeof line, fp) != NULL);
            char *ds = strchr(line, ',') + 1;
            CHECK_MSG(!strncmp(ds, json_string_value(json_array_get(row, k)), 10), "ds %s", ds);
        }
    }
    if (fp) fclose(fp);
}

int main(void) {
    fc_safetensors *f = NULL;
    CHECK_MSG(fc_st_read(FC_SOURCE_DIR "/tests/fixtures/predict_nhits.safetensors", &f) == FC_OK, "%s", fc_last_error());
    if (!f) return CHECK_DONE();
    fc_forecaster fo = {0};
    fc_model_config cfg;
    fc_backend *be = NULL;
    fc_dataset *ds = NULL;
    CHECK(fc_model_config_from_json(fc_st_meta(f, "config"), "fixture", &cfg) == FC_OK);
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    CHECK(fc_model_create(&cfg, be, &fo.model) == FC_OK);
    fo.scaler = FC_SCALER_STANDARD;
    st_load_state_dict(fo.model, f);
    CHECK_MSG(fc_dataset_load_csv(FC_SOURCE_DIR "/tests/fixtures/predict_history.csv", NULL, &ds) == FC_OK, "%s",
              fc_last_error());
    CHECK(!strcmp(ds->freq.name, fc_st_meta(f, "freq")));
    size_t N = ds->n_series, H = cfg.h;
    float *fc = malloc(N * H * sizeof(float));
    CHECK(fc_predict(&fo, ds, fc) == FC_OK);
    const float *ref;
    int64_t shape[2] = {(int64_t)N, (int64_t)H};
    CHECK(fc_st_get_f32(f, "forecast", 2, shape, &ref) == FC_OK);
    for (size_t i = 0; i < N * H; i++) CHECK_CLOSE(fc[i], ref[i], 1e-4, 1e-5);
    const char *out = "/tmp/fcast_test_predict_parity.csv";
    CHECK(fc_forecast_write_csv(out, ds, &ds->freq, H, "NHITS", fc) == FC_OK);
    json_t *want = json_loads(fc_st_meta(f, "forecast_ds"), 0, NULL);
    check_forecast_ds(out, want);
    json_decref(want);
    remove(out);
    free(fc);
    fc_dataset_free(&ds);
    fc_forecaster_free(&fo);
    fc_backend_destroy(&be);
    fc_st_free(&f);
    return CHECK_DONE();
}
