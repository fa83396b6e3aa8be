/* The dense layer on CPU: y = act(x . w^T + b) as ONE oneDNN matmul with the
 * bias and ReLU fused; backward as two matmuls (input and weight gradients,
 * the latter accumulating through a sum post-op) and a column-sum loop for
 * the bias gradient. Parameter gradients accumulate (+=). */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "core/error.h"

static fc_status check_dims(const char *what, size_t B, size_t I, size_t O) {
    if (B == 0 || I == 0 || O == 0)
        return fc_error(FC_ERR_INVALID, "%s: every dimension must be positive (B=%zu I=%zu O=%zu)",
                        what, B, I, O);
    return FC_OK;
}

fc_status fc_cpu_linear_forward(fc_backend *be, float *y, const float *x, const float *w,
                                const float *b, size_t B, size_t I, size_t O, fc_activation act) {
    FC_TRY(check_dims("linear_forward", B, I, O));
    if (act != FC_ACT_NONE && act != FC_ACT_RELU)
        return fc_error(FC_ERR_INVALID, "linear_forward: unknown activation %d", (int)act);
    fc_mm_key key = {FC_MM_LINEAR_FORWARD, (int64_t)B, (int64_t)I, (int64_t)O, (int)act, b != NULL};
    fc_mm_entry *e;
    fc_cpu_use_threads(be);
    FC_TRY(fc_cpu_matmul_get(fc_cpu_impl_of(be), &key, &e));
    return fc_cpu_matmul_run(fc_cpu_impl_of(be), e, x, w, b, y);
}

/* Columns per task of the bias gradient: a task reads a (B, 64) strip of dy
 * row by row (one 256-byte span per row, friendly to the prefetcher). */
#define FC_DB_STRIP 64

/* db (O) += sum over B of dy (B,O). Each column belongs to one task and is
 * summed in row order in double, so the result is the same for ANY thread
 * count. */
static void bias_grad_accumulate(fc_backend *be, float *db, const float *dy, size_t B, size_t O) {
    size_t strips = (O + FC_DB_STRIP - 1) / FC_DB_STRIP;
#pragma omp parallel for if (B * O >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t s = 0; s < strips; s++) {
        size_t o0 = s * FC_DB_STRIP;
        size_t width = O - o0 < FC_DB_STRIP ? O - o0 : FC_DB_STRIP;
        double acc[FC_DB_STRIP] = {0};
        for (size_t r = 0; r < B; r++) {
            const float *row = dy + r * O + o0;
            for (size_t j = 0; j < width; j++) acc[j] += row[j];
        }
        for (size_t j = 0; j < width; j++) db[o0 + j] += (float)acc[j];
    }
}

fc_status fc_cpu_linear_backward(fc_backend *be, float *dx, float *dw, float *db,
                                 const float *dy, const float *x, const float *w,
                                 size_t B, size_t I, size_t O) {
    FC_TRY(check_dims("linear_backward", B, I, O));
    fc_cpu_impl *impl = fc_cpu_impl_of(be);
    fc_mm_entry *e;
    fc_cpu_use_threads(be);
    if (dx) {
        fc_mm_key key = {FC_MM_LINEAR_GRAD_INPUT, (int64_t)B, (int64_t)I, (int64_t)O, 0, 0};
        FC_TRY(fc_cpu_matmul_get(impl, &key, &e));
        FC_TRY(fc_cpu_matmul_run(impl, e, dy, w, NULL, dx));
    }
    fc_mm_key key = {FC_MM_LINEAR_GRAD_WEIGHT, (int64_t)B, (int64_t)I, (int64_t)O, 0, 0};
    FC_TRY(fc_cpu_matmul_get(impl, &key, &e));
    FC_TRY(fc_cpu_matmul_run(impl, e, dy, x, NULL, dw));
    if (db) bias_grad_accumulate(be, db, dy, B, O);
    return FC_OK;
}
