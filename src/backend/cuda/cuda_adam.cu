/* Adam on the GPU: the per-step scalars once on the host, with the CPU's
 * own fc_adam_scalars_make (double, as torch's Python floats), then ONE
 * kernel over all n parameters: parameters, gradients and moments are each
 * one contiguous buffer, so this single launch is the fused multi-tensor
 * step. Each thread runs the CPU's element body, fc_adam_update; its fmaf
 * are explicit, and --fmad=false keeps nvcc from contracting anything else,
 * so the GPU gives the CPU's bits (sqrtf and / are IEEE-rounded unless the
 * library is built with --use_fast_math, which it must not be). */
#include "backend/cuda/cuda_internal.h"
#include "kernels/adam.h"

/* The scalars travel by value, in the kernel's parameters. */
static __global__ void adam_kernel(float *p, const float *g, float *m, float *v, size_t n, fc_adam_scalars s) {
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride()) fc_adam_update(&p[i], g[i], &m[i], &v[i], s);
}

void fc_cuda_adam_step(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n, float lr,
                       float beta1, float beta2, float eps, int64_t step) {
    fc_launch l = fc_cuda_grid(n);
    if (!l.grid) return;
    fc_adam_scalars s = fc_adam_scalars_make(lr, beta1, beta2, eps, step);
    adam_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(p, g, m, v, n, s);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("adam_kernel"));
}
