/* What the CPU is, as fcast doctor reports it: model name, the ISA
 * extensions fcast's kernels choose between (AVX-512, AVX512-BF16, AMX),
 * cores and memory. Read from /proc/cpuinfo and /proc/meminfo, so Linux
 * only; what cannot be read stays empty or 0 and is reported as unknown.
 * Advertised is not working: AMX can be listed and still fault (a kernel
 * that does not grant the tile state), which fc_backend_cpu_uses_amx()
 * checks by running it; these are the advertised flags only. */
#ifndef FC_MONITOR_CPU_INFO_H
#define FC_MONITOR_CPU_INFO_H

#include <stddef.h>

typedef struct {
    char model[128];        /* "model name" of the first processor; "" when unknown */
    int avx512f, avx512_bf16, amx_tile, amx_bf16;   /* 1: advertised in "flags" */
    int logical_cpus;       /* processors online (threads, not cores) */
    int physical_cores;     /* distinct (physical id, core id) pairs; 0 when unknown */
    size_t mem_total;       /* MemTotal, bytes; 0 when unknown */
    size_t mem_available;   /* MemAvailable, bytes; 0 when unknown */
} fc_cpu_info;

/* Fills *info; never fails (unknown fields are left empty or 0). */
void fc_cpu_info_read(fc_cpu_info *info);

#endif
