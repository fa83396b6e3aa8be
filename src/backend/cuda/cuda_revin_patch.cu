/* PatchTST's RevIN and patching on the CUDA backend: __global__ wrappers
 * over the bodies of kernels/revin_patch.h, so the GPU does the CPU's
 * arithmetic in the CPU's order (the same bits).
 *
 * revin_patch_forward: a warp per window, lane l computing the window
 * sums' partial l (layer norm's lanes, added in lane order by every lane),
 * then the window's P * patch_len outputs, lane l writing every 32nd.
 * The d affine sums: a block of FC_REVIN_LANES threads per piece of
 * fc_reduce_split_of, thread l the header's lane l, the lanes added by the
 * header's tree in shared memory, the pieces' totals into impl->d_partials
 * (room for two sums of FC_REDUCE_MAX_BLOCKS pieces), then one thread adds
 * them in piece order into daffine. Everything runs on the backend's one
 * stream, so the partials are read before any later call reuses them; no
 * host round trip, so the calls can be captured in a graph. */
#include "backend/cuda/cuda_internal.h"
#include "backend/cuda/cuda_warp.cuh"
#include "kernels/revin_patch.h"

extern "C" {
#include "backend/reduce_geometry.h"
}

static_assert(FC_LN_LANES == 32 && FC_LAUNCH_BLOCK % FC_LN_LANES == 0, "a warp of 32 lanes per window");
static_assert((FC_REVIN_LANES & (FC_REVIN_LANES - 1)) == 0 && FC_REVIN_LANES <= 1024, "one block, halved to one");

/* fc_revin_row_stats, lane by lane; every lane gets the stats. */
static __device__ void warp_stats(float *st, const float *x, size_t L, int revin, int subtract_last, float eps,
                                  size_t lane) {
    if (!revin) {
        st[0] = 0.0f, st[1] = 1.0f;
        return;
    }
    double m = fc_layer_norm_mean(fc_warp_total(fc_layer_norm_lane_sum(x, L, lane)), L);
    double q = fc_warp_total(fc_layer_norm_lane_sqdev(x, L, m, lane));
    fc_revin_stats_finish(st, m, q, x[L - 1], L, subtract_last, eps);
}

static __global__ void revin_patch_kernel(float *patches, float *stats, const float *x, size_t ldx, size_t B,
                                          fc_revin_shape s, int revin, int subtract_last, const float *affine,
                                          float eps) {
    size_t lane = fc_first_index() % FC_LN_LANES, per = s.P * s.patch_len;
    for (size_t r = fc_first_index() / FC_LN_LANES; r < B; r += fc_grid_stride() / FC_LN_LANES) {
        const float *xr = x + r * ldx;
        float st[2];
        warp_stats(st, xr, s.L, revin, subtract_last, eps, lane);
        if (lane == 0) stats[2 * r] = st[0], stats[2 * r + 1] = st[1];
        for (size_t k = lane; k < per; k += FC_LN_LANES)
            patches[r * per + k] = fc_revin_patch_point(xr, s.L, s.patch_len, s.stride, k, st, affine);
    }
}

/* fc_revin_tree over the block's lanes (one per thread); thread 0 gets the
 * total. Each tree has its own `sh`, so no barrier is needed after it. */
static __device__ double block_tree(double *sh, double part) {
    unsigned l = threadIdx.x;
    sh[l] = part;
    __syncthreads();
    for (unsigned h = FC_REVIN_LANES / 2; h > 0; h /= 2) {
        if (l < h) sh[l] += sh[l + h];
        __syncthreads();
    }
    return sh[0];
}

/* Piece blockIdx.x's two totals into partials[b] and partials[pieces + b]. */
static __device__ void piece_totals(double *partials, double p0, double p1) {
    __shared__ double sh0[FC_REVIN_LANES], sh1[FC_REVIN_LANES];
    double t0 = block_tree(sh0, p0), t1 = block_tree(sh1, p1);
    if (threadIdx.x == 0) partials[blockIdx.x] = t0, partials[gridDim.x + blockIdx.x] = t1;
}

static __global__ void revin_patch_pieces(double *partials, const float *dp, const float *x, size_t ldx,
                                          const float *stats, fc_revin_shape s, size_t n, fc_reduce_split split) {
    fc_reduce_piece pc = fc_reduce_piece_of(split, n, blockIdx.x);
    double p0, p1;
    fc_revin_patch_lane_sums(dp, x, ldx, stats, s, pc.start, pc.count, threadIdx.x, &p0, &p1);
    piece_totals(partials, p0, p1);
}

/* a = w + eps^2 is computed on the device: affine is device memory. */
static __global__ void revin_denorm_pieces(double *partials, float *dz, const float *dy, const float *y,
                                           const float *stats, size_t n, const float *affine, float eps,
                                           size_t total, fc_reduce_split split) {
    fc_reduce_piece pc = fc_reduce_piece_of(split, total, blockIdx.x);
    double p0, p1;
    fc_revin_denorm_lane(dz, dy, y, stats, n, fc_revin_denorm_div(affine, eps), pc.start, pc.count, threadIdx.x,
                         &p0, &p1);
    piece_totals(partials, p0, p1);
}

static __global__ void revin_finish(float *daffine, const double *partials, size_t pieces) {
    fc_revin_param_finish(daffine, partials, partials + pieces, pieces);
}

static __global__ void revin_denorm_kernel(float *y, const float *stats, size_t n, const float *affine, float eps,
                                           size_t total) {
    double a = fc_revin_denorm_div(affine, eps);
    for (size_t t = fc_first_index(); t < total; t += fc_grid_stride())
        y[t] = fc_revin_denorm_point(y[t], stats + 2 * (t / n), affine, a);
}

/* dz without affine (a = 1). */
static __global__ void revin_dz_kernel(float *dz, const float *dy, const float *stats, size_t n, size_t total) {
    for (size_t t = fc_first_index(); t < total; t += fc_grid_stride())
        dz[t] = fc_revin_denorm_dz(dy[t], stats + 2 * (t / n), 1.0);
}

void fc_cuda_revin_patch_forward(fc_backend *be, float *patches, float *stats, const float *x, size_t ldx, size_t B,
                                 size_t L, size_t patch_len, size_t stride, size_t P, int revin, int subtract_last,
                                 const float *affine, float eps) {
    FC_ASSERT(L > 0 && patch_len > 0 && stride > 0 && P > 0);
    FC_ASSERT((P - 1) * stride + patch_len <= L + stride);   /* unfold stays inside the padded window */
    FC_ASSERT(revin || !affine);   /* the affine parameters are RevIN's */
    fc_revin_shape s = {L, patch_len, stride, P};
    fc_launch l = fc_cuda_grid(B * FC_LN_LANES);
    if (!l.grid) return;
    revin_patch_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(patches, stats, x, ldx, B, s, revin,
                                                                   subtract_last, affine, eps);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("revin_patch_kernel"));
}

/* The pieces' totals (already queued into d_partials) added into daffine. */
static void finish(fc_backend *be, float *daffine, size_t pieces) {
    revin_finish<<<1, 1, 0, fc_cuda_stream(be)>>>(daffine, fc_cuda_impl_of(be)->d_partials, pieces);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("revin_finish"));
}

void fc_cuda_revin_patch_backward(fc_backend *be, float *daffine, const float *dpatches, const float *stats,
                                  const float *x, size_t ldx, size_t B, size_t L, size_t patch_len, size_t stride,
                                  size_t P, const float *affine) {
    if (!affine) return;   /* backend.h: only the affine parameters have a gradient */
    fc_revin_shape s = {L, patch_len, stride, P};
    size_t n = B * P * patch_len;
    fc_reduce_split split = fc_reduce_split_of(n);
    if (split.blocks) {
        revin_patch_pieces<<<(unsigned)split.blocks, FC_REVIN_LANES, 0, fc_cuda_stream(be)>>>(
            fc_cuda_impl_of(be)->d_partials, dpatches, x, ldx, stats, s, n, split);
        fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("revin_patch_pieces"));
    }
    finish(be, daffine, split.blocks);   /* also for n == 0: the CPU adds 0.0f too */
}

void fc_cuda_revin_denorm_forward(fc_backend *be, float *y, const float *stats, size_t B, size_t n,
                                  const float *affine, float eps) {
    fc_launch l = fc_cuda_grid(B * n);
    if (!l.grid) return;
    revin_denorm_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, stats, n, affine, eps, B * n);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("revin_denorm_kernel"));
}

/* With affine: the pieces' lanes write dz as they add the sums (one pass
 * over dy and y); without, dz alone, a thread per point. */
void fc_cuda_revin_denorm_backward(fc_backend *be, float *dz, const float *dy, const float *y, const float *stats,
                                   size_t B, size_t n, const float *affine, float *daffine, float eps) {
    size_t total = B * n;
    if (!affine) {
        fc_launch l = fc_cuda_grid(total);
        if (!l.grid) return;
        revin_dz_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dz, dy, stats, n, total);
        fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("revin_dz_kernel"));
        return;
    }
    fc_reduce_split split = fc_reduce_split_of(total);
    if (split.blocks) {
        revin_denorm_pieces<<<(unsigned)split.blocks, FC_REVIN_LANES, 0, fc_cuda_stream(be)>>>(
            fc_cuda_impl_of(be)->d_partials, dz, dy, y, stats, n, affine, eps, total, split);
        fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("revin_denorm_pieces"));
    }
    finish(be, daffine, split.blocks);
}
