/* Training data on the device (backend.h, data_*): the dataset's values
 * (as float), mask and per-series offsets are copied to the GPU once, and
 * each micro-batch's windows are gathered and split, then scaled, there,
 * one thread per window over the CPU's bodies (kernels/window_load.h), straight
 * into the batch's device buffers. A step then sends only its window
 * indices, 16 bytes a window, once for all its micro-batches (data_stage,
 * outside any graph); each micro-batch's gather (data_gather) reads them
 * from device memory, so it can be replayed in the step's graph. Drawing
 * the windows stays on the host (train/trainer.c).
 *
 * Every buffer comes from the backend's alloc (the run's arena, sized by
 * the memory plan through data_bytes), all at upload: a call allocates
 * nothing. Everything runs on impl->stream, in order with the step's other
 * work. */
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_internal.h"
#include "kernels/window_load.h"

typedef struct {
    float *y;                 /* (n_rows) the values, converted to float at upload */
    uint8_t *mask;            /* (n_rows) */
    size_t *offsets;          /* (n_series + 1) */
    fc_window_pos *windows;   /* (stages * cap) the staged windows of a step */
    fc_window_pos *staged;    /* (stages * cap) their pinned host copy (host_alloc), which the device copy reads */
    cudaEvent_t copied;       /* recorded after that copy: staged may be refilled once it has passed */
    float *scratch;           /* (cap, work) the scaler's */
    size_t cap, stages, work;
    size_t n_staged;          /* windows staged last */
    fc_window_data data;      /* the body's view of y, mask and offsets */
} cuda_data;

/* Values converted on the host per slice of this many, so the upload needs
 * no host copy of the whole column. */
#define FC_CUDA_UPLOAD_SLICE ((size_t)1 << 18)

/* Threads per block of the window kernel: a batch has a few hundred to a
 * few thousand windows, each a long serial loop, so small blocks spread
 * them over more multiprocessors than FC_LAUNCH_BLOCK would. */
#define FC_WINDOW_BLOCK 64u

/* An arena buffer rounded up to the arena's alignment. */
static size_t aligned(size_t bytes) { return (bytes + FC_CUDA_ALIGN - 1) / FC_CUDA_ALIGN * FC_CUDA_ALIGN; }

size_t fc_cuda_data_bytes(const fc_backend *be, const fc_window_data *host, size_t cap, size_t stages, size_t work,
                          size_t *per_window) {
    (void)be;
    *per_window = stages * sizeof(fc_window_pos) + work * sizeof(float);
    return aligned(host->n_rows * sizeof(float)) + aligned(host->n_rows) +
           aligned((host->n_series + 1) * sizeof(size_t)) + aligned(stages * cap * sizeof(fc_window_pos)) +
           aligned(cap * work * sizeof(float));
}

void fc_cuda_data_release(fc_backend *be, void *data) {
    cuda_data *d = (cuda_data *)data;
    if (!d) return;
    void *bufs[] = {d->y, d->mask, d->offsets, d->windows, d->scratch};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        if (bufs[i]) be->release(be, bufs[i]);
    if (d->staged) be->host_release(be, d->staged);
    if (d->copied) fc_cuda_note_failure(be, FC_CUDA(cudaEventDestroy(d->copied)));
    free(d);
}

static fc_status alloc_buffers(fc_backend *be, cuda_data *d, const fc_window_data *host) {
    d->y = (float *)be->alloc(be, host->n_rows * sizeof(float));
    if (!d->y) return FC_ERR_MEMORY;
    d->mask = (uint8_t *)be->alloc(be, host->n_rows);
    if (!d->mask) return FC_ERR_MEMORY;
    d->offsets = (size_t *)be->alloc(be, (host->n_series + 1) * sizeof(size_t));
    if (!d->offsets) return FC_ERR_MEMORY;
    d->windows = (fc_window_pos *)be->alloc(be, d->stages * d->cap * sizeof(fc_window_pos));
    if (!d->windows) return FC_ERR_MEMORY;
    d->scratch = (float *)be->alloc(be, d->cap * d->work * sizeof(float));
    if (!d->scratch) return FC_ERR_MEMORY;
    d->staged = (fc_window_pos *)be->host_alloc(be, d->stages * d->cap * sizeof(fc_window_pos));
    if (!d->staged) return FC_ERR_MEMORY;
    return FC_CUDA(cudaEventCreateWithFlags(&d->copied, cudaEventDisableTiming));
}

/* The values as float, a slice at a time through one host buffer: the
 * gather converts each value to float anyway, so converting first gives
 * the same bits and halves the device copy. Each slice's copy is waited
 * for before the buffer is refilled. */
static fc_status upload_values(fc_backend *be, float *dst, const double *y, size_t n) {
    cudaStream_t s = fc_cuda_stream(be);
    size_t cap = n < FC_CUDA_UPLOAD_SLICE ? n : FC_CUDA_UPLOAD_SLICE;
    float *slice = (float *)fc_malloc((cap ? cap : 1) * sizeof(float), "the values' upload slice");
    if (!slice) return FC_ERR_MEMORY;
    fc_status st = FC_OK;
    for (size_t at = 0; st == FC_OK && at < n; at += cap) {
        size_t len = n - at < cap ? n - at : cap;
        for (size_t i = 0; i < len; i++) slice[i] = (float)y[at + i];
        st = FC_CUDA(cudaMemcpyAsync(dst + at, slice, len * sizeof(float), cudaMemcpyHostToDevice, s));
        if (st == FC_OK) st = FC_CUDA(cudaStreamSynchronize(s));
    }
    free(slice);
    return st;
}

static fc_status upload_columns(fc_backend *be, cuda_data *d, const fc_window_data *host) {
    cudaStream_t s = fc_cuda_stream(be);
    FC_TRY(upload_values(be, d->y, host->y64, host->n_rows));
    if (host->n_rows)
        FC_TRY(FC_CUDA(cudaMemcpyAsync(d->mask, host->mask, host->n_rows, cudaMemcpyHostToDevice, s)));
    FC_TRY(FC_CUDA(cudaMemcpyAsync(d->offsets, host->offsets, (host->n_series + 1) * sizeof(size_t),
                                   cudaMemcpyHostToDevice, s)));
    return FC_CUDA(cudaStreamSynchronize(s));   /* a fault shows here, not at the first step */
}

fc_status fc_cuda_data_upload(fc_backend *be, const fc_window_data *host, size_t cap, size_t stages, size_t work,
                              void **data) {
    *data = NULL;
    FC_TRY(fc_cuda_failure(be));
    if (!host->y64 || host->y)
        return fc_error(FC_ERR_INVALID, "CUDA backend: the training data must come as the dataset's doubles (y64)");
    cuda_data *d = (cuda_data *)fc_calloc(1, sizeof *d, "training data handle");
    if (!d) return FC_ERR_MEMORY;
    d->cap = cap;
    d->stages = stages;
    d->work = work;
    fc_status st = alloc_buffers(be, d, host);
    if (st == FC_OK) st = upload_columns(be, d, host);
    if (st != FC_OK) {
        fc_cuda_data_release(be, d);
        return st;
    }
    fc_window_data view = {d->y, NULL, d->mask, d->offsets, host->n_series, host->n_rows};
    d->data = view;
    *data = d;
    return FC_OK;
}

static __global__ void window_points_kernel(fc_window_data data, fc_window_batch out, const fc_window_pos *w,
                                            size_t n) {
    for (size_t k = fc_first_index(); k < n; k += fc_grid_stride()) fc_window_load_points(&data, &out, w[k], k);
}

static __global__ void window_scale_kernel(fc_window_batch out, size_t n, float *scratch, size_t work) {
    for (size_t k = fc_first_index(); k < n; k += fc_grid_stride()) fc_window_scale_row(&out, k, scratch + k * work);
}

/* Through pinned staging, so the copy is asynchronous and the caller may
 * draw the next windows into w at once: staged is refilled only after the
 * last stage's copy out of it has passed (its event), which waits for that
 * copy alone, not for the step's kernels. In stream order the copy into
 * d->windows follows the last step's gathers that read it. Not
 * capturable (an event wait and a copy from a buffer the host refills):
 * the trainer stages before it launches the step's graph. */
fc_status fc_cuda_data_stage(fc_backend *be, void *data, const fc_window_pos *w, size_t n) {
    cuda_data *d = (cuda_data *)data;
    FC_TRY(fc_cuda_failure(be));
    if (fc_cuda_impl_of(be)->capturing)
        return fc_error(FC_ERR_BACKEND, "CUDA backend: windows staged inside a graph capture");
    if (n > d->stages * d->cap)
        return fc_error(FC_ERR_INVALID, "CUDA backend: %zu windows staged at once; room was made for %zu", n,
                        d->stages * d->cap);
    d->n_staged = n;
    if (!n) return FC_OK;
    cudaStream_t s = fc_cuda_stream(be);
    FC_TRY(FC_CUDA(cudaEventSynchronize(d->copied)));
    memcpy(d->staged, w, n * sizeof *w);
    FC_TRY(FC_CUDA(cudaMemcpyAsync(d->windows, d->staged, n * sizeof *w, cudaMemcpyHostToDevice, s)));
    return FC_CUDA(cudaEventRecord(d->copied, s));
}

/* One kernel over windows [first, first + n) of the staged list: its
 * arguments are the same every step, so a graph replays it. */
fc_status fc_cuda_data_gather(fc_backend *be, void *data, size_t first, size_t n, const fc_window_batch *out) {
    cuda_data *d = (cuda_data *)data;
    FC_TRY(fc_cuda_failure(be));
    if (n > d->cap || first > d->n_staged || n > d->n_staged - first)
        return fc_error(FC_ERR_INVALID, "CUDA backend: windows [%zu, %zu) gathered; %zu are staged and a gather "
                        "has room for %zu", first, first + n, d->n_staged, d->cap);
    fc_launch l = fc_launch_1d(n, FC_WINDOW_BLOCK, FC_LAUNCH_MAX_GRID);
    if (!l.grid) return FC_OK;
    window_points_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(d->data, *out, d->windows + first, n);
    return FC_CUDA_LAUNCHED("window_points_kernel");
}

/* The scaling of the n rows the last gather wrote: a second kernel in the
 * same stream, replayed with it. */
fc_status fc_cuda_data_scale(fc_backend *be, void *data, size_t n, const fc_window_batch *out) {
    cuda_data *d = (cuda_data *)data;
    FC_TRY(fc_cuda_failure(be));
    if (n > d->cap)
        return fc_error(FC_ERR_INVALID, "CUDA backend: %zu windows scaled; a gather has room for %zu", n, d->cap);
    fc_launch l = fc_launch_1d(n, FC_WINDOW_BLOCK, FC_LAUNCH_MAX_GRID);
    if (!l.grid) return FC_OK;
    window_scale_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(*out, n, d->scratch, d->work);
    return FC_CUDA_LAUNCHED("window_scale_kernel");
}
