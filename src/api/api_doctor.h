/* What fcast_doctor_run finds (fcast.h), as the library keeps it: the CPU
 * (api_doctor_run.c), the GPUs (api_doctor_gpu.c: the GPUs NVML describes,
 * and for each GPU the CUDA backend opens, the figures only the CUDA
 * runtime can measure: host<->device copy bandwidth, pageable and pinned,
 * and the matrix-product peak per precision; a GPU that cannot run says
 * why) and the conclusion; written as text (api_doctor_text.c) and JSON
 * (api_doctor_json.c). */
#ifndef FC_API_DOCTOR_H
#define FC_API_DOCTOR_H

#include <jansson.h>
#include <stdio.h>

#include "fcast.h"

#include "backend/backend.h"
#include "backend/cpu/cpu_backend.h"
#include "monitor/gpu_monitor.h"
#include "train/copy_bandwidth.h"

#include "monitor/cpu_info.h"

#define DOCTOR_MAX_GPUS 16
#define DOCTOR_COPY_BYTES ((size_t)64 << 20)
#define DOCTOR_COPY_ROUNDS 5

/* The default N-HiTS of fcast bench: horizon 48, input window 96. */
#define DOCTOR_H 48
#define DOCTOR_L 96

/* One cuda:N as the CUDA backend sees it (CUDA's numbering, which
 * CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER change, not NVML's). */
typedef struct {
    int usable;                 /* fc_backend_create("cuda:N") succeeded */
    char reason[768];           /* why nothing (or not everything) was measured; "" when all was */
    fc_copy_bandwidth bw;       /* 0: not measured */
    double peak[FC_PREC_COUNT]; /* GFLOP/s per precision; 0: not measured */
    char kernels[16];           /* which matrix products ran: "cuBLASLt" */
} doctor_cuda;

typedef struct {
    int found, n;               /* n: devices NVML described (at most DOCTOR_MAX_GPUS) */
    char reason[256];           /* why NVML found none */
    char driver[80];
    int cuda;                   /* 12040 is 12.4; 0 unknown */
    fc_gpu_info info[DOCTOR_MAX_GPUS];
    fc_gpu_sample sample[DOCTOR_MAX_GPUS];
    int sampled[DOCTOR_MAX_GPUS];
    int n_cuda;                 /* cuda:0 .. cuda:n_cuda-1 tried: NVML's count, or cuda:0 alone without NVML */
    doctor_cuda cuda_dev[DOCTOR_MAX_GPUS];
} gpu_report;

/* Describes the GPUs through NVML, then opens the CUDA backend on each
 * (cuda:0 alone when NVML lists none) and, unless quick, measures it. No
 * GPU, or one that cannot run, is part of the report, never a failure.
 * *gpu0 is cuda:0's backend when it opened and measured cleanly (the one
 * --device auto takes), for the conclusion; NULL otherwise. */
void doctor_gpu_probe(int quick, gpu_report *g, fc_backend **gpu0);

/* NVML's free memory of GPU 0, 0 when unknown: on a GPU, the default
 * memory limit of the conclusion is no more than it. (NVML's GPU 0 is
 * cuda:0 unless CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER reorder them.) */
size_t doctor_gpu0_free_bytes(const gpu_report *g);

void doctor_gpu_print(FILE *f, const gpu_report *g);
json_t *doctor_gpu_json(const gpu_report *g);

/* v when known, else JSON null (v released). */
json_t *doctor_json_or_null(int known, json_t *v);

typedef struct {
    fc_cpu_info info;
    /* amx_works: AMX runs products here, on fcast's kernel or oneDNN's
     * (its bf16 implementation named AMX); amx_fcast: fcast's own */
    int amx_works, amx_fcast, amx_capped, threads;
    const char *bf16_kernel;   /* fc_backend_cpu_bf16_kernel_name */
    fc_bf16_choice bf16_choice;
    char onednn_fp32[64], onednn_bf16[64];   /* oneDNN's implementations of the N-HiTS layer ("": none) */
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

struct fcast_doctor {
    cpu_report cpu;
    gpu_report g;
    conclusion c;
    char *text, *json;          /* what fcast doctor prints, without and with --json */
};

/* The text of fcast doctor (api_doctor_text.c) and its JSON object
 * (api_doctor_json.c), malloc'ed; NULL when out of memory. */
char *doctor_text(const fcast_doctor *d);
char *doctor_json(const fcast_doctor *d);

#endif
