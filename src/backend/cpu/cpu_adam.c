/* Adam on CPU: the per-step scalars once on the host (double, as torch's
 * Python floats), then an OpenMP loop over the element body. */
#include <omp.h>

#include "backend/cpu/cpu_internal.h"
#include "kernels/adam.h"

void fc_cpu_adam_step(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n,
                      float lr, float beta1, float beta2, float eps, int64_t step) {
    fc_adam_scalars s = fc_adam_scalars_make(lr, beta1, beta2, eps, step);
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) fc_adam_update(&p[i], g[i], &m[i], &v[i], s);
}
