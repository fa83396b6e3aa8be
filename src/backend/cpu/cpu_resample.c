/* Pooling and interpolation on CPU (N-HiTS's input pooling and forecast
 * interpolation): one row per OpenMP iteration over the kernels/ bodies. */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"
#include "kernels/interp_linear.h"
#include "kernels/interp_cubic.h"
#include "kernels/interp_nearest.h"
#include "kernels/maxpool1d.h"

void fc_cpu_maxpool1d_forward(fc_backend *be, float *y, int32_t *argmax, const float *x,
                              size_t B, size_t L, size_t k) {
    FC_ASSERT(k > 0); /* the model's configuration check rejects k == 0 */
    size_t n_out = fc_maxpool1d_out_len(L, k);
#pragma omp parallel for if (B * L >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_maxpool1d_row_forward(x + r * L, L, k, y + r * n_out, argmax + r * n_out);
}

void fc_cpu_maxpool1d_backward(fc_backend *be, float *dx, const float *dy,
                               const int32_t *argmax, size_t B, size_t L, size_t k) {
    FC_ASSERT(k > 0);
    size_t n_out = fc_maxpool1d_out_len(L, k);
#pragma omp parallel for if (B * L >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_maxpool1d_row_backward(dx + r * L, L, dy + r * n_out, argmax + r * n_out, k);
}

void fc_cpu_interp_linear_forward(fc_backend *be, float *y, size_t ldy, const float *x,
                                  size_t ldx, size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0); /* there is nothing to interpolate from */
#pragma omp parallel for if (B * n_out >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_interp_linear_row_forward(y + r * ldy, x + r * ldx, n_in, n_out);
}

void fc_cpu_interp_linear_backward(fc_backend *be, float *dx, size_t ldx, const float *dy,
                                   size_t ldy, size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);
#pragma omp parallel for if (B * n_out >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_interp_linear_row_backward(dx + r * ldx, dy + r * ldy, n_in, n_out);
}

void fc_cpu_interp_nearest_forward(fc_backend *be, float *y, size_t ldy, const float *x,
                                   size_t ldx, size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0); /* there is nothing to interpolate from */
#pragma omp parallel for if (B * n_out >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_interp_nearest_row_forward(y + r * ldy, x + r * ldx, n_in, n_out);
}

void fc_cpu_interp_nearest_backward(fc_backend *be, float *dx, size_t ldx, const float *dy,
                                    size_t ldy, size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);
#pragma omp parallel for if (B * n_out >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_interp_nearest_row_backward(dx + r * ldx, dy + r * ldy, n_in, n_out);
}

void fc_cpu_interp_cubic_forward(fc_backend *be, float *y, size_t ldy, const float *x,
                                 size_t ldx, size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0); /* there is nothing to interpolate from */
#pragma omp parallel for if (B * n_out >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_interp_cubic_row_forward(y + r * ldy, x + r * ldx, n_in, n_out);
}

void fc_cpu_interp_cubic_backward(fc_backend *be, float *dx, size_t ldx, const float *dy,
                                  size_t ldy, size_t B, size_t n_in, size_t n_out) {
    FC_ASSERT(n_in > 0);
#pragma omp parallel for if (B * n_out >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t r = 0; r < B; r++)
        fc_interp_cubic_row_backward(dx + r * ldx, dy + r * ldy, n_in, n_out);
}
