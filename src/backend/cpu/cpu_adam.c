/* Adam on CPU: the per-step scalars once on the host (double, as torch's
 * Python floats), then an OpenMP loop over the element body; and the whole
 * optimizer step of backend.h's optimizer_step over the shared decision
 * and element math (kernels/optimizer_step.h). */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "kernels/adam.h"
#include "kernels/optimizer_step.h"

void fc_cpu_adam_step(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n,
                      float lr, float beta1, float beta2, float eps, float weight_decay, int kind, int64_t step) {
    fc_adam_scalars s = fc_adam_scalars_make(lr, beta1, beta2, eps, weight_decay, (fc_optimizer_kind)kind, step);
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) fc_adam_update(&p[i], g[i], &m[i], &v[i], s);
}

/* fc_step_update over every parameter, on restrict arrays, so the loop
 * vectorises: per element it is two divisions and a square root, which
 * scalar code cannot hide behind the memory traffic (6.6 ms of a 96 ms
 * N-HiTS step on Zen 4 before). Vector division and square root round as
 * the scalar ones do: the bits are the same. */
static void step_rows(fc_backend *be, float *restrict p, float *restrict g, float *restrict m, float *restrict v,
                      size_t n, fc_adam_scalars s, int scaled, float factor) {
#pragma omp parallel for simd if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) fc_step_update(&p[i], &g[i], &m[i], &v[i], s, scaled, factor);
}

/* The norm by the backend's own sum of squares, so its bits are those the
 * trainer read back before the decision moved here. */
void fc_cpu_optimizer_step(fc_backend *be, float *p, float *g, float *m, float *v, size_t n,
                           const fc_step_in *in, fc_step_out *out) {
    double ss = 0.0;
    if (in->need_norm) fc_cpu_sum_squares(be, &ss, g, n);
    fc_step_decide(in, ss, out);
    if (!out->applied) return;
    step_rows(be, p, g, m, v, n, in->adam, out->scaled, out->factor);
}
