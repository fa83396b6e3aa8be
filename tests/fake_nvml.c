/* A stand-in for libnvidia-ml.so.1 with known answers, so test_gpu_monitor
 * checks the NVML monitor on machines without a GPU. Built as a shared
 * library three ways (see the CMake lines in CMakeLists.txt):
 *   default                 2 GPUs, util 87 %, 1 GiB used of 16 GiB, 61 C, 210500 mW
 *   FAKE_NVML_NO_POWER      without nvmlDeviceGetPowerUsage (a missing entry point)
 *   FAKE_NVML_DEVICES=0     NVML that finds no GPU
 * FAKE_NVML_FAIL=<call name> in the environment makes that call fail with
 * NVML_ERROR_NOT_SUPPORTED; FAKE_NVML_FAIL=describe makes every descriptive
 * call (name, compute capability, versions, PCIe, MIG) fail at once.
 * Descriptive answers: "Fake GPU 16GB", compute capability 8.0, driver
 * 550.54.15, CUDA 12.4 (12040), PCIe gen 4 x16 of gen 5 x16, MIG disabled
 * on GPU 0 and enabled on GPU 1. Signatures as in nvml.h (see gpu_monitor.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef FAKE_NVML_DEVICES
#define FAKE_NVML_DEVICES 2
#endif

enum { OK = 0, ERROR_UNINITIALIZED = 1, ERROR_INVALID_ARGUMENT = 2, ERROR_NOT_SUPPORTED = 3 };

typedef struct nvml_device_st *nvml_device;
typedef struct { unsigned int gpu, memory; } nvml_utilization;
typedef struct { unsigned long long total, free, used; } nvml_memory;

/* Initialisations not yet shut down: the test checks it returns to 0. */
int fake_nvml_live = 0;

static int failing(const char *call) {
    const char *f = getenv("FAKE_NVML_FAIL");
    return f && strcmp(f, call) == 0;
}

/* Devices are the addresses of these, as NVML's handles are opaque pointers. */
static char devices[FAKE_NVML_DEVICES + 1];
static const unsigned int n_devices = FAKE_NVML_DEVICES;   /* a variable: no always-false warning at 0 */

static int check(nvml_device d, const char *call) {
    if (fake_nvml_live <= 0) return ERROR_UNINITIALIZED;
    if ((char *)d < devices || (char *)d >= devices + FAKE_NVML_DEVICES) return ERROR_INVALID_ARGUMENT;
    return failing(call) ? ERROR_NOT_SUPPORTED : OK;
}

int nvmlInit_v2(void) {
    if (failing("nvmlInit_v2")) return ERROR_NOT_SUPPORTED;
    fake_nvml_live++;
    return OK;
}

int nvmlShutdown(void) {
    if (fake_nvml_live <= 0) return ERROR_UNINITIALIZED;
    fake_nvml_live--;
    return OK;
}

int nvmlDeviceGetCount_v2(unsigned int *n) {
    if (fake_nvml_live <= 0) return ERROR_UNINITIALIZED;
    *n = n_devices;
    return OK;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvml_device *d) {
    if (fake_nvml_live <= 0) return ERROR_UNINITIALIZED;
    if (index >= n_devices) return ERROR_INVALID_ARGUMENT;
    *d = (nvml_device)(devices + index);
    return OK;
}

int nvmlDeviceGetUtilizationRates(nvml_device d, nvml_utilization *u) {
    int r = check(d, "nvmlDeviceGetUtilizationRates");
    if (r == OK) u->gpu = 87, u->memory = 40;
    return r;
}

int nvmlDeviceGetMemoryInfo(nvml_device d, nvml_memory *m) {
    int r = check(d, "nvmlDeviceGetMemoryInfo");
    if (r == OK) m->total = 16ULL << 30, m->used = 1ULL << 30, m->free = m->total - m->used;
    return r;
}

int nvmlDeviceGetTemperature(nvml_device d, int sensor, unsigned int *celsius) {
    int r = check(d, "nvmlDeviceGetTemperature");
    if (r == OK && sensor != 0) r = ERROR_INVALID_ARGUMENT;   /* only NVML_TEMPERATURE_GPU */
    if (r == OK) *celsius = 61;
    return r;
}

#ifndef FAKE_NVML_NO_POWER
int nvmlDeviceGetPowerUsage(nvml_device d, unsigned int *milliwatts) {
    int r = check(d, "nvmlDeviceGetPowerUsage");
    if (r == OK) *milliwatts = 210500;
    return r;
}
#endif

/* ---- descriptive calls (optional in gpu_monitor.c) ---- */

static int check_described(nvml_device d, const char *call) {
    int r = check(d, call);
    return r == OK && failing("describe") ? ERROR_NOT_SUPPORTED : r;
}

int nvmlDeviceGetName(nvml_device d, char *name, unsigned int length) {
    int r = check_described(d, "nvmlDeviceGetName");
    if (r == OK) snprintf(name, length, "Fake GPU 16GB");
    return r;
}

int nvmlDeviceGetCudaComputeCapability(nvml_device d, int *major, int *minor) {
    int r = check_described(d, "nvmlDeviceGetCudaComputeCapability");
    if (r == OK) *major = 8, *minor = 0;
    return r;
}

static int system_call(const char *call) {
    if (fake_nvml_live <= 0) return ERROR_UNINITIALIZED;
    return failing(call) || failing("describe") ? ERROR_NOT_SUPPORTED : OK;
}

int nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    int r = system_call("nvmlSystemGetDriverVersion");
    if (r == OK) snprintf(version, length, "550.54.15");
    return r;
}

int nvmlSystemGetCudaDriverVersion(int *version) {
    int r = system_call("nvmlSystemGetCudaDriverVersion");
    if (r == OK) *version = 12040;
    return r;
}

static int link_figure(nvml_device d, const char *call, unsigned int value, unsigned int *out) {
    int r = check_described(d, call);
    if (r == OK) *out = value;
    return r;
}

int nvmlDeviceGetCurrPcieLinkGeneration(nvml_device d, unsigned int *gen) {
    return link_figure(d, "nvmlDeviceGetCurrPcieLinkGeneration", 4, gen);
}

int nvmlDeviceGetCurrPcieLinkWidth(nvml_device d, unsigned int *width) {
    return link_figure(d, "nvmlDeviceGetCurrPcieLinkWidth", 16, width);
}

int nvmlDeviceGetMaxPcieLinkGeneration(nvml_device d, unsigned int *gen) {
    return link_figure(d, "nvmlDeviceGetMaxPcieLinkGeneration", 5, gen);
}

int nvmlDeviceGetMaxPcieLinkWidth(nvml_device d, unsigned int *width) {
    return link_figure(d, "nvmlDeviceGetMaxPcieLinkWidth", 16, width);
}

int nvmlDeviceGetMigMode(nvml_device d, unsigned int *current, unsigned int *pending) {
    int r = check_described(d, "nvmlDeviceGetMigMode");
    if (r == OK) *current = *pending = (char *)d == devices + 1;
    return r;
}

const char *nvmlErrorString(int r) {
    switch (r) {
    case OK: return "Success";
    case ERROR_UNINITIALIZED: return "Uninitialized";
    case ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case ERROR_NOT_SUPPORTED: return "Not Supported";
    }
    return "Unknown Error";
}
