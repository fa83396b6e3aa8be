/* The bf16 block kernel on AVX512-BF16 (cpu_bf16_gemm.c does the rest),
 * for CPUs with VDPBF16PS but no usable AMX: AMD Zen 4 / Zen 5, Intel
 * Cooper Lake, and Intel cores in VMs that hide the tile state.
 *
 * VDPBF16PS adds to each of 16 fp32 lanes the products of one (k, k+1)
 * pair of bf16 values, twice the multiply-adds of an fp32 FMA: the packed
 * B block is already pairs of k for 16 columns per 64-byte row (the VNNI
 * layout AMX reads), and A's pair (A[m][k], A[m][k+1]) is one 32-bit
 * broadcast. A 32 x 32 block of C is computed 8 rows at a time: 8 x 2
 * accumulators, so each k pair is 2 loads of B, 8 broadcasts of A and 16
 * dot products, enough independent sums to cover the instruction's
 * latency. Like AMX it flushes denormal inputs and outputs to zero. */
#include "backend/cpu/cpu_internal.h"

#if defined(__x86_64__) && (defined(__clang__) ? __clang_major__ >= 9 : (defined(__GNUC__) && __GNUC__ >= 10))
#include <immintrin.h>
#include <pthread.h>
#include <string.h>

#define BF16_TARGET __attribute__((target("avx512f,avx512bf16")))
#define ROWS 8

/* out rows [0, 8) of a block = 8 rows of A (stride Kp) . 2 blocks of 16
 * packed columns. */
BF16_TARGET static void rows_product(const uint16_t *a, const uint16_t *b0, const uint16_t *b1, size_t Kp,
                                     float *out) {
    __m512 c0[ROWS], c1[ROWS];
    for (int r = 0; r < ROWS; r++) c0[r] = c1[r] = _mm512_setzero_ps();
    for (size_t k = 0; k < Kp; k += 2) {
        __m512bh w0 = (__m512bh)_mm512_load_si512(b0 + k * 16), w1 = (__m512bh)_mm512_load_si512(b1 + k * 16);
#pragma GCC unroll 8
        for (int r = 0; r < ROWS; r++) {
            int32_t pair;
            memcpy(&pair, a + (size_t)r * Kp + k, sizeof pair);
            __m512bh x = (__m512bh)_mm512_set1_epi32(pair);
            c0[r] = _mm512_dpbf16_ps(c0[r], x, w0);
            c1[r] = _mm512_dpbf16_ps(c1[r], x, w1);
        }
    }
    for (int r = 0; r < ROWS; r++) {
        _mm512_store_ps(out + r * 32, c0[r]);
        _mm512_store_ps(out + r * 32 + 16, c1[r]);
    }
}

/* out (32, 32) fp32 = A rows [m0, m0+32) . B columns [16*nb0, 16*nb0+32). */
static void block_product(const uint16_t *Ap, const uint16_t *Bp, size_t Kp, size_t m0, size_t nb0, float *out) {
    const uint16_t *b0 = Bp + nb0 * Kp * 16, *b1 = b0 + Kp * 16;
    for (size_t r = 0; r < 32; r += ROWS) rows_product(Ap + (m0 + r) * Kp, b0, b1, Kp, out + r * 32);
}

static const fc_bf16_block_kernel avx512bf16_kernel = {FC_BF16_KERNEL_AVX512BF16, NULL, NULL, block_product};

static int probe_product(void) { return fc_cpu_bf16_kernel_check(&avx512bf16_kernel); }

static const fc_bf16_block_kernel *usable;

/* CPUID and the OS's saving of the AVX-512 state (__builtin_cpu_supports
 * checks both), then the exact product in a forked child. */
static void check_once(void) {
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bf16")) return;
    if (fc_cpu_probe_in_child(probe_product, 10000)) usable = &avx512bf16_kernel;
}

const fc_bf16_block_kernel *fc_cpu_avx512bf16_kernel(void) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, check_once);
    return usable;
}

#else
const fc_bf16_block_kernel *fc_cpu_avx512bf16_kernel(void) { return NULL; }
#endif
