/* Errors of the CUDA backend. The library keeps no error state of its own:
 * fc_error here formats the message and hands it to the calling program's
 * fc_error (passed to fc_backend_cuda_create), so `fcast` prints what failed
 * inside the library as it prints its own errors. Hidden symbols
 * (-fvisibility=hidden) keep these apart from the program's. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend/cuda/cuda_internal.h"

static fc_error_fn g_report;   /* set once by the entry point, before any other call */

extern "C" void fc_cuda_set_reporter(fc_error_fn report) { g_report = report; }

extern "C" fc_status fc_error(fc_status code, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (g_report) return g_report(code, "%s", msg);
    fprintf(stderr, "fcast (CUDA backend): %s\n", msg);
    return code;
}

extern "C" void *fc_malloc(size_t bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) fc_error(FC_ERR_MEMORY, "out of host memory: %zu bytes for %s", bytes, what);
    return p;
}

extern "C" void *fc_calloc(size_t count, size_t size, const char *what) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) fc_error(FC_ERR_MEMORY, "out of host memory: %zu x %zu bytes for %s", count, size, what);
    return p;
}

fc_status fc_cuda_check(cudaError_t err, const char *call, const char *file, int line) {
    if (err == cudaSuccess) return FC_OK;
    fc_status st = err == cudaErrorMemoryAllocation ? FC_ERR_MEMORY : FC_ERR_BACKEND;
    return fc_error(st, "CUDA: %s failed: %s (%s) at %s:%d", call, cudaGetErrorString(err), cudaGetErrorName(err),
                    file, line);
}

void fc_cuda_note_failure(fc_backend *be, fc_status st) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    if (st != FC_OK && impl->failed == FC_OK) impl->failed = st;
}

fc_status fc_cuda_failure(fc_backend *be) {
    fc_status st = fc_cuda_impl_of(be)->failed;
    if (st != FC_OK)
        return fc_error(st, "the CUDA backend failed earlier in this run (see the first error above); its results "
                        "since then are not valid");
    return FC_OK;
}
