/* fcast bench train: how close training comes to the machine's limit.
 *
 * In one run: the dense-layer peak of each precision (the N-HiTS hidden
 * layer, 1024 x 512 by 512 x 512, forward with bias and ReLU fused), then
 * the default N-HiTS (h=48, input 96, 1024 windows per step) trained for a
 * fixed number of steps on the bundled data in each precision, reported as
 * windows/s, achieved GFLOP/s of its matrix products and share of the
 * peak. With --vs-torch, python/bench_torch.py trains the same architecture
 * in PyTorch eager with the same threads and batch (on a GPU: on the GPU,
 * with autocast for bf16 and fp16), and the ratios are printed side by
 * side. Each row says which kernels ran its matrix products. Figures, not
 * pass/fail: timings on a shared machine are noisy, so compare ratios
 * taken in the same run. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "args.h"
#include "backend/cpu/cpu_backend.h"
#include "cli.h"
#include "device_choice.h"
#include "core/error.h"
#include "data/dataset.h"
#include "train/dense_peak.h"
#include "train/forecaster.h"
#include "train/progress.h"

#define BENCH_MAX_PRECISIONS 3

typedef struct {
    const char *data, *precisions, *python, *script, *device;
    size_t steps, warmup, threads, wbs;
    int vs_torch, json;
} bench_args;

typedef struct {
    fc_precision prec;
    const char *kernel;         /* what ran its matrix products: "oneDNN", "fcast AMX", "cuBLASLt" */
    double peak_gflops;         /* dense-layer forward at the hidden shape */
    double windows_per_s, gflops, val_mae, seconds;
    double torch_windows_per_s; /* 0: not measured */
    int torch_ok;
    char torch_device[128];     /* as the script reports it: "cuda:0 (NVIDIA H100 ...)" */
} bench_row;

/* Where the run is: the backend's device, as --device named it. */
typedef struct {
    char name[16];              /* "cpu", "cuda:0" */
    int gpu;                    /* the CUDA backend runs */
    int threads;                /* the backend's CPU threads (1 on a GPU) */
} bench_device;

static const char *SUMMARY =
    "Benchmark training: dense-layer peak per precision, then the default N-HiTS (h=48, input 96,\n"
    "1024 windows per step) trained in each precision on the bundled data; --vs-torch runs\n"
    "python/bench_torch.py (PyTorch eager, same architecture, threads and batch) for the ratios.";

/* ---- fcast training ---- */

static void bench_train_options(const bench_args *a, fc_precision prec, size_t steps, fc_train_options *o) {
    fc_train_options_default(o);
    o->max_steps = steps;
    o->windows_batch_size = a->wbs;
    o->precision = prec;
    o->val_size = 48;               /* one validation at the end: the MAE of each precision */
    o->val_check_steps = steps;
    o->verbose = 0;
}

/* Trains a fresh default N-HiTS; a short warm-up run on the same backend
 * first builds the oneDNN primitives, so the timed run only executes. */
static fc_status bench_train(fc_backend *be, const fc_dataset *ds, const bench_args *a, bench_row *row) {
    fc_model_config cfg;
    fc_model_config_default(&cfg, FC_MODEL_NHITS, 48, 96);
    /* standard scaling keeps the demand (near 30000) inside fp16's range */
    fc_forecaster f = {.scaler = FC_SCALER_STANDARD, .loss = fc_loss_default(FC_LOSS_MAE), .ds_kind = ds->ds_kind, .freq = ds->freq};
    fc_train_options o;
    fc_train_summary s;
    fc_status st = fc_model_create(&cfg, be, &f.model);
    if (st == FC_OK && a->warmup) {
        bench_train_options(a, row->prec, a->warmup, &o);
        o.val_size = 0;
        st = fc_model_init_params(f.model, 1);
        if (st == FC_OK) st = fc_train(&f, ds, &o, &s);
    }
    bench_train_options(a, row->prec, a->steps, &o);
    if (st == FC_OK) st = fc_model_init_params(f.model, 1);
    if (st == FC_OK) st = fc_train(&f, ds, &o, &s);
    if (st == FC_OK) {
        row->windows_per_s = s.windows_per_second;
        row->gflops = fc_model_train_flops_per_window(f.model) * s.windows_per_second * 1e-9;
        row->val_mae = s.best_val_loss;
        row->seconds = s.step_seconds;
    }
    fc_forecaster_free(&f);
    return st;
}

/* ---- PyTorch ---- */

/* Reads the JSON object on the last line of the script's stdout. */
static int parse_torch_line(const char *line, bench_row *row) {
    json_error_t err;
    json_t *j = json_loads(line, 0, &err);
    json_t *v = j ? json_object_get(j, "windows_per_second") : NULL;
    json_t *dev = j ? json_object_get(j, "device") : NULL;
    int ok = v && json_is_number(v);
    if (ok) row->torch_windows_per_s = json_number_value(v);
    snprintf(row->torch_device, sizeof row->torch_device, "%s", json_is_string(dev) ? json_string_value(dev) : "cpu");
    json_decref(j);
    return ok;
}

/* The script's device and threads: on a GPU the GPU fcast runs on, with
 * PyTorch's own CPU threads unless --threads was given (fcast's host work
 * uses all cores there too); on the CPU fcast's thread count. */
static int torch_device_args(const bench_args *a, const bench_device *d, char *buf, size_t cap) {
    if (!d->gpu) return snprintf(buf, cap, "--device cpu --threads %d", d->threads);
    if (a->threads) return snprintf(buf, cap, "--device %s --threads %zu", d->name, a->threads);
    return snprintf(buf, cap, "--device %s", d->name);
}

static void run_torch(const bench_args *a, const bench_device *d, bench_row *row) {
    char cmd[1024], dev[64], line[4096], last[4096] = "";
    /* PyTorch's oneDNN dies on the same unusable AMX; pass our cap on */
    const char *env = !d->gpu && fc_cpu_amx_capped() ? "ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 " : "";
    torch_device_args(a, d, dev, sizeof dev);
    int len = snprintf(cmd, sizeof cmd, "%s'%s' '%s' %s --steps %zu --warmup %zu --batch %zu --precision %s",
             env, a->python, a->script, dev, a->steps, a->warmup ? a->warmup : 1, a->wbs,
             fc_precision_name(row->prec));
    if (len < 0 || (size_t)len >= sizeof cmd) {
        fprintf(stderr, "fcast bench: the PyTorch command line is too long; shorten --python or --torch-script\n");
        return;
    }
    fprintf(stderr, "running: %s\n", cmd);
    FILE *p = popen(cmd, "r");
    if (!p) return;
    while (fgets(line, sizeof line, p))
        if (line[0] == '{') snprintf(last, sizeof last, "%s", line);
    int rc = pclose(p);
    row->torch_ok = rc == 0 && parse_torch_line(last, row);
    if (!row->torch_ok && WIFSIGNALED(rc))
        fprintf(stderr, "fcast bench: %s died of signal %d for %s\n", a->script, WTERMSIG(rc),
                fc_precision_name(row->prec));
    else if (!row->torch_ok)
        fprintf(stderr, "fcast bench: %s failed for %s (exit status %d)\n", a->script,
                fc_precision_name(row->prec), WIFEXITED(rc) ? WEXITSTATUS(rc) : rc);
}

/* ---- report ---- */

/* Which kernels ran a precision's matrix products: cuBLASLt on a GPU; on
 * the CPU oneDNN, or fcast's AMX kernels for bf16 (cpu_isa.c, cpu_amx.c),
 * and fp16 as oneDNN fp32 products of fp16-rounded inputs (oneDNN 2.6 has
 * no fp16 matmul on CPU). */
static const char *kernel_name(const bench_device *d, fc_precision p) {
    if (d->gpu) return "cuBLASLt";
    if (p == FC_PREC_FP16) return "oneDNN fp32";
    if (p == FC_PREC_BF16 && fc_backend_cpu_uses_amx()) return "fcast AMX";
    return "oneDNN";
}

/* Which kernels run bf16 here (cpu_isa.c, cpu_amx.c). */
static const char *bf16_path_note(void) {
    if (fc_backend_cpu_uses_amx())
        return fc_cpu_amx_capped() ? "; bf16 on fcast's AMX kernels (oneDNN cannot use AMX here)"
                                   : "; bf16 on fcast's AMX kernels";
    return fc_cpu_amx_capped() ? "; bf16 on oneDNN, capped below AMX" : "; bf16 on oneDNN";
}

static void print_table(const bench_args *a, const bench_row *rows, int n, const bench_device *d) {
    printf("fcast bench train: N-HiTS h=48 input=96, %zu windows/step, device %s", a->wbs, d->name);
    if (d->gpu) printf("\n");
    else printf(", %d threads%s\n", d->threads, bf16_path_note());
    printf("%-6s %-11s %12s %12s %10s %8s %12s", "prec", "kernel", "peak GFLOP/s", "windows/s", "GFLOP/s", "% peak",
           "val MAE");
    int any_torch = 0;
    for (int i = 0; i < n; i++) any_torch |= rows[i].torch_ok;
    if (any_torch) printf(" %14s %8s", "torch win/s", "ratio");
    printf("\n");
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        printf("%-6s %-11s %12.1f %12.0f %10.1f %7.1f%% %12.2f", fc_precision_name(r->prec), r->kernel,
               r->peak_gflops, r->windows_per_s, r->gflops, 100.0 * r->gflops / r->peak_gflops, r->val_mae);
        if (r->torch_ok) printf(" %14.0f %7.2fx", r->torch_windows_per_s, r->windows_per_s / r->torch_windows_per_s);
        printf("\n");
    }
    for (int i = 0; i < n; i++)
        if (rows[i].prec != FC_PREC_FP32 && rows[0].prec == FC_PREC_FP32) {
            printf("%s vs fp32 in fcast: %.2fx windows/s, val MAE %+.2f%%", fc_precision_name(rows[i].prec),
                   rows[i].windows_per_s / rows[0].windows_per_s, 100.0 * (rows[i].val_mae / rows[0].val_mae - 1));
            if (rows[0].torch_ok)
                printf("; vs PyTorch fp32: %.2fx", rows[i].windows_per_s / rows[0].torch_windows_per_s);
            printf("\n");
        }
}

static void print_json(const bench_row *rows, int n, const bench_device *d) {
    json_t *j = json_object(), *arr = json_array();
    json_object_set_new(j, "device", json_string(d->name));
    json_object_set_new(j, "threads", json_integer(d->threads));
    if (!d->gpu) {   /* facts of the CPU's kernels, which a GPU run does not use */
        json_object_set_new(j, "amx_capped", json_boolean(fc_cpu_amx_capped()));
        json_object_set_new(j, "bf16_on_fcast_amx", json_boolean(fc_backend_cpu_uses_amx()));
    }
    for (int i = 0; i < n; i++) {
        json_t *r = json_object();
        json_object_set_new(r, "precision", json_string(fc_precision_name(rows[i].prec)));
        json_object_set_new(r, "kernel", json_string(rows[i].kernel));
        json_object_set_new(r, "peak_gflops", json_real(rows[i].peak_gflops));
        json_object_set_new(r, "windows_per_second", json_real(rows[i].windows_per_s));
        json_object_set_new(r, "gflops", json_real(rows[i].gflops));
        json_object_set_new(r, "val_mae", json_real(rows[i].val_mae));
        if (rows[i].torch_ok) {
            json_object_set_new(r, "torch_windows_per_second", json_real(rows[i].torch_windows_per_s));
            json_object_set_new(r, "torch_device", json_string(rows[i].torch_device));
        }
        json_array_append_new(arr, r);
    }
    json_object_set_new(j, "runs", arr);
    char *text = json_dumps(j, JSON_COMPACT);
    if (text) printf("%s\n", text);
    free(text);
    json_decref(j);
}

/* "fp32,bf16" -> precisions; at most one of each. */
static fc_status parse_precisions(const char *list, fc_precision *out, int *n) {
    char buf[64];
    snprintf(buf, sizeof buf, "%s", list);
    *n = 0;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == BENCH_MAX_PRECISIONS || fc_precision_parse(tok, &out[*n]))
            return fc_error(FC_ERR_INVALID, "--precisions '%s': expected a comma list of fp32, bf16, fp16", list);
        for (int i = 0; i < *n; i++)
            if (out[i] == out[*n])
                return fc_error(FC_ERR_INVALID, "--precisions '%s' names %s twice", list, tok);
        (*n)++;
    }
    return *n ? FC_OK : fc_error(FC_ERR_INVALID, "--precisions is empty");
}

static fc_status check_bench_args(const bench_args *a) {
    if (a->steps < 1 || a->steps > 100000) return fc_error(FC_ERR_INVALID, "--steps must be between 1 and 100000");
    if (a->warmup > 1000) return fc_error(FC_ERR_INVALID, "--warmup must be at most 1000");
    if (a->wbs < 1 || a->wbs > 65536) return fc_error(FC_ERR_INVALID, "--windows-batch-size must be between 1 and 65536");
    if (a->threads > 1024) return fc_error(FC_ERR_INVALID, "--threads must be at most 1024");
    /* both go into a shell command line between single quotes */
    if (strchr(a->python, '\'') || strchr(a->script, '\''))
        return fc_error(FC_ERR_INVALID, "--python and --torch-script must not contain a single quote");
    return FC_OK;
}

/* The CUDA backend is named "cuda" (host_visible alone would also take the
 * CPU backend under FCAST_TEST_NOT_HOST_VISIBLE); auto runs on GPU 0. */
static void describe_device(const bench_args *a, const fc_backend *be, bench_device *d) {
    fc_device_kind kind;
    int index = -1;
    d->gpu = !strcmp(be->name, "cuda");
    d->threads = be->threads;
    if (fc_device_parse(a->device, &kind, &index) != FC_OK || index < 0) index = 0;
    if (d->gpu) snprintf(d->name, sizeof d->name, "cuda:%d", index);
    else snprintf(d->name, sizeof d->name, "cpu");
}

/* Default: fp32 and bf16 on the CPU (fp16 there is emulated); all three on
 * a GPU, whose tensor cores run bf16 and fp16 alike. */
static const char *default_precisions(const bench_device *d) {
    return d->gpu ? "fp32,bf16,fp16" : "fp32,bf16";
}

static int bench_train_cmd(const bench_args *a) {
    fc_precision precs[BENCH_MAX_PRECISIONS];
    bench_row rows[BENCH_MAX_PRECISIONS] = {0};
    bench_device d = {0};
    int n = 0;
    fc_dataset *ds = NULL;
    fc_backend *be = NULL;
    fc_load_options lo = {.drop_exog = 1};
    fc_status st = check_bench_args(a);
    if (st == FC_OK && a->precisions) st = parse_precisions(a->precisions, precs, &n);   /* a typo fails first */
    if (st == FC_OK) st = device_backend_open(a->device, a->threads, 0, &be);   /* before reading data */
    if (st == FC_OK) describe_device(a, be, &d);
    if (st == FC_OK && !a->precisions) st = parse_precisions(default_precisions(&d), precs, &n);
    if (st == FC_OK) st = fc_dataset_load_csv(a->data, &lo, &ds);
    for (int i = 0; st == FC_OK && i < n; i++) {
        rows[i].prec = precs[i];
        rows[i].kernel = kernel_name(&d, precs[i]);
        fprintf(stderr, "%s: dense-layer peak, then %zu training steps\n", fc_precision_name(precs[i]), a->steps);
        /* the peak is the best of a measurement before and after training:
         * one alone can land in a slow moment of a shared machine */
        double before = 0, after = 0;
        st = fc_dense_peak_gflops(be, precs[i], 5, &before);
        if (st == FC_OK) st = bench_train(be, ds, a, &rows[i]);
        if (st == FC_OK) st = fc_dense_peak_gflops(be, precs[i], 5, &after);
        rows[i].peak_gflops = before > after ? before : after;
    }
    if (st == FC_OK && a->vs_torch)   /* PyTorch's CPU fp16 autocast is no baseline anyone uses; AMP on a GPU is */
        for (int i = 0; i < n; i++)
            if (d.gpu || rows[i].prec != FC_PREC_FP16) run_torch(a, &d, &rows[i]);
    if (st == FC_OK) {
        print_table(a, rows, n, &d);
        if (a->json) print_json(rows, n, &d);
    }
    int rc = st == FC_OK ? 0 : cli_fail("bench train");
    fc_backend_destroy(&be);
    fc_dataset_free(&ds);
    return rc;
}

int cmd_bench(int argc, char **argv, int first) {
    if (first >= argc || strcmp(argv[first], "train") != 0) {
        fprintf(stderr, "usage: fcast bench train [options]   (fcast bench train --help)\n");
        return 2;
    }
    bench_args a = {.data = "data/taylor_halfhourly.csv", .precisions = NULL, .python = "python3",
                    .script = "python/bench_torch.py", .device = "auto", .steps = 100, .warmup = 5, .wbs = 1024};
    arg_spec specs[] = {
        {"data", ARG_STR, &a.data, "FILE", "training data (data/taylor_halfhourly.csv)", 0, 0},
        {"steps", ARG_SIZE, &a.steps, "N", "timed training steps per precision (100)", 0, 0},
        {"warmup", ARG_SIZE, &a.warmup, "N", "untimed steps first (5)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"device", ARG_STR, &a.device, "DEV", DEVICE_FLAG_HELP, 0, 0},
        {"windows-batch-size", ARG_SIZE, &a.wbs, "N", "windows per step (1024)", 0, 0},
        {"precisions", ARG_STR, &a.precisions, "LIST",
         "comma list of fp32, bf16, fp16 (fp32,bf16 on the CPU; fp32,bf16,fp16 on a GPU)", 0, 0},
        {"vs-torch", ARG_FLAG, &a.vs_torch, NULL,
         "also run PyTorch eager (python/bench_torch.py; on a GPU, on it with autocast)", 0, 0},
        {"python", ARG_STR, &a.python, "EXE", "Python for --vs-torch (python3)", 0, 0},
        {"torch-script", ARG_STR, &a.script, "FILE", "the PyTorch side (python/bench_torch.py)", 0, 0},
        {"json", ARG_FLAG, &a.json, NULL, "also print the figures as one JSON line", 0, 0},
        {NULL, 0, NULL, NULL, NULL, 0, 0},
    };
    int rc = args_parse("bench train", SUMMARY, specs, argc, argv, first + 1);
    if (rc) return args_exit(rc);
    return bench_train_cmd(&a);
}
