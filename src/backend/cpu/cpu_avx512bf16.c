/* The bf16 block kernel on AVX512-BF16 (cpu_bf16_gemm.c does the rest),
 * for CPUs with VDPBF16PS but no usable AMX: AMD Zen 4 / Zen 5, Intel
 * Cooper Lake, and Intel cores in VMs that hide the tile state.
 *
 * VDPBF16PS adds to each of 16 fp32 lanes the products of one (k, k+1)
 * pair of bf16 values, twice the multiply-adds of an fp32 FMA: the packed
 * B block is already pairs of k for 16 columns per 64-byte row (the VNNI
 * layout AMX reads), and A's pair (A[m][k], A[m][k+1]) is one 32-bit
 * broadcast. A 32 x 32 block of C is computed 12 + 12 + 8 rows at a time:
 * 12 x 2 accumulators, so each k pair is 2 loads of B and 24 dot products
 * reading their A pair straight from memory, enough independent sums to
 * cover the instruction's latency. Like AMX it flushes denormal inputs
 * and outputs to zero.
 *
 * This file computes and nothing more: cpu_bf16_choice.c checks the CPU's
 * flags, runs the forked probe, and measures it against oneDNN before
 * using it: on this project's Zen 4 machines oneDNN 2.6 is faster (about
 * 1.2x on one thread), on Intel cores without AMX oneDNN's bf16 runs at
 * half its fp32 rate. */
#include "backend/cpu/cpu_internal.h"

#if defined(__x86_64__) && (defined(__clang__) ? __clang_major__ >= 9 : (defined(__GNUC__) && __GNUC__ >= 10))
#include <immintrin.h>

#define BF16_TARGET __attribute__((target("avx512f,avx512bf16")))
/* c + the dot products of the bf16 pair at p, broadcast to every lane, with
 * w's pairs: one instruction reading its broadcast from memory ({1to16}),
 * which the compiler would otherwise load once into a register for both
 * of its uses, a separate broadcast uop per pair (about 15% of the block's
 * time on Zen 4). */
BF16_TARGET static inline __m512 dot_broadcast(__m512 c, const uint16_t *p, __m512bh w) {
    __asm__("vdpbf16ps %[pair]%{1to16%}, %[w], %[c]" : [c] "+v"(c) : [w] "v"(w), [pair] "m"(*(const int32_t *)p));
    return c;
}

/* The rows of a call, as X(row) for each: named accumulators rather than
 * an array, which the compiler would keep in memory around the asm. */
#define ROWS_8(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7)
#define ROWS_12(X) ROWS_8(X) X(8) X(9) X(10) X(11)
#define DECLARE(r) __m512 c0_##r = _mm512_setzero_ps(), c1_##r = _mm512_setzero_ps();
#define DOT(r)                                                \
    c0_##r = dot_broadcast(c0_##r, a + r * Kp + k, w0);        \
    c1_##r = dot_broadcast(c1_##r, a + r * Kp + k, w1);
#define STORE(r)                                              \
    _mm512_store_ps(out + r * 32, c0_##r);                    \
    _mm512_store_ps(out + r * 32 + 16, c1_##r);

/* out rows [0, R) of a block = R rows of A (stride Kp) . 2 blocks of 16
 * packed columns; R x 2 accumulators. */
#define ROWS_PRODUCT(R)                                                                                   \
    BF16_TARGET static void rows_product_##R(const uint16_t *a, const uint16_t *b0, const uint16_t *b1,  \
                                             size_t Kp, float *out) {                                    \
        ROWS_##R(DECLARE)                                                                                 \
        for (size_t k = 0; k < Kp; k += 2) {                                                              \
            __m512bh w0 = (__m512bh)_mm512_load_si512(b0 + k * 16);                                       \
            __m512bh w1 = (__m512bh)_mm512_load_si512(b1 + k * 16);                                       \
            ROWS_##R(DOT)                                                                                 \
        }                                                                                                 \
        ROWS_##R(STORE)                                                                                   \
    }
ROWS_PRODUCT(12)
ROWS_PRODUCT(8)

/* out (32, 32) fp32 = A rows [m0, m0+32) . B columns [16*nb0, 16*nb0+32):
 * rows 12 + 12 + 8, 24 accumulators at most of the 32 registers. */
static void block_product(const uint16_t *Ap, const uint16_t *Bp, size_t Kp, size_t m0, size_t nb0, float *out) {
    const uint16_t *b0 = Bp + nb0 * Kp * 16, *b1 = b0 + Kp * 16, *a = Ap + m0 * Kp;
    rows_product_12(a, b0, b1, Kp, out);
    rows_product_12(a + 12 * Kp, b0, b1, Kp, out + 12 * 32);
    rows_product_8(a + 24 * Kp, b0, b1, Kp, out + 24 * 32);
}

const fc_bf16_block_kernel fc_cpu_avx512bf16_kernel = {FC_BF16_KERNEL_AVX512BF16, NULL, NULL, block_product};

#else /* a compiler without AVX512-BF16: no kernel to run */
const fc_bf16_block_kernel fc_cpu_avx512bf16_kernel = {FC_BF16_KERNEL_AVX512BF16, NULL, NULL, NULL};
#endif
