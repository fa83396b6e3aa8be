/* Rounding fp32 buffers to bf16 (2-byte values for the bf16 kernels; bf16
 * values carried in fp32 where none runs or none beats fp32,
 * fc_cpu_bf16_native) or to fp16 values carried in fp32 (oneDNN 2.6 has no
 * fp16 matmul on CPU, so fp16 products run as fp32 products of
 * fp16-representable inputs: exact products, fp32 accumulation, the same
 * rounding and overflow a GPU's fp16 inputs see). The scalar bodies of
 * kernels/lowp.h vectorise under gcc, but for fp16's, whose subnormal
 * branch does not: there F16C's conversions (every x86-64 CPU since
 * Haswell and Piledriver) round the same way 20 times faster. */
#include "backend/cpu/cpu_internal.h"
#include "kernels/lowp.h"

#if defined(__x86_64__)
#include <immintrin.h>

/* vcvtps2ph rounds to nearest even (immediate 0), makes subnormals and
 * infinities as fc_f16_from_f32 does, and keeps a NaN a quiet NaN of the
 * same sign (its payload may differ from the scalar body's). */
__attribute__((target("avx,f16c"))) static void round_f16_f16c(float *dst, const float *src, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(src + i), _MM_FROUND_TO_NEAREST_INT);
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(h));
    }
    for (; i < n; i++) dst[i] = fc_round_f16(src[i]);
}

static int has_f16c(void) { return __builtin_cpu_supports("f16c"); }
#else
static void round_f16_f16c(float *dst, const float *src, size_t n) { (void)dst, (void)src, (void)n; }
static int has_f16c(void) { return 0; }
#endif

void fc_cpu_round_f16_span(float *dst, const float *src, size_t n) {
    if (has_f16c()) {
        round_f16_f16c(dst, src, n);
        return;
    }
    for (size_t i = 0; i < n; i++) dst[i] = fc_round_f16(src[i]);
}

/* fp16 spans of this many values per OpenMP task */
#define FC_F16_SPAN 4096

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
        size_t spans = (n + FC_F16_SPAN - 1) / FC_F16_SPAN;
#pragma omp parallel for if (n >= FC_CPU_PAR_MIN) num_threads(be->threads) schedule(static)
        for (size_t s = 0; s < spans; s++) {
            size_t i = s * FC_F16_SPAN;
            fc_cpu_round_f16_span(d + i, src + i, n - i < FC_F16_SPAN ? n - i : FC_F16_SPAN);
        }
    }
}
