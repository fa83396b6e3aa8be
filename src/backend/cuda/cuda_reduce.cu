/* Fixed-order reductions of the CUDA backend (masked losses, sums of
 * squares): the same inputs on the same GPU give the same bits every run.
 * The input is cut as the CPU backend cuts it (fc_reduce_split_of: piece
 * bounds depend on n alone); one block per piece, each thread adds a fixed
 * strided subset of its piece in double, a fixed-shape tree in shared
 * memory adds the threads' sums, and the host adds the pieces in piece
 * order, in double, as the CPU does. No float atomics anywhere. The bits
 * differ from the CPU's (a piece is added in another order), not the
 * method. Point losses come from kernels/loss.h, as on the CPU. */
#include <math.h>

#include "backend/cuda/cuda_internal.h"
#include "kernels/loss.h"

extern "C" {
#include "backend/reduce_geometry.h"
}

static_assert((FC_REDUCE_THREADS & (FC_REDUCE_THREADS - 1)) == 0, "block_sum halves the block down to one thread");


/* ---- device: one block per piece ---- */

/* The sum of one value per thread, by halving: the same pairs are added
 * in the same order every run. Every thread of the block must call it;
 * the block has FC_REDUCE_THREADS threads (fc_reduce_launch), a power of
 * two. Each tree needs its own `sh`, so that a second tree cannot
 * overwrite sh[0] before thread 0 has read the first one's. */
static __device__ double block_sum(double *sh, double v) {
    unsigned t = threadIdx.x;
    sh[t] = v;
    __syncthreads();
    for (unsigned half = FC_REDUCE_THREADS / 2; half > 0; half /= 2) {
        if (t < half) sh[t] += sh[t + half];
        __syncthreads();
    }
    return sh[0];
}

/* partials[b] = sum of x[i]^2 over piece b, the squares in double as the CPU. */
static __global__ void sum_squares_pieces(const float *x, size_t n, fc_reduce_split split, double *partials) {
    __shared__ double sh[FC_REDUCE_THREADS];
    fc_reduce_piece p = fc_reduce_piece_of(split, n, blockIdx.x);
    double s = 0.0;
    for (size_t i = p.start + threadIdx.x; i < p.start + p.count; i += FC_REDUCE_THREADS)
        s += (double)x[i] * (double)x[i];
    double total = block_sum(sh, s);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

/* partials[b] = sum of mask * loss, partials[blocks + b] = sum of mask over
 * piece b. The weighted point loss is formed in float, as torch's
 * `losses * weights` and the CPU (kernels/loss.h), then accumulated.
 * MASE's window scale is measured per point here (a thread's points are
 * FC_REDUCE_THREADS apart, in different windows): the same bits as the
 * CPU's once-per-window scale, at L more reads per point. */
static __global__ void masked_loss_pieces(fc_loss_call c, fc_reduce_split split, double *partials) {
    __shared__ double sh_loss[FC_REDUCE_THREADS], sh_mask[FC_REDUCE_THREADS];
    fc_reduce_piece p = fc_reduce_piece_of(split, c.n, blockIdx.x);
    double ls = 0.0, ms = 0.0;
    for (size_t i = p.start + threadIdx.x; i < p.start + p.count; i += FC_REDUCE_THREADS) {
        ls += fc_loss_point_weighted(&c, i, fc_loss_scale_at(&c, i));
        ms += (double)c.mask[i];
    }
    double loss_sum = block_sum(sh_loss, ls);
    double mask_sum = block_sum(sh_mask, ms);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = loss_sum;
        partials[gridDim.x + blockIdx.x] = mask_sum;
    }
}

/* ---- host ---- */

/* The first `count` partials, on the host once the stream has reached them. */
static fc_status fetch_partials(fc_cuda_impl *impl, size_t count) {
    FC_TRY(FC_CUDA(cudaMemcpyAsync(impl->h_partials, impl->d_partials, count * sizeof(double),
                                   cudaMemcpyDeviceToHost, impl->stream)));
    return FC_CUDA(cudaStreamSynchronize(impl->stream));
}

/* Pieces added in piece order, as the CPU backend adds its blocks. */
static double add_in_order(const double *part, size_t count) {
    double total = 0.0;
    for (size_t b = 0; b < count; b++) total += part[b];
    return total;
}

fc_status fc_cuda_sum_squares_partials(fc_backend *be, const float *x, size_t n, size_t *blocks) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    fc_reduce_split split = fc_reduce_split_of(n);
    fc_launch l = fc_reduce_launch(n);
    *blocks = l.grid ? split.blocks : 0;
    if (!l.grid) return FC_OK;
    sum_squares_pieces<<<l.grid, l.block, 0, impl->stream>>>(x, n, split, impl->d_partials);
    return FC_CUDA_LAUNCHED("sum_squares_pieces");
}

static fc_status sum_squares(fc_backend *be, const float *x, size_t n, double *out) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    size_t blocks;
    *out = 0.0;
    FC_TRY(fc_cuda_sum_squares_partials(be, x, n, &blocks));
    if (!blocks) return FC_OK;
    FC_TRY(fetch_partials(impl, blocks));
    *out = add_in_order(impl->h_partials, blocks);
    return FC_OK;
}

void fc_cuda_sum_squares(fc_backend *be, double *out, const float *x, size_t n) {
    fc_status st = sum_squares(be, x, n, out);
    if (st != FC_OK) *out = NAN;
    fc_cuda_note_failure(be, st);
}

/* ---- masked loss: left on the device ---- */

/* One thread: the pieces added in piece order (as add_in_order), the
 * micro-batch's loss into *d_loss and the gradient's coefficient into
 * *coef, each with the CPU backend's expressions (cpu_reduce.c). */
static __global__ void masked_loss_finish(const double *partials, size_t blocks, int first, double divisor,
                                          float grad_scale, double *d_loss, float *coef) {
    double loss_sum = 0.0, mask_sum = 0.0;
    for (size_t b = 0; b < blocks; b++) loss_sum += partials[b];
    for (size_t b = 0; b < blocks; b++) mask_sum += partials[blocks + b];
    double loss = mask_sum == 0.0 ? 0.0 : loss_sum / mask_sum;
    *d_loss = (first ? 0.0 : *d_loss) + loss / divisor;
    *coef = mask_sum == 0.0 ? 0.0f : (float)((double)grad_scale / mask_sum);
}

/* The gradient of point i (all its outputs) exactly as cpu_reduce.c
 * writes it, with the coefficient read on the device. */
static __global__ void masked_loss_grad_at(float *grad, const float *coef_at, fc_loss_call c) {
    float coef = *coef_at;
    for (size_t i = fc_first_index(); i < c.n; i += fc_grid_stride())
        fc_loss_point_grad(grad, &c, i, fc_loss_scale_at(&c, i), coef);
}

static fc_status masked_loss(fc_backend *be, double *d_loss, int first, double divisor, float *grad,
                             float grad_scale, const fc_loss_call *c) {
    fc_cuda_impl *impl = fc_cuda_impl_of(be);
    size_t n = c->n;
    fc_reduce_split split = fc_reduce_split_of(n);
    fc_launch l = fc_reduce_launch(n);
    if (l.grid) {
        masked_loss_pieces<<<l.grid, l.block, 0, impl->stream>>>(*c, split, impl->d_partials);
        FC_TRY(FC_CUDA_LAUNCHED("masked_loss_pieces"));
    }
    masked_loss_finish<<<1, 1, 0, impl->stream>>>(impl->d_partials, split.blocks, first, divisor, grad_scale,
                                                  d_loss, impl->d_coef);
    FC_TRY(FC_CUDA_LAUNCHED("masked_loss_finish"));
    fc_launch g = fc_cuda_grid(n);
    if (!grad || !g.grid) return FC_OK;
    masked_loss_grad_at<<<g.grid, g.block, 0, impl->stream>>>(grad, impl->d_coef, *c);
    return FC_CUDA_LAUNCHED("masked_loss_grad_at");
}

/* A failure is noted: the caller's read of *d_loss then fails through status. */
void fc_cuda_masked_loss(fc_backend *be, double *d_loss, int first, double divisor, float *grad,
                         float grad_scale, const fc_loss_call *c) {
    fc_cuda_note_failure(be, masked_loss(be, d_loss, first, divisor, grad, grad_scale, c));
}
