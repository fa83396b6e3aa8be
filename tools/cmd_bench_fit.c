/* fcast bench fit: whole fits on a panel file through the library
 * (fcast_bench_fit), one per precision, with the last h points of every
 * series held out and scored; with --vs-neuralforecast, neuralforecast's
 * fit of the same configuration beside each, and the ratios. Takes every
 * flag of `fcast train` (the model, its settings, threads, device). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "train_flags.h"

static const char *SUMMARY =
    "Benchmark whole fits: read a panel file, train with the last h points of every series held out,\n"
    "forecast and score them (MAE), once per precision; --vs-neuralforecast runs neuralforecast's fit on\n"
    "the same file, configuration, steps and threads beside each (python/bench_nf_fit_holdout.py).";

/* The defaults when no data is named: the bundled monthly panel, N-HiTS, h 12, input 24. */
static void default_flags(train_flags *t, arg_spec *specs) {
    const char *names[] = {"data", "model", "h", "input-size"};
    for (size_t i = 0; i < 4; i++) args_find(specs, names[i], strlen(names[i]))->required = 0;
    args_find(specs, "data", 4)->help = "a long CSV: unique_id, ds, y (data/monthly_classics.csv)";
    args_find(specs, "model", 5)->help = "nhits | nbeats | mlp | nbeatsx | lstm | tide (nhits)";
    args_find(specs, "h", 1)->help = "forecast horizon, and the points held out per series (12)";
    args_find(specs, "input-size", 10)->help = "input window length (24)";
    args_find(specs, "precision", 9)->help = "not used: --precisions names the runs";
    args_find(specs, "out", 3)->help = "not used: the bench writes no model";
    t->data = "data/monthly_classics.csv";
    t->model = "nhits";
    t->h = 12;
    t->input_size = 24;
}

static void print_runs(const fcast_bench_fit_report *r) {
    printf("fcast bench fit: %s h=%zu input=%zu, %zu steps x %zu windows, %zu series (%zu points, freq %s), "
           "%zu points held out; device %s, %d threads\n",
           r->model, r->h, r->input_size, r->steps, r->windows_batch_size, r->n_series, r->n_points, r->freq,
           r->held_out, r->device, r->threads);
    printf("%-5s %-17s %8s %8s %8s %11s %12s\n", "prec", "kernel", "read s", "train s", "pred s", "windows/s",
           "MAE");
    for (size_t i = 0; i < r->n_runs; i++) {
        const fcast_bench_fit_run *x = &r->runs[i];
        printf("%-5s %-17s %8.2f %8.2f %8.2f %11.0f %12.4f\n", x->precision, x->kernel, x->load_seconds,
               x->train_seconds, x->predict_seconds, x->windows_per_second, x->mae);
        if (x->nf_ok)
            printf("%-5s %-17s %8.2f %8.2f %8.2f %11.0f %12.4f\n", "", "neuralforecast", x->nf_load_seconds,
                   x->nf_train_seconds, x->nf_predict_seconds, x->nf_windows_per_second, x->nf_mae);
    }
}

/* Seconds a user waits for, read + train + predict, on each side. */
static double fcast_wall(const fcast_bench_fit_run *x) { return x->load_seconds + x->train_seconds + x->predict_seconds; }
static double nf_wall(const fcast_bench_fit_run *x) { return x->nf_load_seconds + x->nf_train_seconds + x->nf_predict_seconds; }

static void print_ratios(const fcast_bench_fit_report *r) {
    const fcast_bench_fit_run *fp32 = r->n_runs && !strcmp(r->runs[0].precision, "fp32") ? &r->runs[0] : NULL;
    for (size_t i = 0; i < r->n_runs; i++) {
        const fcast_bench_fit_run *x = &r->runs[i];
        printf("%s:", x->precision);
        if (fp32 && x != fp32) printf(" %.2fx fcast fp32's windows/s;", x->windows_per_second / fp32->windows_per_second);
        if (x->nf_ok)
            printf(" vs neuralforecast %s: train %.2fx, read+train+predict %.2fx, MAE %+.2f%%", x->precision,
                   x->nf_train_seconds / x->train_seconds, nf_wall(x) / fcast_wall(x), 100.0 * (x->mae / x->nf_mae - 1));
        if (fp32 && x != fp32 && fp32->nf_ok)   /* what a user of neuralforecast's default precision gains */
            printf("; vs neuralforecast fp32: train %.2fx, read+train+predict %.2fx", fp32->nf_train_seconds / x->train_seconds,
                   nf_wall(fp32) / fcast_wall(x));
        printf("\n");
    }
    for (size_t i = 0; i < r->n_runs; i++)
        if (r->runs[i].nf_ok) {
            printf("(%s)\n", r->runs[i].nf_versions);
            break;
    }
}

/* Where each fit's time went, in seconds per phase. */
static void print_phases(const fcast_bench_fit_report *r) {
    printf("train s by phase:");
    for (size_t p = 0; p < FCAST_PHASES; p++) printf(" %9s", fcast_phase_name(p));
    printf("\n");
    for (size_t i = 0; i < r->n_runs; i++) {
        printf("  %-15s", r->runs[i].precision);
        for (size_t p = 0; p < FCAST_PHASES; p++) printf(" %9.3f", r->runs[i].phase_seconds[p]);
        printf("\n");
    }
}

static void print_json(const fcast_bench_fit_report *r) {
    json_t *j = json_pack("{s:s, s:i, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "device", r->device, "threads",
                          r->threads, "model", r->model, "freq", r->freq, "n_series", (json_int_t)r->n_series,
                          "n_points", (json_int_t)r->n_points, "h", (json_int_t)r->h, "input_size",
                          (json_int_t)r->input_size, "steps", (json_int_t)r->steps, "windows_batch_size",
                          (json_int_t)r->windows_batch_size, "held_out", (json_int_t)r->held_out);
    json_t *runs = json_array();
    for (size_t i = 0; i < r->n_runs; i++) {
        const fcast_bench_fit_run *x = &r->runs[i];
        json_t *o = json_pack("{s:s, s:s, s:f, s:f, s:f, s:f, s:f}", "precision", x->precision, "kernel", x->kernel,
                              "load_seconds", x->load_seconds, "train_seconds", x->train_seconds, "predict_seconds",
                              x->predict_seconds, "windows_per_second", x->windows_per_second, "mae", x->mae);
        if (x->nf_ok)
            json_object_set_new(o, "neuralforecast",
                                json_pack("{s:f, s:f, s:f, s:f, s:f, s:s}", "load_seconds", x->nf_load_seconds,
                                          "train_seconds", x->nf_train_seconds, "predict_seconds",
                                          x->nf_predict_seconds, "windows_per_second", x->nf_windows_per_second,
                                          "mae", x->nf_mae, "versions", x->nf_versions));
        json_array_append_new(runs, o);
    }
    json_object_set_new(j, "runs", runs);
    cli_print_json_line(j);
}

/* The table's train flags alone (the bench's own are no configuration
 * keys), without --out and --precision: the bench writes no model, and
 * names its precisions itself. */
static void train_part(const arg_spec *specs, size_t n_train, arg_spec out[FC_TRAIN_MAX_SPECS]) {
    memcpy(out, specs, FC_TRAIN_MAX_SPECS * sizeof *out);
    memset(out + n_train, 0, sizeof *out);
    for (arg_spec *s = out; s->name; s++)
        if (!strcmp(s->name, "out") || !strcmp(s->name, "precision")) s->seen = 0;
}

int cmd_bench_fit(int argc, char **argv, int first) {
    train_flags t;
    arg_spec specs[FC_TRAIN_MAX_SPECS];
    train_flags_init(&t, specs, 0);
    default_flags(&t, specs);
    fcast_bench_fit_request q;
    fcast_bench_fit_defaults(&q);
    int json = 0;
    arg_spec extra[] = {
        {"precisions", ARG_STR, &q.precisions, "LIST",
         "comma list of fp32, bf16, fp16 (fp32,bf16 on the CPU; fp32,bf16,fp16 on a GPU)", 0, 0},
        {"vs-neuralforecast", ARG_FLAG, &q.vs_neuralforecast, NULL,
         "also run neuralforecast's fit and predict on the same file and settings", 0, 0},
        {"python", ARG_STR, &q.python, "EXE", "Python for --vs-neuralforecast (python3)", 0, 0},
        {"nf-script", ARG_IN, &q.nf_script, "FILE", "the neuralforecast side (python/bench_nf_fit_holdout.py)", 0, 0},
        {"json", ARG_FLAG, &json, NULL, "also print the figures as one JSON line", 0, 0},
    };
    size_t n_train = 0;
    while (specs[n_train].name) n_train++;
    args_append(specs, FC_TRAIN_MAX_SPECS, extra, sizeof extra / sizeof *extra);
    int rc = args_parse("bench fit", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    arg_spec train[FC_TRAIN_MAX_SPECS];
    train_part(specs, n_train, train);
    fcast_config *c = NULL;
    if ((rc = train_flags_config("bench fit", &t, train, NULL, &c))) return rc;
    q.data = t.data;
    q.verbose = !t.quiet;
    fcast_bench_fit_report r;
    fc_status st = fcast_bench_fit(c, &q, &r);
    fcast_config_free(c);
    if (st != FC_OK) return cli_fail("bench fit");
    print_runs(&r);
    print_phases(&r);
    print_ratios(&r);
    if (json) print_json(&r);
    return CLI_EXIT_OK;
}
