/* PatchTST's RevIN and patching on the CPU backend (kernels/revin_patch.h):
 * a window per iteration of an OpenMP loop for the forward passes and the
 * plain dz; the d affine sums over the pieces of fc_reduce_split_of, a
 * piece per iteration, its FC_REVIN_LANES lanes one after the other (the
 * GPU's threads) and their tree, then the pieces in order on one thread:
 * the GPU's bits, for any thread count. No allocation: the pieces' totals
 * (at most FC_REDUCE_MAX_BLOCKS) live on the stack. */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "backend/reduce_geometry.h"
#include "core/error.h"
#include "kernels/revin_patch.h"

void fc_cpu_revin_patch_forward(fc_backend *be, float *patches, float *stats, const float *x, size_t ldx, size_t B,
                                size_t L, size_t patch_len, size_t stride, size_t P, int revin, int subtract_last,
                                const float *affine, float eps) {
    FC_ASSERT(L > 0 && patch_len > 0 && stride > 0 && P > 0);
    FC_ASSERT((P - 1) * stride + patch_len <= L + stride);   /* unfold stays inside the padded window */
    FC_ASSERT(revin || !affine);   /* the affine parameters are RevIN's */
    size_t per = P * patch_len;
#pragma omp parallel for if (B * per >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++) {
        fc_revin_row_stats(stats + 2 * r, x + r * ldx, L, revin, subtract_last, eps);
        fc_revin_patch_row(patches + r * per, x + r * ldx, L, patch_len, stride, P, stats + 2 * r, affine);
    }
}

void fc_cpu_revin_patch_backward(fc_backend *be, float *daffine, const float *dpatches, const float *stats,
                                 const float *x, size_t ldx, size_t B, size_t L, size_t patch_len, size_t stride,
                                 size_t P, const float *affine) {
    if (!affine) return;   /* backend.h: only the affine parameters have a gradient */
    fc_revin_shape s = {L, patch_len, stride, P};
    size_t n = B * P * patch_len;
    fc_reduce_split split = fc_reduce_split_of(n);
    double piece0[FC_REDUCE_MAX_BLOCKS], piece1[FC_REDUCE_MAX_BLOCKS];
#pragma omp parallel for if (split.blocks > 1) num_threads(be->threads) schedule(static)
    for (size_t b = 0; b < split.blocks; b++) {
        fc_reduce_piece pc = fc_reduce_piece_of(split, n, b);
        double p0[FC_REVIN_LANES], p1[FC_REVIN_LANES];
        for (size_t l = 0; l < FC_REVIN_LANES; l++)
            fc_revin_patch_lane_sums(dpatches, x, ldx, stats, s, pc.start, pc.count, l, &p0[l], &p1[l]);
        piece0[b] = fc_revin_tree(p0);
        piece1[b] = fc_revin_tree(p1);
    }
    fc_revin_param_finish(daffine, piece0, piece1, split.blocks);
}

void fc_cpu_revin_denorm_forward(fc_backend *be, float *y, const float *stats, size_t B, size_t n,
                                 const float *affine, float eps) {
    double a = fc_revin_denorm_div(affine, eps);
#pragma omp parallel for if (B * n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        for (size_t k = 0; k < n; k++) y[r * n + k] = fc_revin_denorm_point(y[r * n + k], stats + 2 * r, affine, a);
}

/* With affine: the lanes of each piece write dz as they add the sums. */
static void denorm_backward_affine(fc_backend *be, float *dz, const float *dy, const float *y, const float *stats,
                                   size_t B, size_t n, double a, float *daffine) {
    size_t total = B * n;
    fc_reduce_split split = fc_reduce_split_of(total);
    double piece0[FC_REDUCE_MAX_BLOCKS], piece1[FC_REDUCE_MAX_BLOCKS];
#pragma omp parallel for if (split.blocks > 1) num_threads(be->threads) schedule(static)
    for (size_t b = 0; b < split.blocks; b++) {
        fc_reduce_piece pc = fc_reduce_piece_of(split, total, b);
        double p0[FC_REVIN_LANES], p1[FC_REVIN_LANES];
        for (size_t l = 0; l < FC_REVIN_LANES; l++)
            fc_revin_denorm_lane(dz, dy, y, stats, n, a, pc.start, pc.count, l, &p0[l], &p1[l]);
        piece0[b] = fc_revin_tree(p0);
        piece1[b] = fc_revin_tree(p1);
    }
    fc_revin_param_finish(daffine, piece0, piece1, split.blocks);
}

void fc_cpu_revin_denorm_backward(fc_backend *be, float *dz, const float *dy, const float *y, const float *stats,
                                  size_t B, size_t n, const float *affine, float *daffine, float eps) {
    double a = fc_revin_denorm_div(affine, eps);
    if (affine) {
        denorm_backward_affine(be, dz, dy, y, stats, B, n, a, daffine);
        return;
    }
#pragma omp parallel for if (B * n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        for (size_t k = 0; k < n; k++) dz[r * n + k] = fc_revin_denorm_dz(dy[r * n + k], stats + 2 * r, a);
}
