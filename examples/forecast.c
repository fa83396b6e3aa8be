/* examples/forecast.c: fcast as a library, from data to forecasts.
 *
 * The first program to read when using libfcast (docs/c-api.md has the
 * whole API). It
 *   1. reads a long-format CSV file (unique_id, ds, y),
 *   2. configures an N-HiTS model: forecasts of 12 steps from the last 24,
 *   3. trains it, printing the loss every 10 steps,
 *   4. forecasts the 12 steps after the end of every series,
 *   5. saves the model, loads it back and checks that the loaded model
 *      forecasts the same values,
 *   6. forecasts a small panel made from C arrays with the same model.
 *
 * Build and run it against an installed fcast (README: "Install as a
 * library"):
 *
 *   cc -std=c11 -Wall -Wextra -o forecast examples/forecast.c $(pkg-config --cflags --libs fcast)
 *   ./forecast data/monthly_classics.csv model.safetensors
 *
 * Every fcast call that can fail returns an fc_status: FC_OK, or the kind
 * of failure, with fc_last_error() saying what failed and on which input.
 * The program exits with 0 on success, 1 when a call fails and 2 on bad
 * arguments. */
#include <fcast.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reports a failed call: the message fcast left for this thread. */
static void failed(const char *what) {
    fprintf(stderr, "forecast: %s failed (%s): %s\n", what, fc_status_name(fc_last_status()), fc_last_error());
}

/* fcast_train calls this after every step; `user` is the pointer given to
 * fcast_train, here a count of the calls. */
static void on_step(void *user, size_t step, size_t max_steps, double train_loss) {
    size_t *calls = user;
    ++*calls;
    if (step % 10 == 0 || step == max_steps) printf("step %3zu/%zu  loss %.6f\n", step, max_steps, train_loss);
}

/* Days from 1970-01-01 to year-month-day (proleptic Gregorian calendar):
 * dates are given to fcast as seconds since 1970-01-01T00:00:00. */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: %s DATA.csv [MODEL.safetensors]\n", argv[0]);
        return 2;
    }
    const char *data_path = argv[1];
    const char *model_path = argc > 2 ? argv[2] : "forecast-example.safetensors";

    /* Every handle starts NULL; on any failure the program jumps to `done`,
     * which frees whatever was made. */
    int rc = 1;
    fcast_data *data = NULL, *panel = NULL;
    fcast_config *config = NULL;
    fcast_model *model = NULL, *loaded = NULL;
    float *forecasts = NULL, *again = NULL, *panel_forecasts = NULL;

    /* The library loaded at run time must speak the API this program was
     * compiled against (FCAST_API_VERSION, from fcast.h). */
    if (fcast_api_version() != FCAST_API_VERSION) {
        fprintf(stderr, "forecast: libfcast %s has API version %d, this program needs %d\n", fc_version(),
                fcast_api_version(), FCAST_API_VERSION);
        return 1;
    }
    printf("libfcast %s (API version %d)\n", fc_version(), fcast_api_version());

    /* 1. The data: one row per point, series in any order. */
    if (fcast_data_read_csv(data_path, &data) != FC_OK) { failed("reading the data"); goto done; }
    size_t n_series = fcast_data_n_series(data);
    printf("read %zu series from %s\n", n_series, data_path);

    /* 2. The model: N-HiTS, horizon 12, input window 24, at
     * neuralforecast's defaults but for two settings, given by the names
     * and in the text of `fcast train`'s flags (docs/training.md). */
    if (fcast_config_new("nhits", 12, 24, &config) != FC_OK) { failed("configuring N-HiTS"); goto done; }
    if (fcast_config_set(config, "max-steps", "50") != FC_OK) { failed("setting max-steps"); goto done; }
    if (fcast_config_set(config, "scaler", "robust") != FC_OK) { failed("setting the scaler"); goto done; }

    /* 3. Training. The cancel flag (NULL here) lets another thread or a
     * signal handler stop a long run and keep the model trained so far. */
    size_t calls = 0;
    if (fcast_train(config, data, on_step, &calls, NULL, &model) != FC_OK) { failed("training"); goto done; }
    size_t h = fcast_model_h(model), outputs = fcast_model_outputs(model);
    printf("trained in %zu steps: %zu steps ahead, %zu output(s) per step\n", calls, h, outputs);

    /* 4. Forecasts into the caller's buffer: (series, step, output),
     * row-major, series in the order of fcast_data_id. */
    size_t count = n_series * h * outputs;
    forecasts = malloc(count * sizeof *forecasts);
    again = malloc(count * sizeof *again);
    if (!forecasts || !again) { fprintf(stderr, "forecast: out of memory\n"); goto done; }
    if (fcast_predict(model, data, forecasts, count) != FC_OK) { failed("forecasting"); goto done; }
    printf("forecasts of %s:\n", fcast_data_id(data, 0));
    for (size_t t = 0; t < h; t++)   /* the first series, its first output */
        printf("%s\t+%zu\t%.9g\n", fcast_data_id(data, 0), t + 1, (double)forecasts[t * outputs]);

    /* 5. A model file (safetensors, the file `fcast train --out` writes and
     * `fcast predict --model` reads), loaded back: the same forecasts. */
    if (fcast_model_save(model, model_path) != FC_OK) { failed("saving the model"); goto done; }
    printf("saved the model to %s\n", model_path);
    if (fcast_model_load(model_path, &loaded) != FC_OK) { failed("loading the model"); goto done; }
    if (fcast_predict(loaded, data, again, count) != FC_OK) { failed("forecasting with the loaded model"); goto done; }
    if (memcmp(forecasts, again, count * sizeof *forecasts) != 0) {
        fprintf(stderr, "forecast: the loaded model forecasts differently from the saved one\n");
        goto done;
    }
    printf("the loaded model forecasts the same %zu values\n", count);

    /* 6. A panel from arrays (the grouped layout): two monthly series of
     * 36 points, series i at y[indptr[i] .. indptr[i+1]), its dates in ds
     * as seconds since 1970, every month from January 2020. fcast copies
     * the arrays. */
    enum { N_PANEL = 2, LEN = 36 };
    static const double season[12] = {0, 4, 9, 12, 10, 6, 2, -3, -7, -9, -6, -2};
    const char *ids[N_PANEL] = {"shop_a", "shop_b"};
    int64_t indptr[N_PANEL + 1] = {0, LEN, 2 * LEN};
    double y[N_PANEL * LEN];
    int64_t ds[N_PANEL * LEN];
    for (int i = 0; i < N_PANEL; i++)
        for (int t = 0; t < LEN; t++) {
            y[i * LEN + t] = (i ? 500.0 : 200.0) + 2.0 * t + (i ? 3.0 : 1.0) * season[t % 12];
            ds[i * LEN + t] = 86400 * days_from_civil(2020 + t / 12, 1 + t % 12, 1);
        }
    if (fcast_data_from_arrays(N_PANEL, ids, indptr, y, ds, FCAST_DS_DATE, "MS", &panel) != FC_OK) {
        failed("making the panel");
        goto done;
    }
    size_t panel_count = fcast_data_n_series(panel) * h * outputs;
    panel_forecasts = malloc(panel_count * sizeof *panel_forecasts);
    if (!panel_forecasts) { fprintf(stderr, "forecast: out of memory\n"); goto done; }
    if (fcast_predict(model, panel, panel_forecasts, panel_count) != FC_OK) { failed("forecasting the panel"); goto done; }
    for (size_t i = 0; i < fcast_data_n_series(panel); i++) {
        printf("%s:", fcast_data_id(panel, i));
        for (size_t t = 0; t < h; t++) printf(" %.1f", (double)panel_forecasts[(i * h + t) * outputs]);
        printf("\n");
    }
    rc = 0;

done:   /* frees what was made: handles still NULL were never made */
    free(panel_forecasts);
    free(again);
    free(forecasts);
    if (loaded) fcast_model_free(loaded);
    if (model) fcast_model_free(model);
    if (config) fcast_config_free(config);
    if (panel) fcast_data_free(panel);
    if (data) fcast_data_free(data);
    return rc;
}
