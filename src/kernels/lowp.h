/* Rounding between fp32 and the two 16-bit formats of mixed precision,
 * shared by the CPU and CUDA backends (written by hand: the conversion
 * intrinsics differ per ISA and per compiler, and these bodies are the
 * reference the tests check bit by bit).
 *
 *   bf16: 1 sign, 8 exponent, 7 mantissa bits (fp32's range, 3 digits)
 *   fp16: 1 sign, 5 exponent, 10 mantissa bits (max 65504, subnormals
 *         down to 2^-24)
 *
 * Both round to nearest, ties to even, as IEEE 754 and the hardware
 * conversions (vcvtneps2bf16, cvt.rn.f16.f32) do. Values past the largest
 * finite number round to infinity; NaN stays a (quiet) NaN. */
#ifndef FC_KERNELS_LOWP_H
#define FC_KERNELS_LOWP_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "core/hd.h"

FC_HD uint32_t fc_f32_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

FC_HD float fc_f32_from_bits(uint32_t u) {
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* ---- bf16 ---- */

FC_HD uint16_t fc_bf16_from_f32(float f) {
    uint32_t u = fc_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x0040u);   /* quiet NaN */
    u += 0x7fffu + ((u >> 16) & 1u);   /* ties to even; a carry into the exponent is correct */
    return (uint16_t)(u >> 16);
}

FC_HD float fc_bf16_to_f32(uint16_t h) { return fc_f32_from_bits((uint32_t)h << 16); }

/* ---- fp16 ---- */

FC_HD uint16_t fc_f16_from_f32(float f) {
    uint32_t u = fc_f32_bits(f);
    uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    uint32_t a = u & 0x7fffffffu;
    if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u);       /* NaN */
    if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);      /* >= 65520: inf (65504 is the max) */
    if (a < 0x38800000u) {                                          /* below 2^-14: subnormal or 0 */
        /* exact scaling by a power of two, then an integer count of 2^-24
         * rounded ties-to-even (rintf in the default rounding mode); 1024
         * is the smallest normal, which the bit pattern encodes the same.
         * fcast never changes the rounding mode from nearest-even. */
        float units = rintf(fc_f32_from_bits(a) * 16777216.0f);
        return (uint16_t)(sign | (uint16_t)units);
    }
    a += 0xfffu + ((a >> 13) & 1u);                                 /* ties to even at bit 13 */
    return (uint16_t)(sign | ((a - 0x38000000u) >> 13));            /* rebias 127 -> 15 */
}

FC_HD float fc_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0) {
        float v = (float)m * 5.9604644775390625e-8f;              /* m * 2^-24 */
        return sign ? -v : v;
    }
    if (e == 31) return fc_f32_from_bits(sign | 0x7f800000u | (m << 13));
    return fc_f32_from_bits(sign | ((e + 112u) << 23) | (m << 13));
}

/* x rounded to the nearest fp16 value, carried in fp32 (the CPU's fp16
 * matrix products run in fp32 on such values: their products are exact in
 * fp32, so only the accumulation order differs from a GPU fp16 GEMM with
 * fp32 accumulation). */
FC_HD float fc_round_f16(float x) { return fc_f16_to_f32(fc_f16_from_f32(x)); }
FC_HD float fc_round_bf16(float x) { return fc_bf16_to_f32(fc_bf16_from_f32(x)); }

#endif
