/* Element-wise and per-row entries of the CPU backend: OpenMP loops over
 * the bodies of kernels/ (one row or element per iteration), parallel only
 * when the block is large enough to pay for the threads. */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
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
