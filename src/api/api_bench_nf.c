/* The neuralforecast side of fcast_bench_fit: python/bench_nf_fit_holdout.py
 * reads the same file, holds out the same last h points, fits the same
 * model class with the same settings, steps and threads, forecasts and
 * scores them, and prints its figures as a JSON object on its last line. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "api/api_bench.h"

static double num(json_t *j, const char *key, int *ok) {
    json_t *v = json_object_get(j, key);
    if (!v || !json_is_number(v)) *ok = 0;
    return v ? json_number_value(v) : 0;
}

/* Reads the JSON object on the last line of the script's stdout. */
static int parse_nf_line(const char *line, void *dest) {
    fcast_bench_fit_run *row = dest;
    json_error_t err;
    json_t *j = json_loads(line, 0, &err);
    int ok = j != NULL;
    if (ok) {
        row->nf_load_seconds = num(j, "load_seconds", &ok);
        row->nf_train_seconds = num(j, "fit_seconds", &ok);
        row->nf_predict_seconds = num(j, "predict_seconds", &ok);
        row->nf_mae = num(j, "mae", &ok);
        row->nf_windows_per_second = num(j, "windows_per_second", &ok);
        json_t *v = json_object_get(j, "versions");
        snprintf(row->nf_versions, sizeof row->nf_versions, "%s", json_is_string(v) ? json_string_value(v) : "?");
    }
    json_decref(j);
    return ok;
}

/* The command line: every setting both sides share, so neither runs its own default. */
static int nf_command(const fcast_config *c, const fcast_bench_fit_request *r, const fcast_bench_fit_report *rep,
                      const fcast_bench_fit_run *row, char *cmd, size_t cap) {
    const fc_train_options *o = &c->train;
    return snprintf(cmd, cap,
                    "'%s' '%s' --data '%s' --model %s --h %zu --input-size %zu --steps %zu --threads %d "
                    "--precision %s --freq '%s' --scaler %s --windows-batch-size %zu --batch-size %zu "
                    "--lr %.17g --num-lr-decays %ld --seed %llu --device %s",
                    r->python, r->nf_script, r->data, rep->model, rep->h, rep->input_size, o->max_steps, rep->threads,
                    row->precision, rep->freq, fc_scaler_name(c->scaler), o->windows_batch_size, o->batch_size,
                    o->learning_rate, o->num_lr_decays, (unsigned long long)o->seed, rep->device);
}

void fc_bench_nf_fit(const fcast_config *c, const fcast_bench_fit_request *r, const fcast_bench_fit_report *rep,
                     fcast_bench_fit_run *row) {
    char cmd[2048];
    int len = nf_command(c, r, rep, row, cmd, sizeof cmd);
    if (len < 0 || (size_t)len >= sizeof cmd || strchr(rep->freq, '\'')) {
        if (r->verbose)
            fprintf(stderr, "fcast bench fit: the neuralforecast command line is too long, or the frequency '%s' "
                    "has a quote\n", rep->freq);
        return;
    }
    row->nf_ok = fc_bench_run_script(cmd, r->nf_script, row->precision, r->verbose, parse_nf_line, row);
}
