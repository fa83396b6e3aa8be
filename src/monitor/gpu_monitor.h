/* GPU samples (utilisation, memory, temperature, power) through NVML, the
 * library the NVIDIA driver installs, loaded at run time with dlopen so one
 * fcast binary runs with or without a GPU and builds without the CUDA
 * toolkit. Where there is no driver or no GPU, opening says so in one line
 * (FC_ERR_BACKEND) and the caller runs without GPU figures. */
#ifndef FC_MONITOR_GPU_MONITOR_H
#define FC_MONITOR_GPU_MONITOR_H

#include <stddef.h>
#include <stdint.h>
#include "fcast/status.h"

/* The library opened: libnvidia-ml.so.1, or the path in this environment
 * variable (tests point it at a stand-in). */
#define FC_NVML_LIBRARY_ENV "FCAST_NVML_LIBRARY"

typedef struct fc_gpu_monitor fc_gpu_monitor;

typedef struct {
    double util_pct;            /* share of the last sample period with a kernel running, 0..100 */
    uint64_t mem_used_bytes;    /* device memory allocated */
    uint64_t mem_total_bytes;   /* device memory installed */
    double temp_c;              /* GPU die temperature, degrees Celsius */
    double power_w;             /* board power draw, watts */
} fc_gpu_sample;

/* Loads NVML and starts it. FC_ERR_BACKEND with a one-line reason when it
 * cannot: "no NVIDIA driver: libnvidia-ml.so.1 not found", "NVML found but
 * no GPU", a missing entry point, or NVML's own error. *out is NULL then. */
fc_status fc_gpu_monitor_open(fc_gpu_monitor **out);

/* GPUs NVML sees (at least 1 on an open monitor). */
int fc_gpu_monitor_count(const fc_gpu_monitor *m);

/* One sample of GPU `device` (0..count-1). A device out of range is
 * FC_ERR_INVALID; an NVML failure FC_ERR_BACKEND naming the call and the
 * device. *s is zeroed on failure. */
fc_status fc_gpu_monitor_sample(fc_gpu_monitor *m, int device, fc_gpu_sample *s);

/* What a GPU is, for fcast doctor. Every field comes from an NVML entry
 * point that older drivers or some GPUs lack; such a field is unknown
 * ("" or -1) and never an error. */
typedef struct {
    char name[96];              /* "NVIDIA H100 80GB HBM3"; "" unknown */
    int cc_major, cc_minor;     /* CUDA compute capability; -1 unknown */
    uint64_t mem_total_bytes, mem_free_bytes;   /* 0 unknown */
    int pcie_gen, pcie_width;   /* current PCIe link generation and lanes; -1 unknown */
    int pcie_max_gen, pcie_max_width;           /* what the link can reach; -1 unknown */
    int mig_mode;               /* current MIG mode: 1 enabled, 0 disabled, -1 unknown or unsupported */
} fc_gpu_info;

/* Describes GPU `device`; FC_ERR_INVALID only for a device out of range. */
fc_status fc_gpu_monitor_describe(fc_gpu_monitor *m, int device, fc_gpu_info *info);

/* The driver's version text ("550.54.15") into buf; "" when unknown. */
void fc_gpu_monitor_driver_version(fc_gpu_monitor *m, char *buf, size_t cap);

/* The CUDA version the driver supports, as NVML gives it (12040 is 12.4);
 * 0 when unknown. */
int fc_gpu_monitor_cuda_version(fc_gpu_monitor *m);

/* Shuts NVML down and unloads it; sets *m to NULL. */
void fc_gpu_monitor_close(fc_gpu_monitor **m);

#endif
