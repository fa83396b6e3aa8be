/* fcast doctor: what a user runs first on a new machine. The CPU (model,
 * the ISA extensions fcast's kernels choose between, cores, memory, the
 * measured matrix-product peak per precision), the GPUs (doctor_gpu.c:
 * what NVML sees, and what the CUDA backend measures on each), and the
 * conclusion: the device and precision fcast will use and the largest
 * windows batch of the default N-HiTS within the memory limit, planned on
 * that device's backend. Text, or one JSON object with --json. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "backend/cpu/cpu_backend.h"
#include "cli.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "data/dataset.h"
#include "doctor_gpu.h"
#include "models/model.h"
#include "monitor/cpu_info.h"
#include "train/dense_peak.h"
#include "train/memory_plan.h"

/* The default N-HiTS of fcast bench: horizon 48, input window 96. */
#define DOCTOR_H 48
#define DOCTOR_L 96

typedef struct {
    const char *memory_limit, *data;
    size_t threads;
    int json, quick;
} doctor_args;

typedef struct {
    fc_cpu_info info;
    int amx_works, amx_capped, threads;
    double peak[2];             /* GFLOP/s, fp32 and bf16; 0: not measured */
} cpu_report;

typedef struct {
    const char *device;         /* "cpu" or "cuda:0": where --device auto runs */
    char device_reason[1024];
    fc_precision precision;
    const char *precision_reason, *limit_source;
    size_t limit, largest_batch;
    char data[160];             /* where the dataset for the plan came from */
} conclusion;

static const char *SUMMARY =
    "Reports this machine as fcast sees it: CPU (model, AVX-512, AVX512-BF16, AMX, cores, memory,\n"
    "measured matrix-product peak), GPUs (through NVML; through the CUDA backend, host<->device\n"
    "bandwidth and matrix-product peak), and the conclusion: device, precision and the largest\n"
    "--windows-batch-size of the default N-HiTS (h=48, input 96) within --memory-limit.";

/* ---- CPU ---- */

static fc_status measure_cpu(fc_backend *be, int quick, cpu_report *c) {
    fc_cpu_info_read(&c->info);
    c->amx_works = fc_backend_cpu_uses_amx();
    c->amx_capped = fc_cpu_amx_capped();
    c->threads = be->threads;
    if (quick) return FC_OK;
    /* best of two passes, as fcast bench: one alone can land in a slow
     * moment of a shared machine, or before the cores have clocked up */
    const fc_precision precs[2] = {FC_PREC_FP32, FC_PREC_BF16};
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < 2; i++) {
            double g = 0;
            FC_TRY(fc_dense_peak_gflops(be, precs[i], 5, &g));
            c->peak[i] = g > c->peak[i] ? g : c->peak[i];
        }
    return FC_OK;
}

static const char *amx_text(const cpu_report *c) {
    if (!c->info.amx_tile) return "not advertised";
    if (c->amx_works) return c->amx_capped ? "works (fcast's AMX kernels; oneDNN capped below AMX)" : "works (fcast's AMX kernels)";
    return c->amx_capped ? "advertised but does not work here (oneDNN capped below AMX)" : "advertised, not used (FCAST_NO_AMX)";
}

/* ---- conclusion ---- */

/* The plan needs a dataset: --data, else one synthetic series long enough
 * for many windows, built in memory (its few kB do not move the answer). */
static fc_status plan_dataset(const doctor_args *a, conclusion *c, fc_dataset **ds) {
    fc_load_options lo = {.drop_exog = 1};
    if (a->data) {
        snprintf(c->data, sizeof c->data, "%s", a->data);
        return fc_dataset_load_csv(a->data, &lo, ds);
    }
    enum { POINTS = 2000 };
    size_t cap = 32 + POINTS * 24, len = 0;
    char *text = malloc(cap);
    if (!text) return fc_error(FC_ERR_MEMORY, "out of memory");
    len += (size_t)snprintf(text, cap, "unique_id,ds,y\n");
    for (int t = 0; t < POINTS; t++) len += (size_t)snprintf(text + len, cap - len, "s,%d,%d\n", t, 100 + t % 48);
    snprintf(c->data, sizeof c->data, "synthetic: 1 series of %d points, built in memory (--data FILE for yours)", POINTS);
    fc_status st = fc_dataset_load_buffer("synthetic", text, len, &lo, ds);
    free(text);
    return st;
}

static fc_status largest_batch(const doctor_args *a, fc_backend *be, conclusion *c) {
    fc_model_config cfg;
    fc_model_config_default(&cfg, FC_MODEL_NHITS, DOCTOR_H, DOCTOR_L);
    fc_train_options o;
    fc_train_options_default(&o);
    o.precision = c->precision;
    fc_dataset *ds = NULL;
    fc_model *m = NULL;
    fc_status st = plan_dataset(a, c, &ds);
    if (st == FC_OK) st = fc_model_plan(&cfg, &m);
    if (st == FC_OK) st = fc_memory_plan_largest_batch(m, ds, &o, be, c->limit, &c->largest_batch);
    fc_model_free(&m);
    fc_dataset_free(&ds);
    return st;
}

/* bf16 when the CPU computes it natively and, when measured, it is faster;
 * fcast train itself defaults to fp32 and has no --precision auto yet. */
static void choose_cpu_precision(const cpu_report *cpu, conclusion *c) {
    int native = cpu->info.avx512_bf16 || cpu->amx_works;
    int measured = cpu->peak[0] > 0 && cpu->peak[1] > 0;
    c->precision = native && (!measured || cpu->peak[1] > cpu->peak[0]) ? FC_PREC_BF16 : FC_PREC_FP32;
    if (!native) c->precision_reason = "no AVX512-BF16 or working AMX: bf16 would be emulated";
    else if (!measured) c->precision_reason = "native bf16 (AVX512-BF16 or AMX); peak not measured (--quick)";
    else c->precision_reason = c->precision == FC_PREC_BF16 ? "native bf16, faster than fp32 in the measured peak"
                                                             : "native bf16, but not faster than fp32 in the measured peak";
}

/* The CUDA backend runs on compute capability 8.0 or newer only, all of
 * which have bf16 tensor cores; bf16 over fp16 at the same speed, since
 * fp16 needs loss scaling. */
static void choose_gpu_precision(const doctor_cuda *d, conclusion *c) {
    double fp32 = d->peak[FC_PREC_FP32], bf16 = d->peak[FC_PREC_BF16];
    int measured = fp32 > 0 && bf16 > 0;
    c->precision = !measured || bf16 > fp32 ? FC_PREC_BF16 : FC_PREC_FP32;
    if (!measured)
        c->precision_reason = "bf16 tensor cores (compute capability 8.0 or newer); peak not measured (--quick)";
    else c->precision_reason = c->precision == FC_PREC_BF16
        ? "bf16 tensor cores, faster than fp32 in the measured peak; bf16 rather than fp16: no loss scaling"
        : "bf16 not faster than fp32 in the measured peak";
}

/* What --device auto does: cuda:0 when its backend opens, else the CPU. */
static void choose_device(const gpu_report *g, const fc_backend *gpu0, conclusion *c) {
    const doctor_cuda *d0 = &g->cuda_dev[0];
    char *why = c->device_reason;
    size_t cap = sizeof c->device_reason;
    c->device = gpu0 ? "cuda:0" : "cpu";
    if (gpu0) snprintf(why, cap, "the CUDA backend runs on it: --device auto takes it");
    else if (d0->usable) snprintf(why, cap, "cuda:0 opened, but %s", d0->reason);
    else if (g->found) snprintf(why, cap, "GPU found, but cuda:0 cannot run: %s", d0->reason);
    else snprintf(why, cap, "no GPU found");
}

/* --memory-limit, else the memory available now: on a GPU no more than
 * GPU 0's free memory, which holds the run's arena (conservative: the plan
 * also counts the host's staging buffers and dataset). */
static fc_status choose_limit(const doctor_args *a, const gpu_report *g, int on_gpu, conclusion *c) {
    FC_TRY(fc_memory_limit_parse(a->memory_limit, &c->limit));
    c->limit_source = "--memory-limit";
    if (c->limit) return FC_OK;
    c->limit = fc_memory_available();
    c->limit_source = "available memory";
    size_t gpu_free = on_gpu ? doctor_gpu0_free_bytes(g) : 0;
    if (gpu_free && (!c->limit || gpu_free < c->limit)) {
        c->limit = gpu_free;
        c->limit_source = "GPU 0's free memory";
    }
    if (!c->limit) return fc_error(FC_ERR_INVALID, "the available memory is unknown here: give --memory-limit");
    return FC_OK;
}

/* be: the backend the conclusion's device runs (gpu0, or the CPU's). */
static fc_status conclude(const doctor_args *a, fc_backend *be, fc_backend *gpu0, const cpu_report *cpu,
                          const gpu_report *g, conclusion *c) {
    choose_device(g, gpu0, c);
    if (gpu0) choose_gpu_precision(&g->cuda_dev[0], c);
    else choose_cpu_precision(cpu, c);
    FC_TRY(choose_limit(a, g, gpu0 != NULL, c));
    return largest_batch(a, be, c);
}

/* ---- text ---- */

static const char *yes_no(int v) { return v ? "yes" : "no"; }

static void print_cpu(const cpu_report *c) {
    char total[32], avail[32];
    printf("CPU\n  model:        %s\n", c->info.model[0] ? c->info.model : "unknown");
    printf("  cores:        %d logical CPUs", c->info.logical_cpus);
    if (c->info.physical_cores) printf(", %d physical cores", c->info.physical_cores);
    printf("; fcast uses %d threads\n", c->threads);
    printf("  memory:       %s total, %s available\n", c->info.mem_total ? fc_bytes_text(c->info.mem_total, total, sizeof total) : "unknown",
           c->info.mem_available ? fc_bytes_text(c->info.mem_available, avail, sizeof avail) : "unknown");
    printf("  AVX-512:      %s\n  AVX512-BF16:  %s\n", yes_no(c->info.avx512f), yes_no(c->info.avx512_bf16));
    printf("  AMX:          %s\n", amx_text(c));
    printf("  bf16 kernels: %s\n", c->amx_works ? "fcast's AMX" : "oneDNN");
    if (c->peak[0] > 0)
        printf("  matrix-product peak (1024x512 by 512x512, bias+ReLU): fp32 %.1f GFLOP/s, bf16 %.1f GFLOP/s\n",
               c->peak[0], c->peak[1]);
    else
        printf("  matrix-product peak: not measured (--quick)\n");
}

static void print_conclusion(const conclusion *c) {
    char limit[32];
    printf("Conclusion\n  device:       %s (%s)\n", c->device, c->device_reason);
    printf("  precision:    %s (%s)\n", fc_precision_name(c->precision), c->precision_reason);
    if (c->precision != FC_PREC_FP32)
        printf("                fcast train defaults to fp32 (no --precision auto yet): pass --precision %s\n",
               fc_precision_name(c->precision));
    printf("  largest --windows-batch-size of the default N-HiTS (h=%d, input %d, %s) within %s (%s): ",
           DOCTOR_H, DOCTOR_L, fc_precision_name(c->precision), fc_bytes_text(c->limit, limit, sizeof limit),
           c->limit_source);
    if (c->largest_batch) printf("%zu\n", c->largest_batch);
    else printf("none: not one window fits\n");
    printf("  data for the plan: %s\n", c->data);
}

/* ---- JSON ---- */

static json_t *cpu_json(const cpu_report *c) {
    json_t *j = json_object(), *peak = json_object();
    json_object_set_new(j, "model", doctor_json_or_null(c->info.model[0] != 0, json_string(c->info.model)));
    json_object_set_new(j, "logical_cpus", json_integer(c->info.logical_cpus));
    json_object_set_new(j, "physical_cores", doctor_json_or_null(c->info.physical_cores > 0, json_integer(c->info.physical_cores)));
    json_object_set_new(j, "threads", json_integer(c->threads));
    json_object_set_new(j, "memory_total_bytes", doctor_json_or_null(c->info.mem_total > 0, json_integer((json_int_t)c->info.mem_total)));
    json_object_set_new(j, "memory_available_bytes",
                        doctor_json_or_null(c->info.mem_available > 0, json_integer((json_int_t)c->info.mem_available)));
    json_object_set_new(j, "avx512f", json_boolean(c->info.avx512f));
    json_object_set_new(j, "avx512_bf16", json_boolean(c->info.avx512_bf16));
    json_object_set_new(j, "amx_advertised", json_boolean(c->info.amx_tile));
    json_object_set_new(j, "amx_bf16_advertised", json_boolean(c->info.amx_bf16));
    json_object_set_new(j, "amx_works", json_boolean(c->amx_works));
    json_object_set_new(j, "amx_capped", json_boolean(c->amx_capped));
    json_object_set_new(peak, "fp32", doctor_json_or_null(c->peak[0] > 0, json_real(c->peak[0])));
    json_object_set_new(peak, "bf16", doctor_json_or_null(c->peak[1] > 0, json_real(c->peak[1])));
    json_object_set_new(j, "peak_gflops", peak);
    return j;
}

static json_t *conclusion_json(const conclusion *c) {
    json_t *j = json_object();
    json_object_set_new(j, "device", json_string(c->device));
    json_object_set_new(j, "device_reason", json_string(c->device_reason));
    json_object_set_new(j, "precision", json_string(fc_precision_name(c->precision)));
    json_object_set_new(j, "precision_reason", json_string(c->precision_reason));
    json_object_set_new(j, "train_default_precision", json_string("fp32"));
    json_object_set_new(j, "memory_limit_bytes", json_integer((json_int_t)c->limit));
    json_object_set_new(j, "memory_limit_source", json_string(c->limit_source));
    json_object_set_new(j, "model", json_string("NHITS h=48 input_size=96"));
    json_object_set_new(j, "largest_windows_batch_size", json_integer((json_int_t)c->largest_batch));
    json_object_set_new(j, "plan_data", json_string(c->data));
    return j;
}

static int print_json(const cpu_report *cpu, const gpu_report *g, const conclusion *c) {
    json_t *j = json_object();
    json_object_set_new(j, "cpu", cpu_json(cpu));
    json_object_set_new(j, "gpu", doctor_gpu_json(g));
    json_object_set_new(j, "conclusion", conclusion_json(c));
    char *text = json_dumps(j, JSON_INDENT(2));
    json_decref(j);
    if (!text) {
        fprintf(stderr, "fcast doctor: out of memory\n");
        return CLI_EXIT_MEMORY;
    }
    printf("%s\n", text);
    free(text);
    return CLI_EXIT_OK;
}

/* ---- the command ---- */

static fc_status doctor_run(const doctor_args *a, cpu_report *cpu, gpu_report *g, conclusion *c) {
    if (a->threads > 1024) return fc_error(FC_ERR_INVALID, "--threads must be at most 1024");
    fc_backend *be = NULL, *gpu0 = NULL;
    FC_TRY(fc_backend_cpu_create((int)a->threads, &be));
    fc_status st = measure_cpu(be, a->quick, cpu);
    if (st == FC_OK) doctor_gpu_probe(a->quick, g, &gpu0);
    if (st == FC_OK) st = conclude(a, gpu0 ? gpu0 : be, gpu0, cpu, g, c);
    fc_backend_destroy(&gpu0);
    fc_backend_destroy(&be);
    return st;
}

int cmd_doctor(int argc, char **argv, int first) {
    doctor_args a = {0};
    arg_spec specs[] = {
        {"json", ARG_FLAG, &a.json, NULL, "one JSON object instead of text", 0, 0},
        {"memory-limit", ARG_STR, &a.memory_limit, "SIZE", "budget for the batch conclusion, e.g. 2GiB (the memory available now)", 0, 0},
        {"data", ARG_STR, &a.data, "FILE", "plan on this CSV (a small synthetic series built in memory)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"quick", ARG_FLAG, &a.quick, NULL, "skip the timed peaks and GPU copy bandwidths", 0, 0},
        {NULL, 0, NULL, NULL, NULL, 0, 0},
    };
    int rc = args_parse("doctor", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    cpu_report cpu = {0};
    gpu_report g = {0};
    conclusion c = {0};
    if (doctor_run(&a, &cpu, &g, &c) != FC_OK) return cli_fail("doctor");
    if (a.json) return print_json(&cpu, &g, &c);
    print_cpu(&cpu);
    doctor_gpu_print(&g);
    print_conclusion(&c);
    return CLI_EXIT_OK;
}
