/* Element-wise and per-row entries of the CPU backend: OpenMP loops over
 * the bodies of kernels/ (one row or element per iteration; a block of
 * columns for layer norm's dgamma and dbeta), parallel only when the block
 * is large enough to pay for the threads. */
#include <omp.h>
#include <string.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/dropout.h"
#include "kernels/layer_norm.h"
#include "kernels/lstm_cell.h"
#include "kernels/rows.h"
#include "kernels/transpose.h"

void fc_cpu_fill(fc_backend *be, float *x, float value, size_t n) {
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) x[i] = value;
}

void fc_cpu_scale(fc_backend *be, float *x, float s, size_t n) {
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) x[i] *= s;
}

void fc_cpu_flip_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx,
                      size_t B, size_t L) {
#pragma omp parallel for if (B * L >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++) fc_flip_row(y + r * ldy, x + r * ldx, L);
}

void fc_cpu_axpby_rows(fc_backend *be, float *y, size_t ldy, float alpha, const float *x,
                       size_t ldx, float beta, size_t B, size_t C) {
#pragma omp parallel for if (B * C >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++) fc_axpby_row(y + r * ldy, alpha, x + r * ldx, beta, C);
}

void fc_cpu_mul_rows(fc_backend *be, float *y, size_t ldy, const float *m, size_t ldm,
                     size_t B, size_t C) {
#pragma omp parallel for if (B * C >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++) fc_mul_row(y + r * ldy, m + r * ldm, C);
}

void fc_cpu_broadcast_col(fc_backend *be, float *y, const float *x, size_t ldx, size_t col,
                          size_t B, size_t C) {
#pragma omp parallel for if (B * C >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++) fc_fill_row(y + r * C, x[r * ldx + col], C);
}

void fc_cpu_sum_rows_into_col(fc_backend *be, float *x, size_t ldx, size_t col,
                              const float *dy, size_t B, size_t C) {
#pragma omp parallel for if (B * C >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++) x[r * ldx + col] += fc_sum_row(dy + r * C, C);
}

void fc_cpu_transpose_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx,
                           size_t B, size_t A, size_t C) {
#pragma omp parallel for if (B * A * C >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++) fc_transpose_row(y + r * ldy, x + r * ldx, A, C);
}

/* A point of the LSTM cell costs three expf and two tanhf (forward), one
 * tanhf (backward): about 40 ns forward on the development machine, against
 * a nanosecond for the plain element-wise ops, so 1024 points (some 40 us)
 * already pay for an OpenMP region. */
#define FC_CPU_LSTM_PAR_MIN ((size_t)1 << 10)

void fc_cpu_lstm_cell_forward(fc_backend *be, float *gates, size_t ldg, const float *c_prev, float *c, size_t ldc,
                              float *h, size_t ldh, size_t B, size_t H) {
#pragma omp parallel for if (B * H >= FC_CPU_LSTM_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_lstm_cell_row(gates + r * ldg, c_prev ? c_prev + r * ldc : NULL, c + r * ldc, h + r * ldh, H);
}

void fc_cpu_lstm_cell_backward(fc_backend *be, float *dgates, size_t lddg, const float *gates, size_t ldg,
                               const float *c_prev, const float *c, size_t ldc, const float *dh, size_t ldh,
                               float *dc, size_t lddc, size_t B, size_t H) {
    FC_ASSERT(dc != NULL);   /* backend.h: dc is never NULL (zeros before the last step) */
#pragma omp parallel for if (B * H >= FC_CPU_LSTM_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_lstm_cell_backward_row(dgates + r * lddg, gates + r * ldg, c_prev ? c_prev + r * ldc : NULL, c + r * ldc,
                                  dh + r * ldh, dc + r * lddc, H);
}

/* ---- layer norm (kernels/layer_norm.h) ---- */

void fc_cpu_layer_norm_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, const float *gamma,
                               const float *beta, float *mean, float *rstd, size_t B, size_t D, float eps) {
    FC_ASSERT(D > 0);   /* backend.h: a row of no values has no mean */
#pragma omp parallel for if (B * D >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_layer_norm_row(y + r * ldy, x + r * ldx, gamma, beta, &mean[r], &rstd[r], D, eps);
}

/* Columns per block of the dgamma / dbeta pass: each thread walks the rows
 * once for a block of columns (two cache lines of each row), adding row r
 * into each column's sums in row order, as the GPU's thread per column
 * does; a column at a time would fetch a cache line per element. */
#define FC_CPU_LN_COLS 32

void fc_cpu_layer_norm_backward(fc_backend *be, float *dx, size_t lddx, const float *dy, size_t lddy, const float *x,
                                size_t ldx, const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                float *dbeta, size_t B, size_t D) {
    FC_ASSERT(D > 0);
    size_t blocks = (D + FC_CPU_LN_COLS - 1) / FC_CPU_LN_COLS;
    /* dgamma and dbeta first: dx may be dy, which the row pass overwrites */
#pragma omp parallel for if (B * D >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t k = 0; k < blocks; k++) {
        size_t c0 = k * FC_CPU_LN_COLS, n = D - c0 < FC_CPU_LN_COLS ? D - c0 : FC_CPU_LN_COLS;
        double sg[FC_CPU_LN_COLS], sb[FC_CPU_LN_COLS];
        for (size_t i = 0; i < n; i++) sg[i] = 0.0, sb[i] = 0.0;
        for (size_t r = 0; r < B; r++) {
            const float *dyr = dy + r * lddy + c0, *xr = x + r * ldx + c0;
            for (size_t i = 0; i < n; i++) fc_layer_norm_param_step(&sg[i], &sb[i], dyr[i], xr[i], mean[r], rstd[r]);
        }
        for (size_t i = 0; i < n; i++) fc_layer_norm_param_finish(&dgamma[c0 + i], &dbeta[c0 + i], sg[i], sb[i]);
    }
#pragma omp parallel for if (B * D >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_layer_norm_backward_row(dx + r * lddx, dy + r * lddy, x + r * ldx, gamma, mean[r], rstd[r], D);
}

/* ---- dropout (kernels/dropout.h) ---- */

/* A point costs a Philox block (ten rounds of two 32-bit multiplies) and a
 * division, some 10 ns: 4096 points pay for an OpenMP region. */
#define FC_CPU_DROPOUT_PAR_MIN ((size_t)1 << 12)

void fc_cpu_dropout(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t C, float p,
                    uint64_t seed, uint64_t offset) {
    FC_ASSERT(p >= 0.0f && p < 1.0f);   /* backend.h; also refuses NaN */
    if (p == 0.0f) {   /* a copy: the bits of x, NaN payloads included */
        if (y == x) return;
#pragma omp parallel for if (B * C >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
        for (size_t r = 0; r < B; r++) memcpy(y + r * ldy, x + r * ldx, C * sizeof *y);
        return;
    }
#pragma omp parallel for if (B * C >= FC_CPU_DROPOUT_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++) fc_dropout_row(y + r * ldy, x + r * ldx, C, p, seed, offset + r * C);
}
