/* Adam on CPU: the per-step scalars once on the host (double, as torch's
 * Python floats), then an OpenMP loop over the element body; and the whole
 * optimizer step of backend.h's optimizer_step over the shared decision
 * and element math (kernels/optimizer_step.h). */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "kernels/adam.h"
#include "kernels/optimizer_step.h"

void fc_cpu_adam_step(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n,
                      float lr, float beta1, float beta2, float eps, int64_t step) {
    fc_adam_scalars s = fc_adam_scalars_make(lr, beta1, beta2, eps, step);
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) fc_adam_update(&p[i], g[i], &m[i], &v[i], s);
}

/* The norm by the backend's own sum of squares, so its bits are those the
 * trainer read back before the decision moved here. */
void fc_cpu_optimizer_step(fc_backend *be, float *p, float *g, float *m, float *v, size_t n,
                           const fc_step_in *in, fc_step_out *out) {
    double ss = 0.0;
    if (in->need_norm) fc_cpu_sum_squares(be, &ss, g, n);
    fc_step_decide(in, ss, out);
    if (!out->applied) return;
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) fc_step_update(&p[i], &g[i], &m[i], &v[i], in, out);
}
