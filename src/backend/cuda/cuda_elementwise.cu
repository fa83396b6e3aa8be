/* Element-wise and per-row entries of the CUDA backend: thin __global__
 * wrappers over the kernels/ bodies the CPU backend loops over, so the GPU
 * does the CPU's arithmetic element for element (the library is built with
 * --fmad=false: nothing is contracted that the CPU does not contract).
 *
 * One thread per element where the body works per element or the entry
 * only moves data; one thread per row where the body accumulates along the
 * row (sum_rows_into_col); one thread per input point for the two scatters
 * (maxpool and interpolation backward), which gather into each point the
 * very adds the row body's scatter makes to it, in the same order, from
 * the same 0.0f. Row-per-thread scatters would leave most of the GPU idle
 * and write rows with a stride between threads.
 * The LSTM cell runs one thread per unit of a row, which computes the
 * unit's four gates (kernels/lstm_cell.h). Layer norm runs one warp per
 * row, lane l computing the row sums' partial l (kernels/layer_norm.h cuts
 * every row sum into 32 lane partials, which the CPU computes one after
 * the other), and one thread per column for dgamma and dbeta, which adds
 * the rows in order (no atomics). Dropout runs one thread per point.
 *
 * Every kernel runs on impl->stream and loops with a grid stride over
 * size_t indices (fc_launch_1d); nothing is launched for an empty block.
 * i + stride cannot wrap: n counts floats in device memory (n < 2^62) and
 * the stride is below 2^24 (test_reduce_geometry). */
#include <stdint.h>
#include <string.h>

#include "backend/cuda/cuda_internal.h"
#include "backend/cuda/cuda_warp.cuh"
#include "kernels/dropout.h"
#include "kernels/interp_linear.h"
#include "kernels/interp_cubic.h"
#include "kernels/interp_nearest.h"
#include "kernels/layer_norm.h"
#include "kernels/lstm_cell.h"
#include "kernels/maxpool1d.h"
#include "kernels/rows.h"
#include "kernels/transpose.h"



/* ---- fill, scale ---- */

static __global__ void fill_kernel(float *x, float value, size_t n) {
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride()) x[i] = value;
}

static __global__ void scale_kernel(float *x, float s, size_t n) {
    for (size_t i = fc_first_index(); i < n; i += fc_grid_stride()) x[i] *= s;
}

/* +0.0f is all zero bytes, which the copy engine writes fastest; -0.0f
 * (== 0.0f, other bits) and everything else goes through the kernel. */
void fc_cuda_fill(fc_backend *be, float *x, float value, size_t n) {
    if (n == 0) return;
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    if (bits == 0) {
        fc_cuda_note_failure(be, FC_CUDA(cudaMemsetAsync(x, 0, n * sizeof(float), fc_cuda_stream(be))));
        return;
    }
    fc_launch l = fc_cuda_grid(n);
    fill_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(x, value, n);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("fill_kernel"));
}

void fc_cuda_scale(fc_backend *be, float *x, float s, size_t n) {
    fc_launch l = fc_cuda_grid(n);
    if (!l.grid) return;
    scale_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(x, s, n);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("scale_kernel"));
}

/* ---- strided (B, C) blocks: n = B * C, item t is row t / C, column t % C ---- */

/* One pair (i, L-1-i) of a row per thread, both read before either is
 * written, as fc_flip_row swaps them: so y == x works as on the CPU. The
 * middle point of an odd row is its own pair. */
static __global__ void flip_pairs_kernel(float *y, size_t ldy, const float *x, size_t ldx, size_t L, size_t n) {
    size_t half = (L + 1) / 2;
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / half, i = t % half, j = L - 1 - i;
        float a = x[r * ldx + i], b = x[r * ldx + j];
        y[r * ldy + i] = b;
        y[r * ldy + j] = a;
    }
}

static __global__ void axpby_kernel(float *y, size_t ldy, float alpha, const float *x, size_t ldx, float beta,
                                    size_t C, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / C, c = t % C;
        float *yp = &y[r * ldy + c];
        *yp = fc_axpby(alpha, x[r * ldx + c], beta, *yp);
    }
}

/* fc_mul_row on a row of one: the body's own multiply, one element per thread. */
static __global__ void mul_kernel(float *y, size_t ldy, const float *m, size_t ldm, size_t C, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / C, c = t % C;
        fc_mul_row(&y[r * ldy + c], &m[r * ldm + c], 1);
    }
}

/* y is contiguous (B, C), as on the CPU (fc_fill_row(y + r * C, ...)). */
static __global__ void broadcast_col_kernel(float *y, const float *x, size_t ldx, size_t col, size_t C, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) y[t] = x[(t / C) * ldx + col];
}

/* One row per thread: fc_sum_row adds along the row in a fixed order,
 * which splitting the row would change. */
static __global__ void sum_rows_into_col_kernel(float *x, size_t ldx, size_t col, const float *dy, size_t B,
                                                size_t C) {
    for (size_t r = fc_first_index(); r < B; r += fc_grid_stride()) x[r * ldx + col] += fc_sum_row(dy + r * C, C);
}

void fc_cuda_flip_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t L) {
    size_t n = B * ((L + 1) / 2);
    fc_launch l = fc_cuda_grid(n);
    if (!l.grid) return;
    flip_pairs_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, x, ldx, L, n);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("flip_pairs_kernel"));
}

void fc_cuda_axpby_rows(fc_backend *be, float *y, size_t ldy, float alpha, const float *x, size_t ldx,
                        float beta, size_t B, size_t C) {
    fc_launch l = fc_cuda_grid(B * C);
    if (!l.grid) return;
    axpby_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, alpha, x, ldx, beta, C, B * C);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("axpby_kernel"));
}

void fc_cuda_mul_rows(fc_backend *be, float *y, size_t ldy, const float *m, size_t ldm, size_t B, size_t C) {
    fc_launch l = fc_cuda_grid(B * C);
    if (!l.grid) return;
    mul_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, m, ldm, C, B * C);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("mul_kernel"));
}

void fc_cuda_broadcast_col(fc_backend *be, float *y, const float *x, size_t ldx, size_t col, size_t B, size_t C) {
    fc_launch l = fc_cuda_grid(B * C);
    if (!l.grid) return;
    broadcast_col_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, x, ldx, col, C, B * C);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("broadcast_col_kernel"));
}

/* Launched over the B rows even when C == 0: the CPU still adds
 * fc_sum_row's 0.0f to each x[r, col] (which turns -0.0f into +0.0f). */
void fc_cuda_sum_rows_into_col(fc_backend *be, float *x, size_t ldx, size_t col, const float *dy, size_t B,
                               size_t C) {
    fc_launch l = fc_cuda_grid(B);
    if (!l.grid) return;
    sum_rows_into_col_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(x, ldx, col, dy, B, C);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("sum_rows_into_col_kernel"));
}

/* One thread per output element, in y's order (coalesced writes; the
 * reads stride by C, which the small (Q, H) blocks of a model keep in
 * cache). */
static __global__ void transpose_kernel(float *y, size_t ldy, const float *x, size_t ldx, size_t A, size_t C,
                                        size_t n) {
    size_t per_row = A * C;
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / per_row;
        fc_transpose_point(y + r * ldy, x + r * ldx, A, C, t % per_row);
    }
}

void fc_cuda_transpose_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t A,
                            size_t C) {
    fc_launch l = fc_cuda_grid(B * A * C);
    if (!l.grid) return;
    transpose_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, x, ldx, A, C, B * A * C);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("transpose_kernel"));
}

/* ---- LSTM cell: gates (B, 4H), c_prev, c, h, dh, dc (B, H), each with its row stride ---- */

/* One thread per point (b, j), t = b H + j: the body reads and writes only
 * unit j of row b (its four gates, c, h; in the backward its four d gates
 * and dc in place), so no two threads touch one element, and dgates may be
 * gates itself. Threads of a warp hold consecutive units of a row:
 * coalesced loads of each gate slice. */
static __global__ void lstm_cell_forward_kernel(float *gates, size_t ldg, const float *c_prev, float *c, size_t ldc,
                                                float *h, size_t ldh, size_t H, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / H, j = t % H;
        fc_lstm_cell_point(gates + r * ldg, c_prev ? c_prev + r * ldc : NULL, c + r * ldc, h + r * ldh, H, j);
    }
}

static __global__ void lstm_cell_backward_kernel(float *dgates, size_t lddg, const float *gates, size_t ldg,
                                                 const float *c_prev, const float *c, size_t ldc, const float *dh,
                                                 size_t ldh, float *dc, size_t lddc, size_t H, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / H, j = t % H;
        fc_lstm_cell_backward_point(dgates + r * lddg, gates + r * ldg, c_prev ? c_prev + r * ldc : NULL,
                                    c + r * ldc, dh + r * ldh, dc + r * lddc, H, j);
    }
}

/* B * H == 0 launches nothing (fc_cuda_grid's grid 0), as the CPU's loops
 * do nothing; H > 0 inside the kernels, so t / H is defined. */
void fc_cuda_lstm_cell_forward(fc_backend *be, float *gates, size_t ldg, const float *c_prev, float *c, size_t ldc,
                               float *h, size_t ldh, size_t B, size_t H) {
    fc_launch l = fc_cuda_grid(B * H);
    if (!l.grid) return;
    lstm_cell_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(gates, ldg, c_prev, c, ldc, h, ldh, H,
                                                                          B * H);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("lstm_cell_forward_kernel"));
}

void fc_cuda_lstm_cell_backward(fc_backend *be, float *dgates, size_t lddg, const float *gates, size_t ldg,
                                const float *c_prev, const float *c, size_t ldc, const float *dh, size_t ldh,
                                float *dc, size_t lddc, size_t B, size_t H) {
    FC_ASSERT(dc != NULL);   /* backend.h: dc is never NULL (zeros before the last step) */
    fc_launch l = fc_cuda_grid(B * H);
    if (!l.grid) return;
    lstm_cell_backward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dgates, lddg, gates, ldg, c_prev, c, ldc,
                                                                           dh, ldh, dc, lddc, H, B * H);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("lstm_cell_backward_kernel"));
}

/* ---- layer norm: x, y, dy, dx (B, D) with their row strides; mean, rstd (B); gamma, beta, dgamma, dbeta (D) ---- */

/* A warp per row: the launch's threads are numbered in warps (blocks hold
 * whole warps), warp w takes rows w, w + warps, ..., so every lane of a
 * warp runs the same rows and meets the same shuffles. */
static_assert(FC_LN_LANES == 32 && FC_LAUNCH_BLOCK % FC_LN_LANES == 0, "layer norm: one warp of 32 lanes per row");

/* fc_layer_norm_row, lane by lane. y == x is safe: y[j] is written by
 * the lane that reads x[j], after both sums have read the whole row. */
static __global__ void layer_norm_forward_kernel(float *y, size_t ldy, const float *x, size_t ldx,
                                                 const float *gamma, const float *beta, float *mean, float *rstd,
                                                 size_t B, size_t D, float eps) {
    size_t lane = fc_first_index() % FC_LN_LANES;
    for (size_t r = fc_first_index() / FC_LN_LANES; r < B; r += fc_grid_stride() / FC_LN_LANES) {
        const float *xr = x + r * ldx;
        double m = fc_layer_norm_mean(fc_warp_total(fc_layer_norm_lane_sum(xr, D, lane)), D);
        float mf = (float)m, rf = fc_layer_norm_rstd(fc_warp_total(fc_layer_norm_lane_sqdev(xr, D, m, lane)), D, eps);
        if (lane == 0) mean[r] = mf, rstd[r] = rf;
        float *yr = y + r * ldy;
        for (size_t j = lane; j < D; j += FC_LN_LANES) yr[j] = fc_layer_norm_point(xr[j], mf, rf, gamma[j], beta[j]);
    }
}

/* fc_layer_norm_backward_row, lane by lane; dx == dy is safe as above. */
static __global__ void layer_norm_backward_kernel(float *dx, size_t lddx, const float *dy, size_t lddy,
                                                  const float *x, size_t ldx, const float *gamma, const float *mean,
                                                  const float *rstd, size_t B, size_t D) {
    size_t lane = fc_first_index() % FC_LN_LANES;
    for (size_t r = fc_first_index() / FC_LN_LANES; r < B; r += fc_grid_stride() / FC_LN_LANES) {
        const float *dyr = dy + r * lddy, *xr = x + r * ldx;
        float mf = mean[r], rf = rstd[r];
        double sg, sgx;
        fc_layer_norm_backward_lane_sums(dyr, xr, gamma, mf, rf, D, lane, &sg, &sgx);
        double mg = fc_layer_norm_mean(fc_warp_total(sg), D), mgx = fc_layer_norm_mean(fc_warp_total(sgx), D);
        float *dxr = dx + r * lddx;
        for (size_t j = lane; j < D; j += FC_LN_LANES)
            dxr[j] = fc_layer_norm_backward_point(dyr[j], xr[j], gamma[j], mf, rf, mg, mgx);
    }
}

/* One thread per column, adding the rows in order as the CPU's column
 * blocks do (consecutive threads read consecutive columns of a row). The
 * loads do not depend on the sums: unrolling lets them be issued ahead
 * while the additions keep their order. */
static __global__ void layer_norm_params_kernel(float *dgamma, float *dbeta, const float *dy, size_t lddy,
                                                const float *x, size_t ldx, const float *mean, const float *rstd,
                                                size_t B, size_t D) {
    for (size_t c = fc_first_index(); c < D; c += fc_grid_stride()) {
        double sg = 0.0, sb = 0.0;
#pragma unroll 4
        for (size_t r = 0; r < B; r++)
            fc_layer_norm_param_step(&sg, &sb, dy[r * lddy + c], x[r * ldx + c], mean[r], rstd[r]);
        fc_layer_norm_param_finish(&dgamma[c], &dbeta[c], sg, sb);
    }
}

void fc_cuda_layer_norm_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, const float *gamma,
                                const float *beta, float *mean, float *rstd, size_t B, size_t D, float eps) {
    FC_ASSERT(D > 0);   /* backend.h: a row of no values has no mean */
    fc_launch l = fc_cuda_grid(B * FC_LN_LANES);
    if (!l.grid) return;
    layer_norm_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, x, ldx, gamma, beta, mean, rstd, B,
                                                                           D, eps);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("layer_norm_forward_kernel"));
}

/* dgamma and dbeta first (over the D columns even when B == 0: the CPU
 * still adds 0.0f to each), then dx, which may overwrite dy; both on the
 * one stream, so the second starts after the first has read dy. */
void fc_cuda_layer_norm_backward(fc_backend *be, float *dx, size_t lddx, const float *dy, size_t lddy, const float *x,
                                 size_t ldx, const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                 float *dbeta, size_t B, size_t D) {
    FC_ASSERT(D > 0);
    fc_launch lp = fc_cuda_grid(D);
    layer_norm_params_kernel<<<lp.grid, lp.block, 0, fc_cuda_stream(be)>>>(dgamma, dbeta, dy, lddy, x, ldx, mean, rstd,
                                                                            B, D);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("layer_norm_params_kernel"));
    fc_launch l = fc_cuda_grid(B * FC_LN_LANES);
    if (!l.grid) return;
    layer_norm_backward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dx, lddx, dy, lddy, x, ldx, gamma, mean,
                                                                            rstd, B, D);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("layer_norm_backward_kernel"));
}

/* ---- dropout: x, y (B, C) with their row strides; point t = r C + c has stream index offset + t ---- */

static __global__ void dropout_kernel(float *y, size_t ldy, const float *x, size_t ldx, size_t C, float p,
                                      uint64_t seed, uint64_t offset, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / C, c = t % C;
        y[r * ldy + c] = fc_dropout_point(x[r * ldx + c], p, seed, offset + t);
    }
}

/* p == 0 moves the floats' bits (NaN payloads included), as the CPU's memcpy. */
static __global__ void copy_rows_kernel(float *y, size_t ldy, const float *x, size_t ldx, size_t C, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / C, c = t % C;
        y[r * ldy + c] = x[r * ldx + c];
    }
}

void fc_cuda_dropout(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t C, float p,
                     uint64_t seed, uint64_t offset) {
    FC_ASSERT(p >= 0.0f && p < 1.0f);   /* backend.h; also refuses NaN */
    if (p == 0.0f && y == x) return;
    fc_launch l = fc_cuda_grid(B * C);
    if (!l.grid) return;   /* and C > 0 inside the kernels */
    if (p == 0.0f) {
        copy_rows_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, x, ldx, C, B * C);
        fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("copy_rows_kernel"));
        return;
    }
    dropout_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, x, ldx, C, p, seed, offset, B * C);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("dropout_kernel"));
}

/* ---- max pooling: x (B, L), y and argmax (B, n_out) ---- */

/* One output point per thread: fc_maxpool1d_point is the body's per-point step. */
static __global__ void maxpool_forward_kernel(float *y, int32_t *argmax, const float *x, size_t L, size_t k,
                                              size_t n_out, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / n_out, j = t % n_out;
        fc_maxpool1d_point(x + r * L, L, k, j, &y[t], &argmax[t]);
    }
}

static __global__ void maxpool_backward_kernel(float *dx, const float *dy, const int32_t *argmax, size_t L,
                                               size_t k, size_t n_out, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / L, i = t % L;
        dx[t] = fc_maxpool1d_backward_point(dy + r * n_out, argmax + r * n_out, k, i);
    }
}

void fc_cuda_maxpool1d_forward(fc_backend *be, float *y, int32_t *argmax, const float *x, size_t B, size_t L,
                               size_t k) {
    FC_ASSERT(k > 0);   /* the model's configuration check rejects k == 0 */
    size_t n_out = fc_maxpool1d_out_len(L, k);
    fc_launch l = fc_cuda_grid(B * n_out);
    if (!l.grid) return;
    maxpool_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, argmax, x, L, k, n_out, B * n_out);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("maxpool_forward_kernel"));
}

void fc_cuda_maxpool1d_backward(fc_backend *be, float *dx, const float *dy, const int32_t *argmax, size_t B,
                                size_t L, size_t k) {
    FC_ASSERT(k > 0);
    size_t n_out = fc_maxpool1d_out_len(L, k);
    fc_launch l = fc_cuda_grid(B * L);
    if (!l.grid) return;
    maxpool_backward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dx, dy, argmax, L, k, n_out, B * L);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("maxpool_backward_kernel"));
}

/* ---- linear interpolation: x (B, n_in) row stride ldx, y (B, n_out) row stride ldy ---- */

static __global__ void interp_forward_kernel(float *y, size_t ldy, const float *x, size_t ldx, size_t n_in,
                                             size_t n_out, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / n_out, j = t % n_out;
        y[r * ldy + j] = fc_interp_linear_point(x + r * ldx, n_in, n_out, j);
    }
}

static __global__ void interp_backward_kernel(float *dx, size_t ldx, const float *dy, size_t ldy, size_t n_in,
                                              size_t n_out, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / n_in, i = t % n_in;
        dx[r * ldx + i] = fc_interp_linear_backward_point(dy + r * ldy, n_in, n_out, i);
    }
}

void fc_cuda_interp_linear_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B,
                                   size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);   /* there is nothing to interpolate from */
    fc_launch l = fc_cuda_grid(B * n_out);
    if (!l.grid) return;
    interp_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, x, ldx, n_in, n_out, B * n_out);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("interp_forward_kernel"));
}

/* Over the B * n_in knots: with n_out == 0 each dx[i] is still zeroed, as on the CPU. */
void fc_cuda_interp_linear_backward(fc_backend *be, float *dx, size_t ldx, const float *dy, size_t ldy,
                                    size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);
    fc_launch l = fc_cuda_grid(B * n_in);
    if (!l.grid) return;
    interp_backward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dx, ldx, dy, ldy, n_in, n_out, B * n_in);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("interp_backward_kernel"));
}

/* ---- nearest interpolation: shapes and strides as the linear one's ---- */

static __global__ void interp_nearest_forward_kernel(float *y, size_t ldy, const float *x, size_t ldx, size_t n_in,
                                                     size_t n_out, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / n_out, j = t % n_out;
        y[r * ldy + j] = x[r * ldx + fc_interp_nearest_src(n_in, n_out, j)];
    }
}

static __global__ void interp_nearest_backward_kernel(float *dx, size_t ldx, const float *dy, size_t ldy,
                                                      size_t n_in, size_t n_out, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / n_in, i = t % n_in;
        dx[r * ldx + i] = fc_interp_nearest_backward_point(dy + r * ldy, n_in, n_out, i);
    }
}

void fc_cuda_interp_nearest_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B,
                                    size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);   /* there is nothing to interpolate from */
    fc_launch l = fc_cuda_grid(B * n_out);
    if (!l.grid) return;
    interp_nearest_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, x, ldx, n_in, n_out, B * n_out);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("interp_nearest_forward_kernel"));
}

/* One thread per knot, gathering (no atomics, the CPU's order of adds). */
void fc_cuda_interp_nearest_backward(fc_backend *be, float *dx, size_t ldx, const float *dy, size_t ldy,
                                     size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);
    fc_launch l = fc_cuda_grid(B * n_in);
    if (!l.grid) return;
    interp_nearest_backward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dx, ldx, dy, ldy, n_in, n_out,
                                                                               B * n_in);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("interp_nearest_backward_kernel"));
}

/* ---- cubic interpolation: shapes and strides as the linear one's ---- */

static __global__ void interp_cubic_forward_kernel(float *y, size_t ldy, const float *x, size_t ldx, size_t n_in,
                                                   size_t n_out, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / n_out, j = t % n_out;
        y[r * ldy + j] = fc_interp_cubic_point(x + r * ldx, n_in, n_out, j);
    }
}

static __global__ void interp_cubic_backward_kernel(float *dx, size_t ldx, const float *dy, size_t ldy,
                                                    size_t n_in, size_t n_out, size_t n) {
    for (size_t t = fc_first_index(); t < n; t += fc_grid_stride()) {
        size_t r = t / n_in, i = t % n_in;
        dx[r * ldx + i] = fc_interp_cubic_backward_point(dy + r * ldy, n_in, n_out, i);
    }
}

void fc_cuda_interp_cubic_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B,
                                  size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);   /* there is nothing to interpolate from */
    fc_launch l = fc_cuda_grid(B * n_out);
    if (!l.grid) return;
    interp_cubic_forward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(y, ldy, x, ldx, n_in, n_out, B * n_out);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("interp_cubic_forward_kernel"));
}

/* One thread per knot, gathering in the CPU's order of adds. */
void fc_cuda_interp_cubic_backward(fc_backend *be, float *dx, size_t ldx, const float *dy, size_t ldy,
                                   size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);
    fc_launch l = fc_cuda_grid(B * n_in);
    if (!l.grid) return;
    interp_cubic_backward_kernel<<<l.grid, l.block, 0, fc_cuda_stream(be)>>>(dx, ldx, dy, ldy, n_in, n_out, B * n_in);
    fc_cuda_note_failure(be, FC_CUDA_LAUNCHED("interp_cubic_backward_kernel"));
}
