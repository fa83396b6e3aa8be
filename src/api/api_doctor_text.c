/* fcast doctor's report as text (fcast_doctor_text): the CPU, the GPUs
 * (doctor_gpu_print) and the conclusion, as `fcast doctor` prints them. */
#include <stdio.h>
#include <stdlib.h>

#include "api/api_doctor.h"
#include "core/memory_stats.h"
#include "train/dense_peak.h"

static const char *yes_no(int v) { return v ? "yes" : "no"; }

static const char *amx_text(const cpu_report *c) {
    if (!c->info.amx_tile) return "not advertised";
    if (c->amx_works) return c->amx_capped ? "works (fcast's AMX kernels; oneDNN capped below AMX)" : "works (fcast's AMX kernels)";
    return c->amx_capped ? "advertised but does not work here (oneDNN capped below AMX)" : "advertised, not used (FCAST_NO_AMX)";
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
    fprintf(f, "  AMX:          %s\n", amx_text(c));
    fprintf(f, "  bf16 kernels: %s", c->bf16_kernel);
    if (c->bf16_choice.measured)   /* the measured choice (cpu_bf16_choice.c) */
        fprintf(f, " (one thread: fcast's AVX512-BF16 %.0f GFLOP/s, oneDNN %.0f GFLOP/s)", c->bf16_choice.hand_gflops,
                c->bf16_choice.onednn_gflops);
    fprintf(f, "\n");
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
