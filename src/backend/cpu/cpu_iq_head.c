/* IQLoss's head on the CPU: OpenMP loops over the bodies of
 * kernels/iq_head.h, per point and per parameter (each parameter's sum in
 * point order, so any thread count gives the same bits). */
#include "backend/cpu/cpu_internal.h"
#include "kernels/iq_head.h"

/* A point's forward is 2 D^2 flops: split from a few points on. */
#define FC_CPU_IQ_PAR_MIN 64

void fc_cpu_iq_head_forward(fc_backend *be, const fc_iq_call *c) {
#pragma omp parallel for if (c->n >= FC_CPU_IQ_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < c->n; i++) fc_iq_forward_point(c, i);
}

void fc_cpu_iq_head_backward(fc_backend *be, const fc_iq_call *c) {
    fc_iq_layout l = fc_iq_param_offsets(c->D);
    size_t D = c->D, rest = l.total - l.b1;
#pragma omp parallel for if (c->n >= FC_CPU_IQ_PAR_MIN) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < c->n; i++) fc_iq_backward_point(c, i);
#pragma omp parallel for if (c->n >= FC_CPU_IQ_PAR_MIN) num_threads(be->threads) schedule(dynamic, 1)
    for (size_t q = 0; q < D + rest; q++) {
        double acc[FC_IQ_MAX_DIM];
        if (q < D) fc_iq_backward_w1_row(c, q, acc);
        else fc_iq_backward_param(c, l.b1 + (q - D));
    }
}

void fc_cpu_iq_taus(fc_backend *be, float *tau, size_t n, uint64_t seed, float concentration0, float concentration1) {
#pragma omp parallel for if (n >= 1024) num_threads(be->threads) schedule(static)
    for (size_t i = 0; i < n; i++) tau[i] = fc_iq_draw_tau(seed, i, concentration0, concentration1);
}
