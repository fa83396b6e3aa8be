/* Quant on the GPU: Monte Carlo draws and indicator segments, through the
 * kernels/ bodies the CPU runs (kernels/quant_paths.h; kernels/indicators.h
 * by way of kernels/indicator_segment.h) in thin kernels on the backend's stream.
 *
 * Monte Carlo keeps the CPU's order of additions (backend/mc_slices.h): one
 * thread per draw writes the draw's two samples into a slice buffer, one
 * thread per chunk sums its chunk's samples in draw order (fc_mc_sums_add),
 * and the host adds the chunk sums in chunk order. Philox gives the same
 * random bits; the samples, though, go through CUDA's exp, log, sin and cos,
 * which are within an ulp or two of the exact value but are not glibc's, so
 * a sample may differ from the CPU's in its last bits and the price agrees to
 * about 1e-12 relative, not to the bit (docs/gpu.md states the tolerance).
 *
 * TA-Lib's other functions run the same way, in cuda_ta.cu.
 *
 * Indicators use +, -, *, /, sqrt and fma, which round correctly on the GPU
 * as on the CPU; built with --fmad=false (no product is contracted into an
 * fma that TA-Lib does not have) their outputs equal the CPU's bit for bit.
 * One thread runs one segment: the recurrences are serial in time.
 *
 * GPU-only code, compiled but not yet run where it was written: every runtime
 * call is checked, and the slicing lives in plain C tested on the CPU
 * (backend/mc_slices.c, backend/launch_geometry.c, tests/test_mc_slices.c). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/cuda/cuda_internal.h"
#include "kernels/quant_paths.h"
#include "kernels/indicator_segment.h"

extern "C" {
#include "backend/mc_slices.h"
}

/* Threads per block of the segment kernel: one warp, so that a few thousand
 * long serial segments spread over every SM rather than fill a few. */
#define IND_SEGMENT_BLOCK 32u

/* cudaMalloc of `bytes` for `what`; the error names both and the GPU. */
fc_status fc_cuda_quant_alloc(fc_backend *be, void **p, size_t bytes, const char *what) {
    cudaError_t err = cudaMalloc(p, bytes ? bytes : 1);
    if (err == cudaSuccess) return FC_OK;
    *p = NULL;
    cudaGetLastError();   /* an allocation failure is not sticky: clear it */
    const fc_cuda_impl *impl = fc_cuda_impl_of(be);
    return fc_error(err == cudaErrorMemoryAllocation ? FC_ERR_MEMORY : FC_ERR_BACKEND,
                    "cannot allocate %zu bytes on cuda:%d (%s) for %s: %s", bytes, impl->device, impl->name, what,
                    cudaGetErrorString(err));
}

/* cudaFree (which waits for the device) after a run; a failure there is
 * kept for the next entry, like cuda_backend.cu's release. */
void fc_cuda_quant_free(fc_backend *be, void *p) {
    if (p) fc_cuda_note_failure(be, FC_CUDA(cudaFree(p)));
}

/* ------------------------------------------------------------ Monte Carlo */

/* samples (n, 2): the two samples of draws first_draw .. first_draw + n - 1. */
static __global__ void mc_draws_kernel(fc_mc_spec spec, uint64_t seed, uint64_t first_draw, uint64_t n,
                                       fc_mc_sample *samples) {
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        fc_mc_draw(&spec, seed, first_draw + i, samples + 2 * i);
}

/* sums (n_chunks): chunk c of the slice's n_draws draws, summed in draw order. */
static __global__ void mc_chunks_kernel(const fc_mc_sample *samples, uint64_t n_draws, uint32_t chunk_draws,
                                        uint64_t n_chunks, fc_mc_sums *sums) {
    uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t c = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; c < n_chunks; c += stride) {
        uint64_t begin, end;
        fc_mc_chunk_bounds(n_draws, chunk_draws, c, &begin, &end);
        fc_mc_sums acc = {0.0, 0.0, 0.0, 0.0, 0.0};
        for (uint64_t d = begin; d < end; d++) fc_mc_sums_add(&acc, samples + 2 * d);
        sums[c] = acc;
    }
}

typedef struct {
    double *drift, *vol;        /* (n_steps) */
    unsigned char *fixing;      /* (n_steps) */
    double *coef;               /* (n_coef): Longstaff-Schwartz's regression coefficients */
    fc_mc_sample *samples;      /* (buffer_draws, 2) */
    fc_mc_sums *sums;           /* (slice_chunks) */
} mc_buffers;

static void mc_free(fc_backend *be, mc_buffers *b) {
    fc_cuda_quant_free(be, b->drift);
    fc_cuda_quant_free(be, b->vol);
    fc_cuda_quant_free(be, b->fixing);
    fc_cuda_quant_free(be, b->coef);
    fc_cuda_quant_free(be, b->samples);
    fc_cuda_quant_free(be, b->sums);
}

/* The slice buffers, and the spec's arrays copied to the device: *dev is
 * spec pointing at them. The host arrays are pageable, so each copy has
 * left them once cudaMemcpyAsync returns. */
static fc_status mc_stage(fc_backend *be, const fc_mc_spec *spec, const fc_mc_slicing *plan, mc_buffers *b,
                          fc_mc_spec *dev) {
    size_t n = spec->n_steps;
    cudaStream_t s = fc_cuda_stream(be);
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->drift, n * sizeof *b->drift, "path drifts"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->vol, n * sizeof *b->vol, "path volatilities"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->fixing, n * sizeof *b->fixing, "fixing flags"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->coef, spec->n_coef * sizeof *b->coef, "regression coefficients"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->samples, (size_t)plan->buffer_draws * 2 * sizeof *b->samples,
                        "Monte Carlo samples"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->sums, (size_t)plan->slice_chunks * sizeof *b->sums, "chunk sums"));
    if (n) {
        FC_TRY(FC_CUDA(cudaMemcpyAsync(b->drift, spec->drift, n * sizeof *b->drift, cudaMemcpyHostToDevice, s)));
        FC_TRY(FC_CUDA(cudaMemcpyAsync(b->vol, spec->vol, n * sizeof *b->vol, cudaMemcpyHostToDevice, s)));
        FC_TRY(FC_CUDA(cudaMemcpyAsync(b->fixing, spec->fixing, n * sizeof *b->fixing, cudaMemcpyHostToDevice, s)));
    }
    if (spec->n_coef)
        FC_TRY(FC_CUDA(cudaMemcpyAsync(b->coef, spec->coef, spec->n_coef * sizeof *b->coef, cudaMemcpyHostToDevice,
                                       s)));
    *dev = *spec;
    dev->drift = b->drift;
    dev->vol = b->vol;
    dev->fixing = b->fixing;
    dev->coef = b->coef;
    return FC_OK;
}

/* Slice i: its draws, its chunk sums, and their copy into the host's
 * chunk_sums (to pageable memory: the copy has landed when the call
 * returns). The next slice reuses the buffers after these in stream order. */
static fc_status mc_slice(fc_backend *be, const fc_mc_spec *dev, uint64_t seed, const fc_mc_slicing *plan,
                          uint64_t i, const mc_buffers *b, fc_mc_sums *chunk_sums) {
    cudaStream_t s = fc_cuda_stream(be);
    fc_mc_slice sl = fc_mc_slice_at(plan, i);
    mc_draws_kernel<<<sl.draws.grid, sl.draws.block, 0, s>>>(*dev, seed, sl.first_draw, sl.n_draws, b->samples);
    FC_TRY(FC_CUDA_LAUNCHED("mc_draws_kernel"));
    mc_chunks_kernel<<<sl.chunks.grid, sl.chunks.block, 0, s>>>(b->samples, sl.n_draws, plan->chunk_draws,
                                                                 sl.n_chunks, b->sums);
    FC_TRY(FC_CUDA_LAUNCHED("mc_chunks_kernel"));
    return FC_CUDA(cudaMemcpyAsync(chunk_sums + sl.first_chunk, b->sums, (size_t)sl.n_chunks * sizeof *b->sums,
                                   cudaMemcpyDeviceToHost, s));
}

fc_status fc_cuda_mc_chunk_sums(fc_backend *be, const fc_mc_spec *spec, uint64_t seed, uint64_t n_draws,
                                uint32_t chunk_draws, fc_mc_sums *chunk_sums) {
    FC_TRY(fc_cuda_failure(be));
    if (chunk_draws == 0) return fc_error(FC_ERR_INVALID, "Monte Carlo on the GPU: chunks of 0 draws");
    if (n_draws == 0) return FC_OK;
    fc_mc_slicing plan = fc_mc_slicing_plan(n_draws, chunk_draws, 2 * sizeof(fc_mc_sample), FC_MC_SLICE_BYTES);
    mc_buffers b = {NULL, NULL, NULL, NULL, NULL, NULL};
    fc_mc_spec dev;
    fc_status st = mc_stage(be, spec, &plan, &b, &dev);
    for (uint64_t i = 0; st == FC_OK && i < plan.n_slices; i++)
        st = mc_slice(be, &dev, seed, &plan, i, &b, chunk_sums);
    if (st == FC_OK) st = FC_CUDA(cudaStreamSynchronize(fc_cuda_stream(be)));   /* a fault shows here */
    mc_free(be, &b);
    return st;
}

/* ------------------------------------------------------------- indicators */

static __global__ void ind_nan_kernel(double *y, size_t n) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = NAN;
}

fc_status fc_cuda_fill_nan(fc_backend *be, double *y, size_t n) {
    fc_launch fill = fc_cuda_grid(n);
    if (!fill.grid) return FC_OK;
    ind_nan_kernel<<<fill.grid, fill.block, 0, fc_cuda_stream(be)>>>(y, n);
    return FC_CUDA_LAUNCHED("ind_nan_kernel");
}

/* Segment i of plan over x (the span's rows, from row0); output k of the
 * plan is out + k * n_rows, rows as x's. */
static __global__ void ind_segments_kernel(fc_ind_plan plan, const double *x, const fc_ind_seg *seg,
                                           size_t n_seg, size_t row0, size_t n_rows, double *out) {
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n_seg; i += stride) {
        size_t at = seg[i].begin - row0;
        double *o[FC_IND_MAX_OUTPUTS];
        for (int k = 0; k < FC_IND_MAX_OUTPUTS; k++) o[k] = k < plan.n_out ? out + (size_t)k * n_rows + at : NULL;
        fc_ind_segment_run(&plan, x + at, (long)seg[i].len, o);
    }
}

typedef struct {
    double *x;         /* (n_rows) the span's values */
    fc_ind_seg *seg;   /* (n_seg) */
    double *out;       /* (n_out of the widest plan, n_rows) */
} ind_buffers;

/* What the kernels trust: plans with 1 to 3 outputs, segments inside the
 * span (a violation is a caller's bug, refused rather than run past a buffer). */
static fc_status ind_check(const fc_ind_plan *plans, size_t n_specs, size_t row0, size_t n_rows,
                           const fc_ind_seg *seg, size_t n_seg, int *n_out_max) {
    *n_out_max = 1;
    for (size_t j = 0; j < n_specs; j++) {
        if (plans[j].n_out < 1 || plans[j].n_out > FC_IND_MAX_OUTPUTS)
            return fc_error(FC_ERR_INVALID, "indicators on the GPU: plan %zu has %d outputs", j, plans[j].n_out);
        if (plans[j].n_out > *n_out_max) *n_out_max = plans[j].n_out;
    }
    for (size_t i = 0; i < n_seg; i++)
        if (seg[i].begin < row0 || seg[i].len == 0 || seg[i].len > n_rows ||
            seg[i].begin - row0 > n_rows - seg[i].len)
            return fc_error(FC_ERR_INVALID, "indicators on the GPU: segment %zu (rows %zu + %zu) outside rows "
                            "%zu + %zu", i, seg[i].begin, seg[i].len, row0, n_rows);
    if (n_rows > SIZE_MAX / (FC_IND_MAX_OUTPUTS * sizeof(double)))
        return fc_error(FC_ERR_MEMORY, "indicators on the GPU: %zu rows do not fit in memory", n_rows);
    return FC_OK;
}

static fc_status ind_stage(fc_backend *be, const double *x, size_t row0, size_t n_rows, const fc_ind_seg *seg,
                           size_t n_seg, int n_out_max, ind_buffers *b) {
    cudaStream_t s = fc_cuda_stream(be);
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->x, n_rows * sizeof *b->x, "indicator inputs"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->seg, n_seg * sizeof *b->seg, "series segments"));
    FC_TRY(fc_cuda_quant_alloc(be, (void **)&b->out, (size_t)n_out_max * n_rows * sizeof *b->out, "indicator outputs"));
    FC_TRY(FC_CUDA(cudaMemcpyAsync(b->x, x + row0, n_rows * sizeof *b->x, cudaMemcpyHostToDevice, s)));
    if (n_seg) FC_TRY(FC_CUDA(cudaMemcpyAsync(b->seg, seg, n_seg * sizeof *b->seg, cudaMemcpyHostToDevice, s)));
    return FC_OK;
}

/* One plan: NaN everywhere, the segments over it, and its outputs copied
 * into the host's rows [row0, row0 + n_rows) (pageable: landed on return). */
static fc_status ind_plan_run(fc_backend *be, const fc_ind_plan *plan, const ind_buffers *b, size_t row0,
                              size_t n_rows, size_t n_seg, double *const *out) {
    cudaStream_t s = fc_cuda_stream(be);
    size_t n_all = (size_t)plan->n_out * n_rows;
    fc_launch fill = fc_cuda_grid(n_all);
    ind_nan_kernel<<<fill.grid, fill.block, 0, s>>>(b->out, n_all);
    FC_TRY(FC_CUDA_LAUNCHED("ind_nan_kernel"));
    fc_launch segs = fc_launch_1d(n_seg, IND_SEGMENT_BLOCK, FC_LAUNCH_MAX_GRID);
    if (segs.grid) {
        ind_segments_kernel<<<segs.grid, segs.block, 0, s>>>(*plan, b->x, b->seg, n_seg, row0, n_rows, b->out);
        FC_TRY(FC_CUDA_LAUNCHED("ind_segments_kernel"));
    }
    for (int k = 0; k < plan->n_out; k++)
        FC_TRY(FC_CUDA(cudaMemcpyAsync(out[k] + row0, b->out + (size_t)k * n_rows, n_rows * sizeof *b->out,
                                       cudaMemcpyDeviceToHost, s)));
    return FC_OK;
}

fc_status fc_cuda_indicator_segments(fc_backend *be, const fc_ind_plan *plans, size_t n_specs, const double *x,
                                     size_t row0, size_t n_rows, const fc_ind_seg *seg, size_t n_seg,
                                     double *const *const *outs) {
    FC_TRY(fc_cuda_failure(be));
    if (n_rows == 0 || n_specs == 0) return FC_OK;
    int n_out_max;
    FC_TRY(ind_check(plans, n_specs, row0, n_rows, seg, n_seg, &n_out_max));
    ind_buffers b = {NULL, NULL, NULL};
    fc_status st = ind_stage(be, x, row0, n_rows, seg, n_seg, n_out_max, &b);
    for (size_t j = 0; st == FC_OK && j < n_specs; j++)
        st = ind_plan_run(be, &plans[j], &b, row0, n_rows, n_seg, outs[j]);
    if (st == FC_OK) st = FC_CUDA(cudaStreamSynchronize(fc_cuda_stream(be)));   /* a fault shows here */
    fc_cuda_quant_free(be, b.x);
    fc_cuda_quant_free(be, b.seg);
    fc_cuda_quant_free(be, b.out);
    return st;
}

