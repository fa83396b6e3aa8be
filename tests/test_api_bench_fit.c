/* fcast_bench_fit (`fcast bench fit` through the library), by public names
 * only:
 *
 *   1. its fit is cross-validation's single origin: the MAE it reports is
 *      the one computed here from fcast_cross_validate's forecasts and
 *      actual values (same configuration, one window of h), and its
 *      figures are positive and consistent;
 *   2. the neuralforecast side gets every shared setting on its command
 *      line and its JSON is read (a stand-in script that checks its
 *      arguments); a side that fails is no error, only nf_ok 0;
 *   3. refusals: auto windows per step, a bad precisions list, a missing
 *      file, a horizon no series is longer than. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fcast.h"

#define DATA "data/monthly_classics.csv"

static fcast_config *config(size_t h, const char *steps) {
    fcast_config *c = NULL;
    CHECK(fcast_config_new("nhits", h, 24, &c) == FC_OK);
    const char *kv[][2] = {{"max-steps", steps}, {"windows-batch-size", "64"}, {"threads", "1"}, {"device", "cpu"},
                           {"scaler", "standard"}, {"verbose", "off"}};
    for (size_t i = 0; c && i < sizeof kv / sizeof *kv; i++)
        CHECK_MSG(fcast_config_set(c, kv[i][0], kv[i][1]) == FC_OK, "%s: %s", kv[i][0], fc_last_error());
    return c;
}

static fcast_bench_fit_request request(void) {
    fcast_bench_fit_request r;
    fcast_bench_fit_defaults(&r);
    r.data = DATA;
    r.precisions = "fp32";
    return r;
}

/* MAE of fcast_cross_validate's forecasts over the observed points of its one window of h. */
static double cv_mae(const fcast_config *c, size_t h, size_t *points) {
    fcast_data *d = NULL;
    fcast_cv *cv = NULL;
    double sum = 0;
    *points = 0;
    CHECK_MSG(fcast_data_read_csv(DATA, &d) == FC_OK, "%s", fc_last_error());
    CHECK_MSG(d && fcast_cross_validate(c, d, 1, h, 0, NULL, NULL, NULL, &cv) == FC_OK, "%s", fc_last_error());
    size_t rows = fcast_cv_rows(cv);
    double *y = malloc(rows * sizeof *y);
    float *f = malloc(rows * sizeof *f);
    if (cv && y && f && fcast_cv_read(cv, NULL, NULL, NULL, y, f, rows) == FC_OK)
        for (size_t i = 0; i < rows; i++)
            if (!isnan(y[i])) {
                sum += fabs((double)f[i] - y[i]);
                (*points)++;
            }
    free(y);
    free(f);
    fcast_cv_free(cv);
    fcast_data_free(d);
    return *points ? sum / (double)*points : NAN;
}

static void fit_is_cross_validation(void) {
    fcast_config *c = config(12, "5");
    fcast_bench_fit_request r = request();
    fcast_bench_fit_report b;
    CHECK_MSG(fcast_bench_fit(c, &r, &b) == FC_OK, "%s", fc_last_error());
    CHECK(!strcmp(b.device, "cpu") && b.threads == 1 && b.n_runs == 1 && !strcmp(b.model, "nhits"));
    CHECK(b.n_series == 4 && b.n_points == 1036 && b.h == 12 && b.input_size == 24 && b.steps == 5);
    CHECK(b.windows_batch_size == 64 && b.held_out == 48 && !strcmp(b.freq, "MS"));
    const fcast_bench_fit_run *x = &b.runs[0];
    CHECK(!strcmp(x->precision, "fp32") && !strcmp(x->kernel, "oneDNN") && !x->nf_ok);
    CHECK(x->load_seconds > 0 && x->train_seconds > 0 && x->predict_seconds > 0);
    CHECK_CLOSE(x->windows_per_second, 5.0 * 64 / x->train_seconds, 1e-9, 1e-9);
    double phases = 0;
    for (size_t p = 0; p < FCAST_PHASES; p++) phases += x->phase_seconds[p];
    CHECK_MSG(phases > 0 && phases <= x->train_seconds, "phases %g s of a %g s fit", phases, x->train_seconds);
    size_t points = 0;
    double want = cv_mae(c, 12, &points);
    CHECK(points == 48);
    CHECK_MSG(fabs(x->mae - want) <= 1e-9 * want, "bench MAE %.12g, cross-validation's %.12g", x->mae, want);
    fcast_config_free(c);
}

/* A stand-in for python/bench_nf_fit_holdout.py: fails unless every
 * shared setting is on its command line, then prints a line for a person
 * and the JSON line. */
static const char *STAND_IN =
    "import json, sys\n"
    "want = ['--data', 'data/monthly_classics.csv', '--model', 'nhits', '--h', '12', '--input-size', '24',\n"
    "        '--steps', '2', '--threads', '1', '--precision', 'fp32', '--freq', 'MS', '--scaler', 'standard',\n"
    "        '--windows-batch-size', '64', '--batch-size', '32', '--num-lr-decays', '3', '--seed', '1',\n"
    "        '--device', 'cpu']\n"
    "args = sys.argv[1:]\n"
    "pairs = dict(zip(args[::2], args[1::2]))\n"
    "missing = [k for k, v in zip(want[::2], want[1::2]) if pairs.get(k) != v]\n"
    "if missing or float(pairs['--lr']) != 0.001:\n"
    "    sys.exit('stand-in: wrong or missing ' + ' '.join(missing))\n"
    "print('neuralforecast stand-in: fit 2.00 s')\n"
    "print(json.dumps(dict(load_seconds=0.5, fit_seconds=2.0, predict_seconds=0.25, windows_per_second=64.0,\n"
    "                      mae=123.5, points=48, versions='neuralforecast 0.0, torch 0.0')))\n";

static void neuralforecast_side(void) {
    char dir[] = "/tmp/fcast_bench_fit_XXXXXX", ok[256], failing[256];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(ok, sizeof ok, "%s/nf.py", dir);
    snprintf(failing, sizeof failing, "%s/nf_fails.py", dir);
    check_write_text(ok, STAND_IN);
    check_write_text(failing, "import sys\nsys.exit('no neuralforecast here')\n");
    fcast_config *c = config(12, "2");
    fcast_bench_fit_request r = request();
    r.vs_neuralforecast = 1;
    r.nf_script = ok;
    fcast_bench_fit_report b;
    CHECK_MSG(fcast_bench_fit(c, &r, &b) == FC_OK, "%s", fc_last_error());
    const fcast_bench_fit_run *x = &b.runs[0];
    CHECK_MSG(x->nf_ok, "the stand-in did not report (its arguments?)");
    CHECK(x->nf_load_seconds == 0.5 && x->nf_train_seconds == 2.0 && x->nf_predict_seconds == 0.25);
    CHECK(x->nf_windows_per_second == 64.0 && x->nf_mae == 123.5);
    CHECK(!strcmp(x->nf_versions, "neuralforecast 0.0, torch 0.0"));
    r.nf_script = failing;
    CHECK_MSG(fcast_bench_fit(c, &r, &b) == FC_OK, "%s", fc_last_error());
    CHECK(b.n_runs == 1 && !b.runs[0].nf_ok && b.runs[0].train_seconds > 0);
    fcast_config_free(c);
    unlink(ok);
    unlink(failing);
    rmdir(dir);
}

static void refusals(void) {
    fcast_bench_fit_report b;
    fcast_config *c = config(12, "1");
    fcast_bench_fit_request r = request();
    r.precisions = "fp32,fp32";
    CHECK(fcast_bench_fit(c, &r, &b) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "names fp32 twice");
    r = request();
    r.data = "/nonexistent-data.csv";
    CHECK(fcast_bench_fit(c, &r, &b) == FC_ERR_IO);
    CHECK_CONTAINS(fc_last_error(), "/nonexistent-data.csv");
    r = request();
    CHECK(fcast_bench_fit(NULL, &r, &b) == FC_ERR_INVALID);
    CHECK(fcast_bench_fit(c, NULL, &b) == FC_ERR_INVALID);
    CHECK(fcast_config_set(c, "windows-batch-size", "auto") == FC_OK);
    CHECK(fcast_bench_fit(c, &r, &b) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "same windows per step");
    fcast_config_free(c);
    c = config(500, "1");   /* the longest series has 476 points */
    CHECK(fcast_bench_fit(c, &r, &b) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), "no series is longer than h = 500");
    fcast_config_free(c);
}

int main(void) {
    fit_is_cross_validation();
    neuralforecast_side();
    refusals();
    return CHECK_DONE();
}
