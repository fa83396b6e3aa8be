/* fcast bench train: how close training comes to the machine's limit,
 * through the library (fcast_bench_train): per precision the dense-layer
 * peak, the default N-HiTS trained (windows/s, achieved GFLOP/s, share of
 * the peak, validation MAE) and, with --vs-torch, PyTorch eager's windows/s
 * beside it. Figures, not pass/fail: timings on a shared machine are
 * noisy, so compare ratios taken in the same run. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "cli.h"
#include "device_choice.h"

static const char *SUMMARY =
    "Benchmark training: dense-layer peak per precision, then the default N-HiTS (h=48, input 96,\n"
    "1024 windows per step) trained in each precision on the bundled data; --vs-torch runs\n"
    "python/bench_torch.py (PyTorch eager, same architecture, threads and batch) for the ratios.";

/* Which kernels run bf16 here: the bf16 run's, when there is one. */
static const char *bf16_path_note(const fcast_bench_report *r) {
    int bf16 = 0;
    for (size_t i = 0; i < r->n_runs; i++) {
        if (strcmp(r->runs[i].precision, "bf16")) continue;
        bf16 = 1;
        if (!strcmp(r->runs[i].kernel, "fcast AVX512-BF16"))
            return r->amx_capped ? "; bf16 on fcast's AVX512-BF16 kernels (oneDNN cannot use AMX here)"
                                 : "; bf16 on fcast's AVX512-BF16 kernels";
        if (!strcmp(r->runs[i].kernel, "oneDNN fp32 on bf16 values"))   /* no 16-bit kernel, or none faster */
            return "; bf16 carried in fp32 (no 16-bit kernel beats fp32 on this CPU: fp32 products of bf16-rounded values)";
    }
    if (!bf16) return "";
    if (r->bf16_on_fcast_amx)
        return r->amx_capped ? "; bf16 on fcast's AMX kernels (oneDNN cannot use AMX here)"
                             : "; bf16 on fcast's AMX kernels";
    return r->amx_capped ? "; bf16 on oneDNN, capped below AMX" : "; bf16 on oneDNN";
}

static void print_ratios(const fcast_bench_report *r) {
    const fcast_bench_run *fp32 = &r->runs[0];
    if (strcmp(fp32->precision, "fp32")) return;
    for (size_t i = 1; i < r->n_runs; i++) {
        printf("%s vs fp32 in fcast: %.2fx windows/s, val MAE %+.2f%%", r->runs[i].precision,
               r->runs[i].windows_per_second / fp32->windows_per_second, 100.0 * (r->runs[i].val_mae / fp32->val_mae - 1));
        if (fp32->torch_ok) printf("; vs PyTorch fp32: %.2fx", r->runs[i].windows_per_second / fp32->torch_windows_per_second);
        printf("\n");
    }
}

/* Where a step's time goes, per precision: milliseconds per phase (the
 * step's own phases: validation and checkpoints are not per step). */
static void print_phases(const fcast_bench_report *r) {
    size_t step_phases = 0;
    while (step_phases < FCAST_PHASES && strcmp(fcast_phase_name(step_phases), "validation")) step_phases++;
    printf("ms per step:");
    for (size_t p = 0; p < step_phases; p++) printf(" %9s", fcast_phase_name(p));
    printf("\n");
    for (size_t i = 0; i < r->n_runs; i++) {
        printf("  %-9s ", r->runs[i].precision);
        for (size_t p = 0; p < step_phases; p++) printf(" %9.2f", 1e3 * r->runs[i].phase_seconds[p]);
        printf("\n");
    }
}

static void print_table(const fcast_bench_request *a, const fcast_bench_report *r) {
    printf("fcast bench train: N-HiTS h=48 input=96, %zu windows/step, device %s", a->windows_batch_size, r->device);
    if (r->gpu) printf("\n");
    else printf(", %d threads%s\n", r->threads, bf16_path_note(r));
    printf("%-6s %-17s %12s %12s %10s %8s %12s", "prec", "kernel", "peak GFLOP/s", "windows/s", "GFLOP/s", "% peak",
           "val MAE");
    int any_torch = 0;
    for (size_t i = 0; i < r->n_runs; i++) any_torch |= r->runs[i].torch_ok;
    if (any_torch) printf(" %14s %8s", "torch win/s", "ratio");
    printf("\n");
    for (size_t i = 0; i < r->n_runs; i++) {
        const fcast_bench_run *x = &r->runs[i];
        printf("%-6s %-17s %12.1f %12.0f %10.1f %7.1f%% %12.2f", x->precision, x->kernel, x->peak_gflops,
               x->windows_per_second, x->gflops, 100.0 * x->gflops / x->peak_gflops, x->val_mae);
        if (x->torch_ok) printf(" %14.0f %7.2fx", x->torch_windows_per_second, x->windows_per_second / x->torch_windows_per_second);
        printf("\n");
    }
    print_phases(r);
    print_ratios(r);
}

static void print_json(const fcast_bench_report *r) {
    json_t *j = json_object(), *arr = json_array();
    json_object_set_new(j, "device", json_string(r->device));
    json_object_set_new(j, "threads", json_integer(r->threads));
    if (!r->gpu) {   /* facts of the CPU's kernels, which a GPU run does not use */
        json_object_set_new(j, "amx_capped", json_boolean(r->amx_capped));
        json_object_set_new(j, "bf16_on_fcast_amx", json_boolean(r->bf16_on_fcast_amx));
    }
    for (size_t i = 0; i < r->n_runs; i++) {
        const fcast_bench_run *x = &r->runs[i];
        json_t *o = json_object();
        json_object_set_new(o, "precision", json_string(x->precision));
        json_object_set_new(o, "kernel", json_string(x->kernel));
        json_object_set_new(o, "peak_gflops", json_real(x->peak_gflops));
        json_object_set_new(o, "windows_per_second", json_real(x->windows_per_second));
        json_object_set_new(o, "gflops", json_real(x->gflops));
        json_object_set_new(o, "val_mae", json_real(x->val_mae));
        json_t *phases = json_object();
        for (size_t p = 0; p < FCAST_PHASES; p++)
            json_object_set_new(phases, fcast_phase_name(p), json_real(x->phase_seconds[p]));
        json_object_set_new(o, "phase_seconds_per_step", phases);
        if (x->torch_ok) {
            json_object_set_new(o, "torch_windows_per_second", json_real(x->torch_windows_per_second));
            json_object_set_new(o, "torch_device", json_string(x->torch_device));
        }
        json_array_append_new(arr, o);
    }
    json_object_set_new(j, "runs", arr);
    cli_print_json_line(j);
}

int cmd_bench(int argc, char **argv, int first) {
    if (first < argc && !strcmp(argv[first], "fit")) return cmd_bench_fit(argc, argv, first + 1);
    if (first >= argc || strcmp(argv[first], "train") != 0) {
        fprintf(stderr, "usage: fcast bench train|fit [options]   (fcast bench train --help, fcast bench fit --help)\n");
        return 2;
    }
    fcast_bench_request a;
    fcast_bench_defaults(&a);
    a.verbose = 1;
    int json = 0;
    arg_spec specs[] = {
        {"data", ARG_IN, &a.data, "FILE", "training data (data/taylor_halfhourly.csv)", 0, 0},
        {"steps", ARG_SIZE, &a.steps, "N", "timed training steps per precision (100)", 0, 0},
        {"warmup", ARG_SIZE, &a.warmup, "N", "untimed steps first (5)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"windows-batch-size", ARG_SIZE, &a.windows_batch_size, "N", "windows per step (1024)", 0, 0},
        {"precisions", ARG_STR, &a.precisions, "LIST",
         "comma list of fp32, bf16, fp16 (fp32,bf16 on the CPU; fp32,bf16,fp16 on a GPU)", 0, 0},
        {"vs-torch", ARG_FLAG, &a.vs_torch, NULL,
         "also run PyTorch eager (python/bench_torch.py; on a GPU, on it with autocast)", 0, 0},
        {"python", ARG_STR, &a.python, "EXE", "Python for --vs-torch (python3)", 0, 0},
        {"torch-script", ARG_IN, &a.torch_script, "FILE", "the PyTorch side (python/bench_torch.py)", 0, 0},
        {"json", ARG_FLAG, &json, NULL, "also print the figures as one JSON line", 0, 0},
        {NULL, 0, NULL, NULL, NULL, 0, 0},
    };
    int rc = args_parse("bench train", SUMMARY, specs, argc, argv, first + 1);
    if (rc) return args_exit(rc);
    fcast_bench_report r;
    if (fcast_bench_train(&a, &r) != FC_OK) return cli_fail("bench train");
    print_table(&a, &r);
    if (json) print_json(&r);
    return CLI_EXIT_OK;
}
