/* fcast_doctor_run: what a user runs first on a new machine (`fcast
 * doctor`). The CPU (model, the ISA extensions fcast's kernels choose
 * between, cores, memory, the measured matrix-product peak per
 * precision), the GPUs (api_doctor_gpu.c: what NVML sees, and what the
 * CUDA backend measures on each), and the conclusion: the device and
 * precision fcast will use and the largest windows batch of the default
 * N-HiTS within the memory limit, planned on that device's backend. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/api_doctor.h"
#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "core/memory_stats.h"
#include "train/dense_peak.h"
#include "train/memory_plan.h"

/* ---- CPU ---- */

static fc_status measure_cpu(fc_backend *be, int quick, cpu_report *c) {
    fc_cpu_info_read(&c->info);
    c->amx_fcast = fc_backend_cpu_uses_amx();
    c->bf16_kernel = fc_backend_cpu_bf16_kernel_name();
    c->bf16_choice = fc_backend_cpu_bf16_choice();
    c->amx_capped = fc_cpu_amx_capped();
    fc_cpu_onednn_impl_name(0, c->onednn_fp32, sizeof c->onednn_fp32);
    fc_cpu_onednn_impl_name(1, c->onednn_bf16, sizeof c->onednn_bf16);
    c->amx_works = c->amx_fcast || strstr(c->onednn_bf16, "amx") != NULL;
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

/* ---- conclusion ---- */

/* The plan needs a dataset: data, else one synthetic series long enough
 * for many windows, built in memory (its few kB do not move the answer). */
static fc_status plan_dataset(const fcast_doctor_request *a, conclusion *c, fc_dataset **ds) {
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

static fc_status largest_batch(const fcast_doctor_request *a, fc_backend *be, conclusion *c) {
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

/* bf16 where a 16-bit kernel runs here and beats fp32 (the backend's own
 * choice, cpu_bf16_choice.c) and, when measured, the whole layer agrees;
 * fcast train itself defaults to fp32 and has no --precision auto yet. */
static void choose_cpu_precision(const cpu_report *cpu, conclusion *c) {
    int native = strcmp(cpu->bf16_kernel, FC_BF16_KERNEL_CARRIED) != 0;
    int measured = cpu->peak[0] > 0 && cpu->peak[1] > 0;
    c->precision = native && (!measured || cpu->peak[1] > cpu->peak[0]) ? FC_PREC_BF16 : FC_PREC_FP32;
    if (!native) c->precision_reason = "bf16 would run as fp32 products of bf16 values here: no faster";
    else if (!measured) c->precision_reason = "a bf16 kernel faster than fp32 here; peak not measured (--quick)";
    else c->precision_reason = c->precision == FC_PREC_BF16 ? "bf16 kernels, faster than fp32 in the measured peak"
                                                             : "bf16 kernels, but not faster than fp32 in the measured peak";
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

/* What device auto does: cuda:0 when its backend opens, else the CPU. */
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

/* memory_limit, else the memory available now: on a GPU no more than GPU
 * 0's free memory, which holds the run's arena (conservative: the plan
 * also counts the host's staging buffers and dataset). */
static fc_status choose_limit(const fcast_doctor_request *a, const gpu_report *g, int on_gpu, conclusion *c) {
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
static fc_status conclude(const fcast_doctor_request *a, fc_backend *be, fc_backend *gpu0, const cpu_report *cpu,
                          const gpu_report *g, conclusion *c) {
    choose_device(g, gpu0, c);
    if (gpu0) choose_gpu_precision(&g->cuda_dev[0], c);
    else choose_cpu_precision(cpu, c);
    FC_TRY(choose_limit(a, g, gpu0 != NULL, c));
    return largest_batch(a, be, c);
}

/* ---- the run ---- */

static fc_status probe(const fcast_doctor_request *a, fcast_doctor *d) {
    if (a->threads > 1024) return fc_error(FC_ERR_INVALID, "--threads must be at most 1024");
    fc_backend *be = NULL, *gpu0 = NULL;
    FC_TRY(fc_backend_cpu_create((int)a->threads, &be));
    fc_status st = measure_cpu(be, a->quick, &d->cpu);
    if (st == FC_OK) doctor_gpu_probe(a->quick, &d->g, &gpu0);
    if (st == FC_OK) st = conclude(a, gpu0 ? gpu0 : be, gpu0, &d->cpu, &d->g, &d->c);
    fc_backend_destroy(&gpu0);
    fc_backend_destroy(&be);
    return st;
}

static fc_status doctor_run(const fcast_doctor_request *a, fcast_doctor **out) {
    if (!a || !out) return fc_error(FC_ERR_INVALID, "fcast_doctor_run: request and out are needed");
    *out = NULL;
    fcast_doctor *d = calloc(1, sizeof *d);
    if (!d) return fc_error(FC_ERR_MEMORY, "out of memory");
    fc_status st = probe(a, d);
    if (st == FC_OK && (!(d->text = doctor_text(d)) || !(d->json = doctor_json(d))))
        st = fc_error(FC_ERR_MEMORY, "out of memory");
    if (st != FC_OK) {
        fcast_doctor_free(d);
        return st;
    }
    *out = d;
    return FC_OK;
}

fc_status fcast_doctor_run(const fcast_doctor_request *r, fcast_doctor **out) {
    return fc_api_words(doctor_run(r, out));
}

const char *fcast_doctor_text(const fcast_doctor *d) { return d ? d->text : NULL; }

const char *fcast_doctor_json(const fcast_doctor *d) { return d ? d->json : NULL; }

fc_status fcast_doctor_summary_get(const fcast_doctor *d, fcast_doctor_summary *out) {
    if (!d || !out) return fc_error(FC_ERR_INVALID, "fcast_doctor_summary_get: doctor and out are needed");
    const cpu_report *cpu = &d->cpu;
    const conclusion *c = &d->c;
    *out = (fcast_doctor_summary){
        .device = c->device, .device_reason = c->device_reason, .precision = fc_precision_name(c->precision),
        .precision_reason = c->precision_reason, .memory_limit = c->limit, .memory_limit_source = c->limit_source,
        .largest_windows_batch_size = c->largest_batch, .plan_data = c->data,
        .cpu_model = cpu->info.model[0] ? cpu->info.model : NULL, .logical_cpus = cpu->info.logical_cpus,
        .threads = cpu->threads, .avx512f = cpu->info.avx512f, .avx512_bf16 = cpu->info.avx512_bf16,
        .amx_works = cpu->amx_works, .cpu_peak_gflops = {cpu->peak[0], cpu->peak[1]}, .gpus = d->g.n,
        .cuda0_usable = d->g.cuda_dev[0].usable};
    return FC_OK;
}

void fcast_doctor_free(fcast_doctor *d) {
    if (!d) return;
    free(d->text);
    free(d->json);
    free(d);
}
