/* fc_backend_create (src/backend/backend.c): device names, the auto
 * fallback's note, and cuda's refusal naming the check that failed, on a
 * machine without a GPU: the CUDA backend library is either not found or,
 * when built next to this test, refuses for want of a driver or device.
 * The library's other failures (not a library, no entry point, no GPU) are
 * in cli_device.sh, which has the stand-in library at hand. */
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"

static void check_parse(const char *name, fc_device_kind kind, int index) {
    fc_device_kind k = (fc_device_kind)-1;
    int i = -2;
    CHECK(fc_device_parse(name, &k, &i) == FC_OK);
    CHECK(k == kind && i == index);
}

static void check_refused(const char *name) {
    fc_device_kind k;
    int i;
    CHECK(fc_device_parse(name, &k, &i) == FC_ERR_INVALID);
    CHECK_CONTAINS(fc_last_error(), FC_DEVICE_FORMS);
    fc_backend *be = (fc_backend *)&k;   /* must come back NULL */
    CHECK(fc_backend_create(name, 1, &be, NULL, 0) == FC_ERR_INVALID && be == NULL);
}

static void test_names(void) {
    check_parse(NULL, FC_DEVICE_AUTO, -1);
    check_parse("auto", FC_DEVICE_AUTO, -1);
    check_parse("cpu", FC_DEVICE_CPU, -1);
    check_parse("cuda", FC_DEVICE_CUDA, 0);
    check_parse("cuda:0", FC_DEVICE_CUDA, 0);
    check_parse("cuda:7", FC_DEVICE_CUDA, 7);
    check_parse("cuda:1023", FC_DEVICE_CUDA, 1023);
    const char *bad[] = {"", "gpu", "CPU", "cuda:", "cuda:x", "cuda:-1", "cuda:+1", "cuda: 1", "cuda:1 ",
                         "cuda:1024", "cuda:99999999999999999999", "cuda0", "cudax", "auto ", "cpu:0"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) check_refused(bad[i]);
}

static void test_cpu_and_auto(void) {
    char note[512];
    fc_backend *be = NULL;
    CHECK(fc_backend_create("cpu", 1, &be, note, sizeof note) == FC_OK && be && be->threads == 1);
    CHECK(strcmp(note, "device: cpu") == 0);
    fc_backend_destroy(&be);
    CHECK(fc_backend_create(NULL, 1, &be, note, sizeof note) == FC_OK && be && be->host_visible);
    CHECK_MSG(strstr(note, "device: cpu (no GPU: libfcast-cuda.so not found") ||
              strstr(note, "device: cpu (no GPU: no NVIDIA driver") || strstr(note, "device: cpu (no GPU: no CUDA device"),
              "note: %s", note);
    fc_backend_destroy(&be);
    CHECK(fc_backend_create("auto", 1, &be, note, 8) == FC_OK && be && strlen(note) == 7);   /* cut, not overrun */
    fc_backend_destroy(&be);
    CHECK(fc_backend_create("cpu", -1, &be, note, sizeof note) == FC_ERR_INVALID && be == NULL);
}

static void test_cuda_refused(void) {
    fc_backend *be = NULL;
    char note[64] = "untouched";
    CHECK(fc_backend_create("cuda:2", 1, &be, note, sizeof note) == FC_ERR_BACKEND && be == NULL);
    const char *e = fc_last_error();
    CHECK_MSG(strstr(e, "device cuda:2: no CUDA backend: libfcast-cuda.so not found") ||
              strstr(e, "device cuda:2: no NVIDIA driver") || strstr(e, "device cuda:2: no CUDA device") ||
              strstr(e, "device cuda:2: no such GPU"), "error: %s", e);
    CHECK(fc_backend_create("cuda", 1, &be, NULL, 0) == FC_ERR_BACKEND && be == NULL);
    CHECK_CONTAINS(fc_last_error(), "device cuda:0:");
}

int main(void) {
    unsetenv("FCAST_CUDA_BACKEND");   /* the library is looked for where fcast's would be: not there */
    test_names();
    test_cpu_and_auto();
    test_cuda_refused();
    return CHECK_DONE();
}
