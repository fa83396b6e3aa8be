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
#include "kernels/optimizer_step.h"

/* The scalars travel by value, in the kernel's parameters. */
static __global__ void adam_kernel(float *p, const float *g, float *m, float *v, size_t n, fc_adam_scalars s) {
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride()) fc_adam_update(&p[i], g[i], &m[i], &v[i], s);
}

void fc_cuda_adam_step(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n, float lr,
                       float beta1, float beta2, float eps, float weight_decay, int kind, int64_t step) {
    fc_launch l = fc_cuda_grid(n);
    if (!l.grid) return;
    fc_adam_scalars s = fc_adam_scalars_make(lr, beta1, beta2, eps, weight_decay, (fc_optimizer_kind)kind, step);
    adam_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(p, g, m, v, n, s);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("adam_kernel"));
}

/* ---- the whole optimizer step (backend.h optimizer_step) ---- */

/* One thread: the partials added in piece order (the host's order in
 * cuda_reduce.cu, so the norm has the bits fc_cuda_sum_squares returns),
 * then the shared decision. */
static __global__ void step_decide_kernel(const double *partials, size_t blocks, const fc_step_in *in,
                                          fc_step_out *out) {
    double ss = 0.0;
    for (size_t b = 0; b < blocks; b++) ss += partials[b];
    fc_step_decide(in, ss, out);
}

/* Every thread reads the decision from device memory: a skipped step
 * changes nothing, as on the CPU. */
static __global__ void step_update_kernel(float *p, float *g, float *m, float *v, size_t n, const fc_step_in *in,
                                          const fc_step_out *out) {
    if (!out->applied) return;
    fc_adam_scalars s = in->adam;
    int scaled = out->scaled;
    float factor = out->factor;
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride())
        fc_step_update(&p[i], &g[i], &m[i], &v[i], s, scaled, factor);
}

/* Three launches and no host wait, so the step can be captured in a
 * graph: the norm's pieces, the decision, the update. Whether the norm is
 * needed is in *in, which the host does not read here (it is device
 * memory), so the pieces are always launched and the decision ignores them
 * when need_norm is 0: one more read of the gradients, a few microseconds
 * for millions of parameters. */
static fc_status optimizer_step(fc_backend *be, float *p, float *g, float *m, float *v, size_t n,
                                const fc_step_in *in, fc_step_out *out) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    size_t blocks = 0;
    FC_TRY(fc_cuda_sum_squares_partials(be, g, n, &blocks));
    step_decide_kernel<<<1, 1, 0, impl->stream>>>(impl->d_partials, blocks, in, out);
    FC_TRY(FC_CUDA_LAUNCHED("step_decide_kernel"));
    fc_launch l = fc_cuda_grid(n);
    if (!l.grid) return FC_OK;
    step_update_kernel<<<l.grid, l.block, 0, impl->stream>>>(p, g, m, v, n, in, out);
    return FC_CUDA_LAUNCHED("step_update_kernel");
}

void fc_cuda_optimizer_step(fc_backend *be, float *p, float *g, float *m, float *v, size_t n, const fc_step_in *in,
                            fc_step_out *out) {
    fc_cuda_note_failure(be, optimizer_step(be, p, g, m, v, n, in, out));
}
