/* Training data "on the device" for the CPU backend (backend.h, data_*):
 * the CPU's device memory is host memory, so the upload reads the
 * dataset's arrays in place and keeps only what a call needs of its own, a
 * batch's windows and the scaler's scratch. Windows are loaded by the
 * shared bodies (kernels/window_load.h) in OpenMP loops, one window per
 * iteration, as train/batch.c's host path loops over its load_one. */
#include <stdlib.h>
#include <string.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/window_load.h"

typedef struct {
    fc_window_data data;      /* the host dataset's arrays, read in place */
    fc_window_pos *windows;   /* (stages * cap) the staged windows */
    float *scratch;           /* (cap, work) the scaler's */
    size_t cap, stages, work, staged;
} cpu_data;

/* Below this many windows the threads cost more than they save (as in train/batch.c). */
#define FC_CPU_WINDOWS_PAR_MIN 64

/* An arena buffer rounded up to the arena's 64-byte alignment. */
static size_t aligned64(size_t bytes) { return (bytes + 63) / 64 * 64; }

size_t fc_cpu_data_bytes(const fc_backend *be, const fc_window_data *host, size_t cap, size_t stages, size_t work,
                         size_t *per_window) {
    (void)be, (void)host;   /* the dataset itself is not copied */
    *per_window = stages * sizeof(fc_window_pos) + work * sizeof(float);
    return aligned64(stages * cap * sizeof(fc_window_pos)) + aligned64(cap * work * sizeof(float));
}

void fc_cpu_data_release(fc_backend *be, void *data) {
    cpu_data *d = data;
    if (!d) return;
    if (d->windows) be->release(be, d->windows);
    if (d->scratch) be->release(be, d->scratch);
    free(d);
}

fc_status fc_cpu_data_upload(fc_backend *be, const fc_window_data *host, size_t cap, size_t stages, size_t work,
                             void **data) {
    *data = NULL;
    if (!host->y64 || host->y)
        return fc_error(FC_ERR_INVALID, "CPU backend: the training data must come as the dataset's doubles (y64)");
    cpu_data *d = fc_calloc(1, sizeof *d, "training data handle");
    if (!d) return FC_ERR_MEMORY;
    d->data = *host;
    d->cap = cap;
    d->stages = stages;
    d->work = work;
    d->windows = be->alloc(be, stages * cap * sizeof(fc_window_pos));
    d->scratch = d->windows ? be->alloc(be, cap * work * sizeof(float)) : NULL;
    if (!d->scratch) {
        fc_cpu_data_release(be, d);
        return FC_ERR_MEMORY;
    }
    *data = d;
    return FC_OK;
}

fc_status fc_cpu_data_stage(fc_backend *be, void *data, const fc_window_pos *w, size_t n) {
    (void)be;
    cpu_data *d = data;
    if (n > d->stages * d->cap)
        return fc_error(FC_ERR_INVALID, "CPU backend: %zu windows staged at once; room was made for %zu", n,
                        d->stages * d->cap);
    /* Copied as bytes: the caller's array may be train/windows.h's fc_window, of the same layout. */
    if (n) memcpy(d->windows, w, n * sizeof *w);
    d->staged = n;
    return FC_OK;
}

fc_status fc_cpu_data_gather(fc_backend *be, void *data, size_t first, size_t n, const fc_window_batch *out) {
    cpu_data *d = data;
    if (n > d->cap || first > d->staged || n > d->staged - first)
        return fc_error(FC_ERR_INVALID, "CPU backend: windows [%zu, %zu) gathered; %zu are staged and a gather "
                        "has room for %zu", first, first + n, d->staged, d->cap);
    const fc_window_pos *w = d->windows + first;
#pragma omp parallel for if (n >= FC_CPU_WINDOWS_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t k = 0; k < n; k++) fc_window_load_points(&d->data, out, w[k], k);
    return FC_OK;
}

fc_status fc_cpu_data_scale(fc_backend *be, void *data, size_t n, const fc_window_batch *out) {
    cpu_data *d = data;
    if (n > d->cap)
        return fc_error(FC_ERR_INVALID, "CPU backend: %zu windows scaled; a gather has room for %zu", n, d->cap);
#pragma omp parallel for if (n >= FC_CPU_WINDOWS_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t k = 0; k < n; k++) fc_window_scale_row(out, k, d->scratch + k * d->work);
    return FC_OK;
}
