/* The NVML GPU monitor: without a driver, opening fails in one line that
 * says why; against a stand-in NVML (tests/fake_nvml.c, built by CMake
 * into three libraries whose paths arrive as FC_FAKE_NVML_*PATH), every
 * field of a sample, device bounds, a failing call, a missing entry point,
 * no GPU, and NVML shut down on close. Without those definitions (the fake
 * not built) the paths may come from the environment variables of the same
 * names; else that part is skipped and says so. */
#include "check.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "core/error.h"
#include "monitor/gpu_monitor.h"

static const char *fake_path(const char *env, const char *built) {
    const char *p = getenv(env);
    return p && *p ? p : built;
}

#ifdef FC_FAKE_NVML_PATH
#define FAKE_FULL FC_FAKE_NVML_PATH
#else
#define FAKE_FULL NULL
#endif
#ifdef FC_FAKE_NVML_NOPOWER_PATH
#define FAKE_NOPOWER FC_FAKE_NVML_NOPOWER_PATH
#else
#define FAKE_NOPOWER NULL
#endif
#ifdef FC_FAKE_NVML_NOGPU_PATH
#define FAKE_NOGPU FC_FAKE_NVML_NOGPU_PATH
#else
#define FAKE_NOGPU NULL
#endif

static fc_status open_with(const char *library, fc_gpu_monitor **m) {
    setenv(FC_NVML_LIBRARY_ENV, library, 1);
    fc_status st = fc_gpu_monitor_open(m);
    unsetenv(FC_NVML_LIBRARY_ENV);
    return st;
}

/* No driver: a clean FC_ERR_BACKEND with the reason, both for the default
 * name (on a machine with a GPU that one opens, and must then sample) and
 * for a library path that does not exist. */
static void test_no_driver(void) {
    fc_gpu_monitor *m = (fc_gpu_monitor *)1;
    unsetenv(FC_NVML_LIBRARY_ENV);
    fc_status st = fc_gpu_monitor_open(&m);
    if (st == FC_OK) {
        fc_gpu_sample s;
        fprintf(stderr, "NVML present: %d GPU(s)\n", fc_gpu_monitor_count(m));
        CHECK(fc_gpu_monitor_count(m) >= 1);
        CHECK_MSG(fc_gpu_monitor_sample(m, 0, &s) == FC_OK, "%s", fc_last_error());
        CHECK(s.mem_total_bytes > 0 && s.mem_used_bytes <= s.mem_total_bytes);
        fc_gpu_monitor_close(&m);
        CHECK(m == NULL);
    } else {
        CHECK(st == FC_ERR_BACKEND && m == NULL);
        fprintf(stderr, "as expected here: %s\n", fc_last_error());
        CHECK(strstr(fc_last_error(), "no NVIDIA driver: libnvidia-ml.so.1 not found") ||
              strstr(fc_last_error(), "NVML found but"));
    }
    char dir[] = "/tmp/fcast_test_gpu_XXXXXX", path[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/libnvidia-ml.so.1", dir);
    m = (fc_gpu_monitor *)1;
    CHECK(open_with(path, &m) == FC_ERR_BACKEND && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "no NVIDIA driver:");
    CHECK_CONTAINS(fc_last_error(), path);
    CHECK_CONTAINS(fc_last_error(), "not found");
    CHECK(strchr(fc_last_error(), '\n') == NULL);   /* one line */
    FILE *f = fopen(path, "w");                      /* there, but not a library */
    CHECK(f && fputs("not ELF\n", f) >= 0 && fclose(f) == 0);
    CHECK(open_with(path, &m) == FC_ERR_BACKEND && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "cannot be loaded");
    remove(path);
    rmdir(dir);
    fc_gpu_monitor_close(&m);   /* closing nothing is a no-op */
}

static void test_fake_samples(const char *lib) {
    void *keep = dlopen(lib, RTLD_NOW | RTLD_LOCAL);   /* to read its counter after close */
    CHECK_MSG(keep != NULL, "%s", dlerror());
    int *live = keep ? dlsym(keep, "fake_nvml_live") : NULL;
    CHECK(live != NULL);
    fc_gpu_monitor *m = NULL;
    CHECK_MSG(open_with(lib, &m) == FC_OK, "%s", fc_last_error());
    if (!m) return;
    CHECK(live && *live == 1);
    CHECK(fc_gpu_monitor_count(m) == 2);
    for (int d = 0; d < 2; d++) {
        fc_gpu_sample s;
        CHECK_MSG(fc_gpu_monitor_sample(m, d, &s) == FC_OK, "%s", fc_last_error());
        CHECK(s.util_pct == 87.0);
        CHECK(s.mem_used_bytes == (uint64_t)1 << 30);
        CHECK(s.mem_total_bytes == (uint64_t)16 << 30);
        CHECK(s.temp_c == 61.0);
        CHECK_CLOSE(s.power_w, 210.5, 1e-12, 0);
    }
    fc_gpu_sample s = {.util_pct = 5};
    CHECK(fc_gpu_monitor_sample(m, 2, &s) == FC_ERR_INVALID && s.util_pct == 0);
    CHECK_CONTAINS(fc_last_error(), "GPU 2 does not exist: NVML sees 2 GPUs");
    CHECK(fc_gpu_monitor_sample(m, -1, &s) == FC_ERR_INVALID);
    /* A call that fails is named, with NVML's own message; nothing half-filled. */
    setenv("FAKE_NVML_FAIL", "nvmlDeviceGetTemperature", 1);
    CHECK(fc_gpu_monitor_sample(m, 1, &s) == FC_ERR_BACKEND);
    CHECK_CONTAINS(fc_last_error(), "GPU 1: nvmlDeviceGetTemperature failed: Not Supported");
    CHECK(s.util_pct == 0 && s.mem_total_bytes == 0);
    unsetenv("FAKE_NVML_FAIL");
    fc_gpu_monitor_close(&m);
    CHECK(m == NULL);
    CHECK(live && *live == 0);   /* nvmlShutdown was called */
    /* nvmlInit failing: NVML's reason, and nothing left initialised. */
    setenv("FAKE_NVML_FAIL", "nvmlInit_v2", 1);
    CHECK(open_with(lib, &m) == FC_ERR_BACKEND && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "NVML found but it cannot start: Not Supported");
    unsetenv("FAKE_NVML_FAIL");
    if (keep) dlclose(keep);
}

/* The descriptive fields, then the same with every descriptive call
 * failing: unknown ("" or -1), never an error. */
static void test_fake_describe(const char *lib) {
    fc_gpu_monitor *m = NULL;
    fc_gpu_info info;
    char driver[80];
    CHECK(open_with(lib, &m) == FC_OK);
    CHECK(fc_gpu_monitor_describe(m, 0, &info) == FC_OK);
    CHECK(!strcmp(info.name, "Fake GPU 16GB") && info.cc_major == 8 && info.cc_minor == 0);
    CHECK(info.mem_total_bytes == 16ULL << 30 && info.mem_free_bytes == 15ULL << 30);
    CHECK(info.pcie_gen == 4 && info.pcie_width == 16 && info.pcie_max_gen == 5 && info.pcie_max_width == 16);
    CHECK(info.mig_mode == 0);
    CHECK(fc_gpu_monitor_describe(m, 1, &info) == FC_OK && info.mig_mode == 1);
    CHECK(fc_gpu_monitor_describe(m, 2, &info) == FC_ERR_INVALID);
    fc_gpu_monitor_driver_version(m, driver, sizeof driver);
    CHECK(!strcmp(driver, "550.54.15") && fc_gpu_monitor_cuda_version(m) == 12040);
    setenv("FAKE_NVML_FAIL", "describe", 1);
    CHECK(fc_gpu_monitor_describe(m, 0, &info) == FC_OK);
    CHECK(info.name[0] == '\0' && info.cc_major == -1 && info.pcie_gen == -1 && info.mig_mode == -1);
    CHECK(info.mem_total_bytes == 16ULL << 30);   /* memory is not descriptive: still there */
    fc_gpu_monitor_driver_version(m, driver, sizeof driver);
    CHECK(driver[0] == '\0' && fc_gpu_monitor_cuda_version(m) == 0);
    unsetenv("FAKE_NVML_FAIL");
    fc_gpu_monitor_close(&m);
}

static void test_fake_missing_symbol(const char *lib) {
    fc_gpu_monitor *m = (fc_gpu_monitor *)1;
    CHECK(open_with(lib, &m) == FC_ERR_BACKEND && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "lacks nvmlDeviceGetPowerUsage");
    CHECK_CONTAINS(fc_last_error(), lib);
}

static void test_fake_no_gpu(const char *lib) {
    void *keep = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    int *live = keep ? dlsym(keep, "fake_nvml_live") : NULL;
    fc_gpu_monitor *m = (fc_gpu_monitor *)1;
    CHECK(open_with(lib, &m) == FC_ERR_BACKEND && m == NULL);
    CHECK_CONTAINS(fc_last_error(), "NVML found but no GPU");
    CHECK(live && *live == 0);   /* shut down again before giving up */
    if (keep) dlclose(keep);
}

int main(void) {
    test_no_driver();
    const char *full = fake_path("FC_FAKE_NVML_PATH", FAKE_FULL);
    const char *nopower = fake_path("FC_FAKE_NVML_NOPOWER_PATH", FAKE_NOPOWER);
    const char *nogpu = fake_path("FC_FAKE_NVML_NOGPU_PATH", FAKE_NOGPU);
    if (full) test_fake_samples(full);
    if (full) test_fake_describe(full);
    if (nopower) test_fake_missing_symbol(nopower);
    if (nogpu) test_fake_no_gpu(nogpu);
    if (!full || !nopower || !nogpu)
        fprintf(stderr, "skipped: fake NVML libraries not built (FC_FAKE_NVML_PATH, "
                "FC_FAKE_NVML_NOPOWER_PATH, FC_FAKE_NVML_NOGPU_PATH)\n");
    return CHECK_DONE();
}
