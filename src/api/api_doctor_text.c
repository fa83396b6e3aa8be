/* fcast doctor's report as text (fcast_doctor_text): the CPU, the GPUs
 * (doctor_gpu_print) and the conclusion, as `fcast doctor` prints them. */
#include <stdio.h>
#include <stdlib.h>

#include "api/api_doctor.h"
#include "core/memory_stats.h"
#include "train/dense_peak.h"

static const char *yes_no(int v) { return v ? "yes" : "no"; }

/* Whether AMX runs here, and on whose kernels: fcast's, or oneDNN's when
 * fcast's check failed while oneDNN's AMX implementation runs. */
static void print_amx(FILE *f, const cpu_report *c) {
    const char *fcast_amx = c->bf16_choice.amx;
    if (!c->info.amx_tile) fprintf(f, "not advertised\n");
    else if (c->amx_fcast) fprintf(f, "works (fcast's AMX kernels)\n");
    else if (c->amx_works) fprintf(f, "works (oneDNN's %s; fcast's AMX kernel: %s)\n", c->onednn_bf16, fcast_amx);
    else if (c->amx_capped) fprintf(f, "advertised but does not work here (oneDNN capped below AMX; fcast's: %s)\n", fcast_amx);
    else fprintf(f, "advertised, not used (fcast's AMX kernel: %s)\n", fcast_amx);
}

/* The bf16 path, why, and the one-thread rates that chose it. */
static void print_bf16(FILE *f, const cpu_report *c) {
    const fc_bf16_rates *r = &c->bf16_choice.rates;
    fprintf(f, "  bf16 kernels: %s (%s)\n", c->bf16_kernel, c->bf16_choice.reason);
    if (c->bf16_choice.measured) {
        fprintf(f, "                one thread: fp32 %.0f GFLOP/s, oneDNN bf16 %.0f GFLOP/s", r->fp32, r->onednn);
        if (r->hand > 0) fprintf(f, ", fcast's AVX512-BF16 %.0f GFLOP/s", r->hand);
        fprintf(f, "\n");
    }
    fprintf(f, "  oneDNN:       fp32 %s, bf16 %s\n", c->onednn_fp32[0] ? c->onednn_fp32 : "none",
            c->onednn_bf16[0] ? c->onednn_bf16 : "none (oneDNN 2.6 builds bf16 products only with AVX-512)");
}

static void print_cpu(FILE *f, const cpu_report *c) {
    char total[32], avail[32];
    fprintf(f, "CPU\n  model:        %s\n", c->info.model[0] ? c->info.model : "unknown");
    fprintf(f, "  cores:        %d logical CPUs", c->info.logical_cpus);
    if (c->info.physical_cores) fprintf(f, ", %d physical cores", c->info.physical_cores);
    fprintf(f, "; fcast uses %d threads\n", c->threads);
    fprintf(f, "  memory:       %s total, %s available\n",
            c->info.mem_total ? fc_bytes_text(c->info.mem_total, total, sizeof total) : "unknown",
            c->info.mem_available ? fc_bytes_text(c->info.mem_available, avail, sizeof avail) : "unknown");
    fprintf(f, "  AVX-512:      %s\n  AVX512-BF16:  %s\n", yes_no(c->info.avx512f), yes_no(c->info.avx512_bf16));
    fprintf(f, "  AMX:          ");
    print_amx(f, c);
    print_bf16(f, c);
    if (c->peak[0] > 0)
        fprintf(f, "  matrix-product peak (" FC_DENSE_PEAK_CPU_SHAPE ", bias+ReLU): fp32 %.1f GFLOP/s, bf16 %.1f GFLOP/s\n",
                c->peak[0], c->peak[1]);
    else
        fprintf(f, "  matrix-product peak: not measured (--quick)\n");
}

static void print_conclusion(FILE *f, const conclusion *c) {
    char limit[32];
    fprintf(f, "Conclusion\n  device:       %s (%s)\n", c->device, c->device_reason);
    fprintf(f, "  precision:    %s (%s)\n", fc_precision_name(c->precision), c->precision_reason);
    if (c->precision != FC_PREC_FP32)
        fprintf(f, "                fcast train defaults to fp32 (no --precision auto yet): pass --precision %s\n",
                fc_precision_name(c->precision));
    fprintf(f, "  largest --windows-batch-size of the default N-HiTS (h=%d, input %d, %s) within %s (%s): ",
            DOCTOR_H, DOCTOR_L, fc_precision_name(c->precision), fc_bytes_text(c->limit, limit, sizeof limit),
            c->limit_source);
    if (c->largest_batch) fprintf(f, "%zu\n", c->largest_batch);
    else fprintf(f, "none: not one window fits\n");
    fprintf(f, "  data for the plan: %s\n", c->data);
}

char *doctor_text(const fcast_doctor *d) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) return NULL;
    print_cpu(f, &d->cpu);
    doctor_gpu_print(f, &d->g);
    print_conclusion(f, &d->c);
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}
