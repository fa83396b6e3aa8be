/* TA-Lib's functions on the GPU (the backend's ta_segments entry): one
 * series segment per GPU thread through fc_ta_segment_run, the bodies the
 * CPU runs (kernels/ta), each segment's scratch its own slice of one buffer
 * (segments do not overlap, so work * n_rows doubles hold them all). Built
 * with --fmad=false, as every .cu here, so no product is fused that TA-Lib
 * does not fuse: the outputs are the CPU's bit for bit. Its own file so
 * that nvcc compiles the 201 bodies beside the rest (make -j).
 *
 * GPU-only code, compiled but not yet run where it was written: every
 * runtime call is checked, and its slicing is emulated on the host in
 * tests/test_ta_segments.c (tests/ta_gpu_emulation.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_internal.h"
#include "kernels/ta/ta_segment.h"

/* Threads per block: one warp, so that a few thousand long serial
 * segments spread over every SM rather than fill a few. */
#define TA_SEGMENT_BLOCK 32u

/* The device's copies of a job's arrays, rows from the span's first. */
typedef struct {
    const double *in[FC_TA_MAX_INPUTS];
    double *out[FC_TA_MAX_OUTPUTS];
} ta_arrays;

static __global__ void ta_segments_kernel(fc_ta_job job, ta_arrays a, const fc_ta_seg *seg, size_t n_seg,
                                          double *work) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n_seg; i += stride)
        fc_ta_segment_run(&job, a.in, a.out, &seg[i], work + seg[i].begin * (size_t)job.work);
}

typedef struct {
    double *in, *out, *work;
    fc_ta_seg *seg;
} ta_buffers;

/* Inputs, segments (their rows made relative to the span) and room. */
static fc_status ta_stage(fc_backend *be, const fc_ta_job *j, ta_buffers *b, ta_arrays *a) {
    cudaStream_t s = fc_cuda_stream(be);
    size_t n = j->n_rows;
    if (n > SIZE_MAX / ((FC_TA_MAX_INPUTS + FC_TA_MAX_OUTPUTS + (size_t)j->work) * sizeof(double)))
        return fc_error(FC_ERR_MEMORY, "TA-Lib functions on the GPU: %zu rows do not fit in memory", n);
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->in, (size_t)j->n_inputs * n * sizeof(double), "indicator inputs"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->out, (size_t)j->n_outputs * n * sizeof(double), "indicator outputs"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->work, (size_t)j->work * n * sizeof(double), "indicator scratch"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->seg, j->n_seg * sizeof(fc_ta_seg), "series segments"));
    for (int i = 0; i < j->n_inputs; i++) {
        a->in[i] = b->in + (size_t)i * n;
        FC_TRY(FC_CUDA(cudaMemcpyAsync(b->in + (size_t)i * n, j->in[i] + j->row0, n * sizeof(double),
                                       cudaMemcpyHostToDevice, s)));
    }
    for (int k = 0; k < j->n_outputs; k++) a->out[k] = b->out + (size_t)k * n;
    fc_ta_seg *rel = (fc_ta_seg *)malloc((j->n_seg + 1) * sizeof *rel);
    if (!rel) return fc_error(FC_ERR_MEMORY, "TA-Lib functions on the GPU: out of host memory");
    for (size_t i = 0; i < j->n_seg; i++) rel[i] = fc_ta_seg{j->seg[i].begin - j->row0, j->seg[i].len, j->seg[i].base - j->row0};
    fc_status st = j->n_seg ? FC_CUDA(cudaMemcpy(b->seg, rel, j->n_seg * sizeof *rel, cudaMemcpyHostToDevice)) : FC_OK;
    free(rel);
    return st;
}

fc_status fc_cuda_ta_segments(fc_backend *be, const struct fc_ta_job *j) {
    FC_TRY(fc_cuda_failure(be));
    if (j->n_rows == 0) return FC_OK;
    for (size_t i = 0; i < j->n_seg; i++)
        if (j->seg[i].begin < j->row0 || j->seg[i].len > j->n_rows || j->seg[i].begin - j->row0 > j->n_rows - j->seg[i].len)
            return fc_error(FC_ERR_INVALID, "TA-Lib functions on the GPU: segment %zu outside the span", i);
    cudaStream_t s = fc_cuda_stream(be);
    ta_buffers b = {NULL, NULL, NULL, NULL};
    ta_arrays a;
    memset(&a, 0, sizeof a);
    fc_status st = ta_stage(be, j, &b, &a);
    if (st == FC_OK) st = fc_cuda_fill_nan(be, b.out, (size_t)j->n_outputs * j->n_rows);
    fc_launch segs = fc_launch_1d(j->n_seg, TA_SEGMENT_BLOCK, FC_LAUNCH_MAX_GRID);
    if (st == FC_OK && segs.grid) {
        ta_segments_kernel<<<segs.grid, segs.block, 0, s>>>(*j, a, b.seg, j->n_seg, b.work);
        st = FC_CUDA_LAUNCHED("ta_segments_kernel");
    }
    for (int k = 0; st == FC_OK && k < j->n_outputs; k++)
        st = FC_CUDA(cudaMemcpyAsync(j->out[k] + j->row0, a.out[k], j->n_rows * sizeof(double),
                                     cudaMemcpyDeviceToHost, s));
    if (st == FC_OK) st = FC_CUDA(cudaStreamSynchronize(s));   /* a fault shows here */
    fc_cuda_quant_free(be, b.in);
    fc_cuda_quant_free(be, b.out);
    fc_cuda_quant_free(be, b.work);
    fc_cuda_quant_free(be, b.seg);
    return st;
}
