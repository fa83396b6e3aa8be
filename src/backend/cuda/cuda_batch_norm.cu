/* Batch norm of the CUDA backend: __global__ wrappers over the bodies of
 * kernels/batch_norm.h. Training (forward and backward) runs one block of
 * FC_BN_LANES threads per column (a grid stride past FC_LAUNCH_MAX_GRID
 * columns): thread l computes the column sums' lane partial l and the
 * block adds the partials by the header's halving tree in shared memory,
 * the CPU's additions, so the two devices give the same bits; no atomics.
 * A thread's rows are C floats apart, so a warp's loads are not coalesced;
 * neighbouring columns run in neighbouring blocks at about the same time
 * and share the L2 sectors (8 columns each), so device memory is read
 * about once. Eval is per point, one thread per element. */
#include "backend/cuda/cuda_internal.h"
#include "kernels/batch_norm.h"

static_assert((FC_BN_LANES & (FC_BN_LANES - 1)) == 0 && FC_BN_LANES <= 1024, "one block of lanes, halved to one");

/* fc_bn_tree over the block's partials (one per thread): the same pairs
 * added level by level. Every thread must call it and gets the total; the
 * last barrier keeps a following call from overwriting sh[0] before every
 * thread has read it. */
static __device__ double block_tree(double *sh, double part) {
    unsigned l = threadIdx.x;
    sh[l] = part;
    __syncthreads();
    for (unsigned h = FC_BN_LANES / 2; h > 0; h /= 2) {
        if (l < h) sh[l] += sh[l + h];
        __syncthreads();
    }
    double total = sh[0];
    __syncthreads();
    return total;
}

/* Training forward, a block per column. y == x is safe: a column's y is
 * written after both of its sums have read every x of it. */
static __global__ void bn_train_kernel(float *y, const float *x, size_t N, size_t C, const float *gamma,
                                       const float *beta, float *running_mean, float *running_var, float *batches,
                                       float *mean, float *rstd, float momentum, float eps) {
    __shared__ double sh[FC_BN_LANES];
    size_t lane = threadIdx.x;
    if (batches && blockIdx.x == 0 && lane == 0) *batches += 1.0f;
    for (size_t c = blockIdx.x; c < C; c += gridDim.x) {
        double m = fc_bn_mean(block_tree(sh, fc_bn_lane_sum(x, N, C, c, lane)), N);
        double q = block_tree(sh, fc_bn_lane_sqdev(x, N, C, c, m, lane));
        float mf = (float)m, rf = fc_bn_rstd(q, N, eps);
        if (lane == 0) {
            mean[c] = mf, rstd[c] = rf;
            fc_bn_running(&running_mean[c], &running_var[c], m, q, N, momentum);
        }
        for (size_t r = lane; r < N; r += FC_BN_LANES)
            y[r * C + c] = fc_bn_point(x[r * C + c], mf, rf, gamma[c], beta[c]);
    }
}

static __global__ void bn_eval_kernel(float *y, const float *x, size_t C, const float *gamma, const float *beta,
                                      const float *running_mean, const float *running_var, float eps, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t c = t % C;
        y[t] = fc_bn_eval_point(x[t], running_mean[c], running_var[c], gamma[c], beta[c], eps);
    }
}

/* Backward, a block per column; dx == dy is safe as y == x above. */
static __global__ void bn_backward_kernel(float *dx, const float *dy, const float *x, size_t N, size_t C,
                                          const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                          float *dbeta) {
    __shared__ double sh[FC_BN_LANES];
    size_t lane = threadIdx.x;
    for (size_t c = blockIdx.x; c < C; c += gridDim.x) {
        float mf = mean[c], rf = rstd[c], gm = gamma[c];
        double pb, pgx, mg, mgx;
        fc_bn_lane_backward_sums(dy, x, N, C, c, mf, rf, lane, &pb, &pgx);
        double sb = block_tree(sh, pb), sgx = block_tree(sh, pgx);
        fc_bn_backward_means(sb, sgx, gm, N, &mg, &mgx);
        if (lane == 0) fc_bn_param_finish(&dgamma[c], &dbeta[c], sb, sgx);
        for (size_t r = lane; r < N; r += FC_BN_LANES)
            dx[r * C + c] = fc_bn_backward_point(dy[r * C + c], x[r * C + c], gm, mf, rf, mg, mgx);
    }
}

/* A block per column, at most FC_LAUNCH_MAX_GRID blocks (grid 0: C == 0). */
static fc_launch column_blocks(size_t C) {
    fc_launch l = {(unsigned)(C < FC_LAUNCH_MAX_GRID ? C : FC_LAUNCH_MAX_GRID), FC_BN_LANES};
    return l;
}

void fc_cuda_batch_norm_forward(fc_backend *be, float *y, const float *x, size_t N, size_t C, const float *gamma,
                                const float *beta, float *running_mean, float *running_var, float *batches,
                                float *mean, float *rstd, int training, float momentum, float eps) {
    if (!training) {
        fc_launch l = fc_cuda_grid(N * C);
        if (!l.grid) return;
        bn_eval_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, x, C, gamma, beta, running_mean, running_var,
                                                                   eps, N * C);
        fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("bn_eval_kernel"));
        return;
    }
    FC_ASSERT(N >= 2);   /* backend.h: the unbiased variance divides by N - 1 */
    fc_launch l = column_blocks(C);
    if (!l.grid) l.grid = 1;   /* C == 0: still one block, for the batch counter (as the CPU) */
    bn_train_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, x, N, C, gamma, beta, running_mean, running_var,
                                                                batches, mean, rstd, momentum, eps);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("bn_train_kernel"));
}

void fc_cuda_batch_norm_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t N, size_t C,
                                 const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                 float *dbeta) {
    fc_launch l = column_blocks(C);
    if (!l.grid) return;
    bn_backward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dx, dy, x, N, C, gamma, mean, rstd, dgamma, dbeta);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("bn_backward_kernel"));
}
