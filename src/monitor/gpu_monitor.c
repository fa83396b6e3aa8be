/* NVML loaded at run time (see gpu_monitor.h).
 *
 * nvml.h is not included, so fcast builds where the CUDA toolkit is absent.
 * The few types and prototypes used are declared here as NVML documents
 * them (NVML API Reference, "Device Queries" and "Initialization and
 * Cleanup"; nvml.h, which keeps them stable across driver releases):
 *   nvmlReturn_t          enum, NVML_SUCCESS = 0
 *   nvmlDevice_t          struct nvmlDevice_st *, opaque
 *   nvmlUtilization_t     { unsigned int gpu, memory; }            percent
 *   nvmlMemory_t          { unsigned long long total, free, used; } bytes
 *   nvmlTemperatureSensors_t  NVML_TEMPERATURE_GPU = 0              degrees C
 *   nvmlDeviceGetPowerUsage   unsigned int milliwatts
 * The _v2 entry points are the ones nvml.h maps nvmlInit,
 * nvmlDeviceGetCount and nvmlDeviceGetHandleByIndex to since CUDA 5.5. */
#include "monitor/gpu_monitor.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"

typedef int nvml_return;                        /* nvmlReturn_t */
typedef struct nvml_device_st *nvml_device;     /* nvmlDevice_t */
typedef struct { unsigned int gpu, memory; } nvml_utilization;            /* nvmlUtilization_t */
typedef struct { unsigned long long total, free, used; } nvml_memory;     /* nvmlMemory_t */
enum { NVML_OK = 0, NVML_TEMPERATURE_GPU = 0 };

typedef struct {
    nvml_return (*init)(void);
    nvml_return (*shutdown)(void);
    nvml_return (*count)(unsigned int *n);
    nvml_return (*handle)(unsigned int index, nvml_device *device);
    nvml_return (*utilization)(nvml_device device, nvml_utilization *u);
    nvml_return (*memory)(nvml_device device, nvml_memory *m);
    nvml_return (*temperature)(nvml_device device, int sensor, unsigned int *celsius);
    nvml_return (*power)(nvml_device device, unsigned int *milliwatts);
    const char *(*error_string)(nvml_return r);
} nvml_api;

/* Entry points fcast doctor uses for description only: optional, NULL
 * when the library lacks them (nvml.h signatures). */
typedef struct {
    nvml_return (*name)(nvml_device device, char *name, unsigned int length);
    nvml_return (*compute_capability)(nvml_device device, int *major, int *minor);
    nvml_return (*driver_version)(char *version, unsigned int length);
    nvml_return (*cuda_version)(int *version);
    nvml_return (*pcie_gen)(nvml_device device, unsigned int *gen);
    nvml_return (*pcie_width)(nvml_device device, unsigned int *width);
    nvml_return (*pcie_max_gen)(nvml_device device, unsigned int *gen);
    nvml_return (*pcie_max_width)(nvml_device device, unsigned int *width);
    nvml_return (*mig_mode)(nvml_device device, unsigned int *current, unsigned int *pending);
} nvml_optional_api;

struct fc_gpu_monitor {
    void *lib;          /* dlopen handle */
    nvml_api api;
    nvml_optional_api opt;
    int count;
};

/* Name and slot of every entry point, so a missing one is named. */
static const struct { const char *name; size_t offset; } entry_points[] = {
    {"nvmlInit_v2", offsetof(nvml_api, init)},
    {"nvmlShutdown", offsetof(nvml_api, shutdown)},
    {"nvmlDeviceGetCount_v2", offsetof(nvml_api, count)},
    {"nvmlDeviceGetHandleByIndex_v2", offsetof(nvml_api, handle)},
    {"nvmlDeviceGetUtilizationRates", offsetof(nvml_api, utilization)},
    {"nvmlDeviceGetMemoryInfo", offsetof(nvml_api, memory)},
    {"nvmlDeviceGetTemperature", offsetof(nvml_api, temperature)},
    {"nvmlDeviceGetPowerUsage", offsetof(nvml_api, power)},
    {"nvmlErrorString", offsetof(nvml_api, error_string)},
};

/* dlsym returns void *; POSIX guarantees it converts to a function
 * pointer, which memcpy does without a cast the C standard leaves open. */
static fc_status resolve(fc_gpu_monitor *m, const char *path) {
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++) {
        void *sym = dlsym(m->lib, entry_points[i].name);
        if (!sym)
            return fc_error(FC_ERR_BACKEND, "NVML in %s lacks %s: the NVIDIA driver is too old or "
                            "the library is not NVML", path, entry_points[i].name);
        memcpy((char *)&m->api + entry_points[i].offset, &sym, sizeof sym);
    }
    return FC_OK;
}

static const struct { const char *name; size_t offset; } optional_entry_points[] = {
    {"nvmlDeviceGetName", offsetof(nvml_optional_api, name)},
    {"nvmlDeviceGetCudaComputeCapability", offsetof(nvml_optional_api, compute_capability)},
    {"nvmlSystemGetDriverVersion", offsetof(nvml_optional_api, driver_version)},
    {"nvmlSystemGetCudaDriverVersion", offsetof(nvml_optional_api, cuda_version)},
    {"nvmlDeviceGetCurrPcieLinkGeneration", offsetof(nvml_optional_api, pcie_gen)},
    {"nvmlDeviceGetCurrPcieLinkWidth", offsetof(nvml_optional_api, pcie_width)},
    {"nvmlDeviceGetMaxPcieLinkGeneration", offsetof(nvml_optional_api, pcie_max_gen)},
    {"nvmlDeviceGetMaxPcieLinkWidth", offsetof(nvml_optional_api, pcie_max_width)},
    {"nvmlDeviceGetMigMode", offsetof(nvml_optional_api, mig_mode)},
};

/* Missing ones stay NULL: the fields they give are reported unknown. */
static void resolve_optional(fc_gpu_monitor *m) {
    for (size_t i = 0; i < sizeof optional_entry_points / sizeof optional_entry_points[0]; i++) {
        void *sym = dlsym(m->lib, optional_entry_points[i].name);
        if (sym) memcpy((char *)&m->opt + optional_entry_points[i].offset, &sym, sizeof sym);
    }
}

static const char *nvml_error(const fc_gpu_monitor *m, nvml_return r) {
    const char *s = m->api.error_string ? m->api.error_string(r) : NULL;
    return s ? s : "unknown NVML error";
}

/* Initialised NVML is shut down here, exactly once, before unloading. */
static fc_status start(fc_gpu_monitor *m) {
    nvml_return r = m->api.init();
    if (r != NVML_OK) return fc_error(FC_ERR_BACKEND, "NVML found but it cannot start: %s", nvml_error(m, r));
    unsigned int n = 0;
    r = m->api.count(&n);
    if (r != NVML_OK || n == 0) {
        m->api.shutdown();
        return r != NVML_OK ? fc_error(FC_ERR_BACKEND, "NVML found but cannot count GPUs: %s", nvml_error(m, r))
                            : fc_error(FC_ERR_BACKEND, "NVML found but no GPU");
    }
    m->count = n > 4096 ? 4096 : (int)n;   /* an absurd count is a broken library, not 4 billion GPUs */
    return FC_OK;
}

/* Absent is the common case (no driver) and gets the short line; a file
 * that is there but does not load gets the loader's reason. */
static fc_status load_failed(const char *path) {
    if (strchr(path, '/') && access(path, F_OK) == 0)
        return fc_error(FC_ERR_BACKEND, "NVML at %s cannot be loaded: %s", path, dlerror());
    return fc_error(FC_ERR_BACKEND, "no NVIDIA driver: %s not found", path);
}

fc_status fc_gpu_monitor_open(fc_gpu_monitor **out) {
    *out = NULL;
    const char *path = getenv(FC_NVML_LIBRARY_ENV);
    if (!path || !*path) path = "libnvidia-ml.so.1";
    fc_gpu_monitor *m = fc_calloc(1, sizeof *m, "GPU monitor");
    if (!m) return FC_ERR_MEMORY;
    m->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    fc_status st = m->lib ? resolve(m, path) : load_failed(path);
    if (st == FC_OK) resolve_optional(m);
    if (st == FC_OK) st = start(m);
    if (st != FC_OK) {
        if (m->lib) dlclose(m->lib);
        free(m);
        return st;
    }
    *out = m;
    return FC_OK;
}

int fc_gpu_monitor_count(const fc_gpu_monitor *m) { return m ? m->count : 0; }

static fc_status call_failed(const fc_gpu_monitor *m, const char *call, int device, nvml_return r) {
    return fc_error(FC_ERR_BACKEND, "GPU %d: %s failed: %s", device, call, nvml_error(m, r));
}

static fc_status read_sample(fc_gpu_monitor *m, int device, fc_gpu_sample *s) {
    nvml_device d;
    nvml_utilization u;
    nvml_memory mem;
    unsigned int celsius, milliwatts;
    nvml_return r;
    if ((r = m->api.handle((unsigned int)device, &d)) != NVML_OK)
        return call_failed(m, "nvmlDeviceGetHandleByIndex_v2", device, r);
    if ((r = m->api.utilization(d, &u)) != NVML_OK) return call_failed(m, "nvmlDeviceGetUtilizationRates", device, r);
    if ((r = m->api.memory(d, &mem)) != NVML_OK) return call_failed(m, "nvmlDeviceGetMemoryInfo", device, r);
    if ((r = m->api.temperature(d, NVML_TEMPERATURE_GPU, &celsius)) != NVML_OK)
        return call_failed(m, "nvmlDeviceGetTemperature", device, r);
    if ((r = m->api.power(d, &milliwatts)) != NVML_OK) return call_failed(m, "nvmlDeviceGetPowerUsage", device, r);
    s->util_pct = u.gpu;
    s->mem_used_bytes = mem.used;
    s->mem_total_bytes = mem.total;
    s->temp_c = celsius;
    s->power_w = milliwatts / 1000.0;
    return FC_OK;
}

fc_status fc_gpu_monitor_sample(fc_gpu_monitor *m, int device, fc_gpu_sample *s) {
    memset(s, 0, sizeof *s);
    if (!m || device < 0 || device >= m->count)
        return fc_error(FC_ERR_INVALID, "GPU %d does not exist: NVML sees %d GPU%s", device,
                        fc_gpu_monitor_count(m), fc_gpu_monitor_count(m) == 1 ? "" : "s");
    fc_status st = read_sample(m, device, s);
    if (st != FC_OK) memset(s, 0, sizeof *s);
    return st;
}

/* An unsigned NVML figure as int, -1 when the call is absent or fails. */
static int optional_uint(nvml_return (*call)(nvml_device, unsigned int *), nvml_device d) {
    unsigned int v = 0;
    return call && call(d, &v) == NVML_OK && v <= 1000000 ? (int)v : -1;
}

static void describe_optional(const fc_gpu_monitor *m, nvml_device d, fc_gpu_info *info) {
    if (m->opt.name && m->opt.name(d, info->name, sizeof info->name) == NVML_OK)
        info->name[sizeof info->name - 1] = '\0';
    else
        info->name[0] = '\0';
    if (!m->opt.compute_capability || m->opt.compute_capability(d, &info->cc_major, &info->cc_minor) != NVML_OK)
        info->cc_major = info->cc_minor = -1;
    info->pcie_gen = optional_uint(m->opt.pcie_gen, d);
    info->pcie_width = optional_uint(m->opt.pcie_width, d);
    info->pcie_max_gen = optional_uint(m->opt.pcie_max_gen, d);
    info->pcie_max_width = optional_uint(m->opt.pcie_max_width, d);
    unsigned int current = 0, pending = 0;
    info->mig_mode = m->opt.mig_mode && m->opt.mig_mode(d, &current, &pending) == NVML_OK ? current != 0 : -1;
}

fc_status fc_gpu_monitor_describe(fc_gpu_monitor *m, int device, fc_gpu_info *info) {
    memset(info, 0, sizeof *info);
    info->cc_major = info->cc_minor = info->pcie_gen = info->pcie_width = -1;
    info->pcie_max_gen = info->pcie_max_width = info->mig_mode = -1;
    if (!m || device < 0 || device >= m->count)
        return fc_error(FC_ERR_INVALID, "GPU %d does not exist: NVML sees %d GPU%s", device,
                        fc_gpu_monitor_count(m), fc_gpu_monitor_count(m) == 1 ? "" : "s");
    nvml_device d;
    if (m->api.handle((unsigned int)device, &d) != NVML_OK) return FC_OK;   /* all unknown */
    nvml_memory mem;
    if (m->api.memory(d, &mem) == NVML_OK) info->mem_total_bytes = mem.total, info->mem_free_bytes = mem.free;
    describe_optional(m, d, info);
    return FC_OK;
}

void fc_gpu_monitor_driver_version(fc_gpu_monitor *m, char *buf, size_t cap) {
    if (!cap) return;
    buf[0] = '\0';
    if (!m || !m->opt.driver_version || cap > 4096) return;
    if (m->opt.driver_version(buf, (unsigned int)cap) != NVML_OK) buf[0] = '\0';
    buf[cap - 1] = '\0';
}

int fc_gpu_monitor_cuda_version(fc_gpu_monitor *m) {
    int v = 0;
    return m && m->opt.cuda_version && m->opt.cuda_version(&v) == NVML_OK && v > 0 ? v : 0;
}

void fc_gpu_monitor_close(fc_gpu_monitor **pm) {
    fc_gpu_monitor *m = *pm;
    if (!m) return;
    m->api.shutdown();
    dlclose(m->lib);
    free(m);
    *pm = NULL;
}
