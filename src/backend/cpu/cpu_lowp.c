/* Rounding fp32 buffers to bf16 (2-byte values for the bf16 kernels; bf16
 * values carried in fp32 where none runs, fc_cpu_bf16_native) or to fp16
 * values carried in fp32 (oneDNN 2.6 has no fp16 matmul on CPU,
 * so fp16 products run as fp32 products of fp16-representable inputs: exact
 * products, fp32 accumulation, the same rounding and overflow a GPU's fp16
 * inputs see). The scalar bodies of kernels/lowp.h vectorise under gcc. */
#include "backend/cpu/cpu_internal.h"
#include "kernels/lowp.h"

int fc_cpu_prec_is_bf16(fc_precision prec) { return prec == FC_PREC_BF16 && fc_cpu_bf16_native(); }

void fc_cpu_round_to(fc_backend *be, void *dst, const float *src, size_t n, fc_precision prec) {
    if (prec == FC_PREC_BF16 && !fc_cpu_bf16_native()) {   /* bf16 values carried in fp32 */
        float *d = dst;
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
        for (size_t i = 0; i < n; i++) d[i] = fc_round_bf16(src[i]);
    } else if (prec == FC_PREC_BF16) {
        uint16_t *d = dst;
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
        for (size_t i = 0; i < n; i++) d[i] = fc_bf16_from_f32(src[i]);
    } else if (prec == FC_PREC_FP16) {
        float *d = dst;
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
        for (size_t i = 0; i < n; i++) d[i] = fc_round_f16(src[i]);
    }
}
