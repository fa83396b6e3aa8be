/* IQLoss's head on the GPU: thin kernels over the bodies of
 * kernels/iq_head.h, one thread per point, then one per parameter (its sum
 * over the points in point order: the CPU's bits, no atomics). */
#include "backend/cuda/cuda_internal.h"
#include "kernels/iq_head.h"

static __global__ void iq_forward_kernel(fc_iq_call c) {
    for (size_t i = fc_first_index(); i < c.n; i += fc_grid_stride()) fc_iq_forward_point(&c, i);
}

static __global__ void iq_backward_point_kernel(fc_iq_call c) {
    for (size_t i = fc_first_index(); i < c.n; i += fc_grid_stride()) fc_iq_backward_point(&c, i);
}

/* Threads 0 .. D-1 take W1's rows (their D sums in local memory), the
 * rest one parameter each. */
static __global__ void iq_backward_param_kernel(fc_iq_call c, size_t first, size_t count) {
    for (size_t q = fc_first_index(); q < c.D + count; q += fc_grid_stride()) {
        double acc[FC_IQ_MAX_DIM];
        if (q < c.D) fc_iq_backward_w1_row(&c, q, acc);
        else fc_iq_backward_param(&c, first + (q - c.D));
    }
}

static __global__ void iq_taus_kernel(float *tau, size_t n, uint64_t seed, float c0, float c1) {
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride()) tau[i] = fc_iq_draw_tau(seed, i, c0, c1);
}

void fc_cuda_iq_head_forward(fc_backend *be, const fc_iq_call *c) {
    fc_launch l = fc_cuda_grid(c->n);
    if (!l.grid) return;
    iq_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(*c);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("iq_forward_kernel"));
}

void fc_cuda_iq_head_backward(fc_backend *be, const fc_iq_call *c) {
    fc_iq_layout lay = fc_iq_param_offsets(c->D);
    size_t rest = lay.total - lay.b1;
    fc_launch l = fc_cuda_grid(c->n), p = fc_cuda_grid(c->D + rest);
    if (!l.grid) return;
    iq_backward_point_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(*c);
    fc_status st = FC_CUDA_LAUNCHED("iq_backward_point_kernel");
    if (st == FC_OK) {
        iq_backward_param_kernel<<<p.grid, p.block, 0, fc_cuda_stream(be)>>>(*c, lay.b1, rest);
        st = FC_CUDA_LAUNCHED("iq_backward_param_kernel");
    }
    fc_cuda_note_failure(be, st);
}

void fc_cuda_iq_taus(fc_backend *be, float *tau, size_t n, uint64_t seed, float concentration0, float concentration1) {
    fc_launch l = fc_cuda_grid(n);
    if (!l.grid) return;
    iq_taus_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(tau, n, seed, concentration0, concentration1);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("iq_taus_kernel"));
}
