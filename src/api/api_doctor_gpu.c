/* fcast_doctor_run's GPU section (see api_doctor.h). What NVML says needs no
 * CUDA; bandwidth and peak go through the CUDA backend's table, so they
 * measure what fcast's own copies and matrix products get. A figure that
 * was not measured is printed as the reason, never as a number.
 *
 * For tests on machines without a GPU, FCAST_TEST_DOCTOR_GPU=cpu makes
 * every cuda:N a CPU backend, so the measuring, printing and the GPU
 * conclusion run; nothing else reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/memory_stats.h"
#include "api/api_doctor.h"
#include "train/dense_peak.h"

#define PEAK_ROUNDS 5

json_t *doctor_json_or_null(int known, json_t *v) {
    if (known) return v;
    json_decref(v);
    return json_null();
}

/* ---- NVML ---- */

static void describe_gpus(fc_gpu_monitor *m, gpu_report *g) {
    int n = fc_gpu_monitor_count(m);
    g->n = n < DOCTOR_MAX_GPUS ? n : DOCTOR_MAX_GPUS;
    fc_gpu_monitor_driver_version(m, g->driver, sizeof g->driver);
    g->cuda = fc_gpu_monitor_cuda_version(m);
    for (int i = 0; i < g->n; i++) {
        fc_gpu_monitor_describe(m, i, &g->info[i]);
        g->sampled[i] = fc_gpu_monitor_sample(m, i, &g->sample[i]) == FC_OK;
    }
}

static void probe_nvml(gpu_report *g) {
    fc_gpu_monitor *m = NULL;
    if (fc_gpu_monitor_open(&m) != FC_OK) {
        snprintf(g->reason, sizeof g->reason, "%s", fc_last_error());
        return;
    }
    g->found = 1;
    describe_gpus(m, g);
    fc_gpu_monitor_close(&m);
}

/* ---- the CUDA backend ---- */

/* cuda:d's backend, or the reason it cannot run without fc_backend_create's
 * "device cuda:d: " head (the report names the device itself). */
static fc_backend *open_cuda(int d, char *why, size_t cap) {
    fc_backend *be = NULL;
    const char *test = getenv("FCAST_TEST_DOCTOR_GPU");
    if (test && !strcmp(test, "cpu")) {
        if (fc_backend_cpu_create(0, &be) != FC_OK) snprintf(why, cap, "%s", fc_last_error());
        return be;
    }
    char name[32], head[48];
    snprintf(name, sizeof name, "cuda:%d", d);
    snprintf(head, sizeof head, "device %s: ", name);
    if (fc_backend_create(name, 0, &be, NULL, 0) == FC_OK) return be;
    const char *e = fc_last_error();
    snprintf(why, cap, "%s", strncmp(e, head, strlen(head)) ? e : e + strlen(head));
    return NULL;
}

/* Best of two passes per precision, as the CPU peak: the first can run
 * before the clocks have ramped up. */
static fc_status measure_peaks(fc_backend *be, doctor_cuda *c) {
    for (int pass = 0; pass < 2; pass++)
        for (int p = 0; p < FC_PREC_COUNT; p++) {
            double g = 0;
            FC_TRY(fc_dense_peak_gflops(be, (fc_precision)p, PEAK_ROUNDS, &g));
            c->peak[p] = g > c->peak[p] ? g : c->peak[p];
        }
    return FC_OK;
}

/* A failure while measuring is reported, not fatal: doctor goes on. */
static void measure_cuda(fc_backend *be, int quick, doctor_cuda *c) {
    snprintf(c->kernels, sizeof c->kernels, "%s", strcmp(be->name, "cuda") ? be->name : "cuBLASLt");
    if (quick) {
        snprintf(c->reason, sizeof c->reason, "--quick");
        return;
    }
    fc_status st = fc_copy_bandwidth_measure(be, DOCTOR_COPY_BYTES, DOCTOR_COPY_ROUNDS, &c->bw);
    if (st == FC_OK) st = measure_peaks(be, c);
    if (st != FC_OK) snprintf(c->reason, sizeof c->reason, "measuring failed: %s", fc_last_error());
}

/* The CUDA backend makes its GPU the thread's current device once, when it
 * is created: a backend is used only while it is the last one created. So
 * each is closed before the next opens, and cuda:0, kept open for the
 * conclusion, is opened last. */
void doctor_gpu_probe(int quick, gpu_report *g, fc_backend **gpu0) {
    *gpu0 = NULL;
    probe_nvml(g);
    g->n_cuda = g->found && g->n > 0 ? g->n : 1;
    for (int k = 1; k <= g->n_cuda; k++) {
        int d = k % g->n_cuda;   /* 1, 2, ..., n-1, then 0 */
        doctor_cuda *c = &g->cuda_dev[d];
        fc_backend *be = open_cuda(d, c->reason, sizeof c->reason);
        if (!be) continue;
        c->usable = 1;
        measure_cuda(be, quick, c);
        /* a backend whose measuring failed may be broken for good: not for the plan */
        int clean = !c->reason[0] || quick;
        if (d == 0 && clean) *gpu0 = be;
        else fc_backend_destroy(&be);
    }
    fc_error_clear();   /* the reasons are in the report; none is doctor's failure */
}

size_t doctor_gpu0_free_bytes(const gpu_report *g) {
    return g->found && g->n > 0 ? (size_t)g->info[0].mem_free_bytes : 0;
}

/* ---- text ---- */

static void print_link(FILE *f, const fc_gpu_info *i) {
    if (i->pcie_gen < 0 && i->pcie_width < 0) { fprintf(f, "unknown"); return; }
    fprintf(f, "gen %d x%d", i->pcie_gen, i->pcie_width);
    if (i->pcie_max_gen >= 0) fprintf(f, " (max gen %d x%d)", i->pcie_max_gen, i->pcie_max_width);
}

static void print_gpu_device(FILE *f, const gpu_report *g, int d) {
    const fc_gpu_info *i = &g->info[d];
    char total[32], free_[32];
    fprintf(f, "  GPU %d: %s\n", d, i->name[0] ? i->name : "unknown");
    if (i->cc_major >= 0) fprintf(f, "    compute capability: %d.%d\n", i->cc_major, i->cc_minor);
    else fprintf(f, "    compute capability: unknown\n");
    fprintf(f, "    memory:       %s free of %s\n", fc_bytes_text(i->mem_free_bytes, free_, sizeof free_),
           fc_bytes_text(i->mem_total_bytes, total, sizeof total));
    fprintf(f, "    PCIe link:    "), print_link(f, i), fprintf(f, "\n");
    fprintf(f, "    MIG mode:     %s\n", i->mig_mode < 0 ? "unknown" : i->mig_mode ? "enabled" : "disabled");
    if (g->sampled[d])
        fprintf(f, "    now:          %.0f %% busy, %.0f C, %.1f W\n", g->sample[d].util_pct, g->sample[d].temp_c,
               g->sample[d].power_w);
    else
        fprintf(f, "    now:          unknown (an NVML sample failed)\n");
}

static void print_rate(FILE *f, const char *what, double rate, const char *tail) {
    if (rate > 0) fprintf(f, " %.1f GB/s %s%s", rate, what, tail);
    else fprintf(f, " not measured %s%s", what, tail);
}

static void print_measured(FILE *f, int d, const doctor_cuda *c) {
    char unit[64];
    snprintf(unit, sizeof unit, " (%zu MiB copies, best of %d)", DOCTOR_COPY_BYTES >> 20, DOCTOR_COPY_ROUNDS);
    fprintf(f, "  cuda:%d (CUDA backend, %s):\n    host->device:", d, c->kernels);
    print_rate(f, "pageable", c->bw.h2d_pageable, ","), print_rate(f, "pinned", c->bw.h2d_pinned, unit);
    fprintf(f, "\n    device->host:");
    print_rate(f, "pageable", c->bw.d2h_pageable, ","), print_rate(f, "pinned", c->bw.d2h_pinned, "\n");
    fprintf(f, "    matrix-product peak (" FC_DENSE_PEAK_GPU_SHAPE ", bias+ReLU):");
    for (int p = 0; p < FC_PREC_COUNT; p++)
        if (c->peak[p] > 0) fprintf(f, "%s %s %.1f GFLOP/s", p ? "," : "", fc_precision_name((fc_precision)p), c->peak[p]);
        else fprintf(f, "%s %s not measured", p ? "," : "", fc_precision_name((fc_precision)p));
    fprintf(f, "\n");
    if (c->reason[0]) fprintf(f, "    not measured further (%s)\n", c->reason);
}

/* One line for a run of GPUs that cannot run for the same reason (a
 * missing library is the same for all eight GPUs of a node). */
static int print_unusable(FILE *f, const gpu_report *g, int first) {
    int last = first;
    while (last + 1 < g->n_cuda && !g->cuda_dev[last + 1].usable &&
           !strcmp(g->cuda_dev[last + 1].reason, g->cuda_dev[first].reason))
        last++;
    if (last == first) fprintf(f, "  cuda:%d: ", first);
    else fprintf(f, "  cuda:%d to cuda:%d: ", first, last);
    fprintf(f, "host<->device bandwidth and matrix-product peak not measured: %s\n", g->cuda_dev[first].reason);
    return last + 1;
}

static void print_cuda(FILE *f, const gpu_report *g) {
    for (int d = 0; d < g->n_cuda;) {
        const doctor_cuda *c = &g->cuda_dev[d];
        if (!c->usable) { d = print_unusable(f, g, d); continue; }
        if (!strcmp(c->reason, "--quick"))
            fprintf(f, "  cuda:%d (CUDA backend, %s): host<->device bandwidth and matrix-product peak not measured "
                   "(--quick)\n", d, c->kernels);
        else
            print_measured(f, d, c);
        d++;
    }
}

void doctor_gpu_print(FILE *f, const gpu_report *g) {
    fprintf(f, "GPU\n");
    if (!g->found) {
        fprintf(f, "  none: %s\n", g->reason);
    } else {
        fprintf(f, "  %d GPU%s; driver %s, CUDA ", g->n, g->n == 1 ? "" : "s", g->driver[0] ? g->driver : "unknown");
        if (g->cuda) fprintf(f, "%d.%d\n", g->cuda / 1000, g->cuda % 1000 / 10);
        else fprintf(f, "unknown\n");
        for (int d = 0; d < g->n; d++) print_gpu_device(f, g, d);
    }
    print_cuda(f, g);
}

/* ---- JSON ---- */

static json_t *gpu_device_json(const gpu_report *g, int d) {
    const fc_gpu_info *i = &g->info[d];
    json_t *j = json_object();
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", i->cc_major, i->cc_minor);
    json_object_set_new(j, "name", doctor_json_or_null(i->name[0] != 0, json_string(i->name)));
    json_object_set_new(j, "compute_capability", doctor_json_or_null(i->cc_major >= 0, json_string(cc)));
    json_object_set_new(j, "memory_total_bytes", json_integer((json_int_t)i->mem_total_bytes));
    json_object_set_new(j, "memory_free_bytes", json_integer((json_int_t)i->mem_free_bytes));
    json_object_set_new(j, "pcie_gen", doctor_json_or_null(i->pcie_gen >= 0, json_integer(i->pcie_gen)));
    json_object_set_new(j, "pcie_width", doctor_json_or_null(i->pcie_width >= 0, json_integer(i->pcie_width)));
    json_object_set_new(j, "mig_enabled", doctor_json_or_null(i->mig_mode >= 0, json_boolean(i->mig_mode == 1)));
    json_object_set_new(j, "utilization_pct", doctor_json_or_null(g->sampled[d], json_real(g->sample[d].util_pct)));
    json_object_set_new(j, "temperature_c", doctor_json_or_null(g->sampled[d], json_real(g->sample[d].temp_c)));
    json_object_set_new(j, "power_w", doctor_json_or_null(g->sampled[d], json_real(g->sample[d].power_w)));
    return j;
}

static json_t *rate_pair(double pageable, double pinned) {
    json_t *j = json_object();
    json_object_set_new(j, "pageable", doctor_json_or_null(pageable > 0, json_real(pageable)));
    json_object_set_new(j, "pinned", doctor_json_or_null(pinned > 0, json_real(pinned)));
    return j;
}

static json_t *cuda_json(const doctor_cuda *c, int d) {
    json_t *j = json_object(), *peak = json_object();
    char name[32];
    snprintf(name, sizeof name, "cuda:%d", d);
    json_object_set_new(j, "device", json_string(name));
    json_object_set_new(j, "usable", json_boolean(c->usable));
    json_object_set_new(j, "kernels", doctor_json_or_null(c->usable, json_string(c->kernels)));
    json_object_set_new(j, "reason", doctor_json_or_null(c->reason[0] != 0, json_string(c->reason)));
    json_object_set_new(j, "host_to_device_gbps", rate_pair(c->bw.h2d_pageable, c->bw.h2d_pinned));
    json_object_set_new(j, "device_to_host_gbps", rate_pair(c->bw.d2h_pageable, c->bw.d2h_pinned));
    json_object_set_new(j, "copy_bytes", json_integer((json_int_t)DOCTOR_COPY_BYTES));
    for (int p = 0; p < FC_PREC_COUNT; p++) {
        json_t *v = doctor_json_or_null(c->peak[p] > 0, json_real(c->peak[p]));
        json_object_set_new(peak, fc_precision_name((fc_precision)p), v);
    }
    json_object_set_new(j, "peak_gflops", peak);
    return j;
}

json_t *doctor_gpu_json(const gpu_report *g) {
    json_t *j = json_object(), *devices = json_array(), *cuda_devs = json_array();
    char cuda[16];
    snprintf(cuda, sizeof cuda, "%d.%d", g->cuda / 1000, g->cuda % 1000 / 10);
    json_object_set_new(j, "found", json_boolean(g->found));
    json_object_set_new(j, "reason", doctor_json_or_null(!g->found, json_string(g->reason)));
    json_object_set_new(j, "count", json_integer(g->n));
    json_object_set_new(j, "driver_version", doctor_json_or_null(g->driver[0] != 0, json_string(g->driver)));
    json_object_set_new(j, "cuda_version", doctor_json_or_null(g->cuda > 0, json_string(cuda)));
    for (int d = 0; d < g->n; d++) json_array_append_new(devices, gpu_device_json(g, d));
    json_object_set_new(j, "devices", devices);
    for (int d = 0; d < g->n_cuda; d++) json_array_append_new(cuda_devs, cuda_json(&g->cuda_dev[d], d));
    json_object_set_new(j, "cuda_backend", cuda_devs);
    return j;
}
