/* The fp32 <-> bf16 / fp16 conversions of kernels/lowp.h against
 * independent truth: bit patterns worked out by hand (IEEE 754 round to
 * nearest, ties to even), both decoders against an ldexp decoding of every
 * 16-bit pattern, exhaustive round trips of all 65536 patterns of each
 * format, and about a million random floats (plus every midpoint between
 * neighbouring fp16 values) against slow references that pick the nearest
 * representable value in double arithmetic. Where the compiler offers them,
 * the hardware conversions (_Float16 casts; AVX512-BF16 vcvtneps2bf16) are a
 * further truth. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend/cpu/cpu_internal.h"
#include "check.h"
#include "core/rng.h"
#include "kernels/lowp.h"

#if defined(__AVX512BF16__) && defined(__AVX512F__)
#include <immintrin.h>
#endif

static float f_of(uint32_t u) { return fc_f32_from_bits(u); }
static uint32_t u_of(float f) { return fc_f32_bits(f); }

/* ---- independent decoders: value of a 16-bit pattern by ldexp ---- */

/* fp16 value of h in double; the infinity pattern 0x7c00 decodes to 65536,
 * the value it stands for when rounding (the next binade's first number),
 * when `inf_as_next` is set. NaN patterns are not passed. */
static double f16_value(uint16_t h, int inf_as_next) {
    int e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v;
    if (e == 0) v = ldexp((double)m, -24);
    else if (e == 31) v = inf_as_next ? 65536.0 : INFINITY;
    else v = ldexp(1.0 + m / 1024.0, e - 15);
    return (h & 0x8000) ? -v : v;
}

/* bf16 value of b in double; 0x7f80 decodes to 2^128 when `inf_as_next`. */
static double bf16_value(uint16_t b, int inf_as_next) {
    int e = (b >> 7) & 0xff, m = b & 0x7f;
    double v;
    if (e == 0) v = ldexp((double)m, -133);
    else if (e == 255) v = inf_as_next ? ldexp(1.0, 128) : INFINITY;
    else v = ldexp(1.0 + m / 128.0, e - 127);
    return (b & 0x8000) ? -v : v;
}

static int f16_is_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static int bf16_is_nan(uint16_t b) { return (b & 0x7f80) == 0x7f80 && (b & 0x7f); }

/* ---- slow references: nearest value, ties to the even pattern ---- */

/* The sorted magnitudes of fp16: patterns 0x0000 .. 0x7c00 (the last one
 * standing for 65536, so that rounding to it means overflow to infinity). */
#define F16_TABLE 0x7c01
static double f16_table[F16_TABLE];

static uint16_t ref_f16_bits(float x) {
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs((double)x);
    if (a >= 65536.0) return sign | 0x7c00;
    size_t lo = 0, hi = F16_TABLE - 1;   /* table[lo] <= a < table[hi] */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (f16_table[mid] <= a) lo = mid;
        else hi = mid;
    }
    double dl = a - f16_table[lo], dh = f16_table[hi] - a;   /* exact: close doubles */
    size_t pick = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
    return (uint16_t)(sign | pick);
}

/* bf16: the two candidates are x truncated to 7 mantissa bits and the next
 * pattern away from zero; their values come from bf16_value, the distances
 * are exact in double. */
static uint16_t ref_bf16_bits(float x) {
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    double a = fabs((double)x);
    uint16_t lo = (uint16_t)((u_of(x) & 0x7fffffffu) >> 16), hi = (uint16_t)(lo + 1);
    if (lo == 0x7f80) return sign | 0x7f80;   /* infinity */
    double dl = a - bf16_value(lo, 1), dh = bf16_value(hi, 1) - a;
    uint16_t pick = dl < dh ? lo : dh < dl ? hi : (lo % 2 == 0 ? lo : hi);
    return sign | pick;
}

/* ---- hand-worked patterns ---- */

static void test_known_f16(void) {
    struct {
        float x;
        uint16_t h;
    } cases[] = {
        {1.0f, 0x3c00}, {-2.0f, 0xc000}, {0.5f, 0x3800}, {65504.0f, 0x7bff},
        {65519.99f, 0x7bff},                 /* just below the midpoint to infinity */
        {65520.0f, 0x7c00},                  /* midpoint 65504|65536: the even one is inf */
        {-65520.0f, 0xfc00}, {1e5f, 0x7c00}, {FLT_MAX, 0x7c00}, {INFINITY, 0x7c00},
        {-INFINITY, 0xfc00},
        {0x1p-24f, 0x0001},                  /* smallest subnormal */
        {0x1p-25f, 0x0000},                  /* half of it: tie, to even 0 */
        {0x1.000002p-25f, 0x0001},           /* just above the tie */
        {0x3p-26f, 0x0001},                  /* 0.75 of the unit */
        {0x3p-25f, 0x0002},                  /* 1.5 units: tie, to even 2 */
        {0x5p-25f, 0x0002},                  /* 2.5 units: tie, to even 2 */
        {1023.0f * 0x1p-24f, 0x03ff},        /* largest subnormal */
        {1023.5f * 0x1p-24f, 0x0400},        /* tie 0x3ff|0x400: to even, the smallest normal */
        {1023.75f * 0x1p-24f, 0x0400},
        {0x1p-14f, 0x0400},                  /* smallest normal */
        {0x1p-149f, 0x0000},                 /* fp32 subnormals vanish */
        {1.0f + 0x1p-11f, 0x3c00},           /* tie 1|1+2^-10: to even */
        {1.0f + 0x3p-11f, 0x3c02},           /* tie 1+2^-10|1+2^-9: to even */
        {1.0f + 0x1p-11f + 0x1p-23f, 0x3c01},
        {1.9990234375f, 0x3fff},             /* 2 - 2^-10 */
        {1.99951171875f, 0x4000},            /* tie 0x3fff|0x4000 across the binade: to even 2 */
        {0.1f, 0x2e66},                      /* 0.0999755859375 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint16_t got = fc_f16_from_f32(cases[i].x);
        CHECK_MSG(got == cases[i].h, "f16(%a) = 0x%04x, want 0x%04x", (double)cases[i].x, got,
                  cases[i].h);
    }
    CHECK(fc_f16_from_f32(-0.0f) == 0x8000 && fc_f16_from_f32(0.0f) == 0x0000);
    CHECK(fc_f16_from_f32(-0x1p-26f) == 0x8000);   /* underflow keeps the sign */
    CHECK(signbit(fc_round_f16(-0.0f)) && fc_round_f16(-0.0f) == 0.0f);
    CHECK(fc_f16_to_f32(0x7bff) == 65504.0f && fc_f16_to_f32(0x0001) == 0x1p-24f);
    CHECK(fc_f16_to_f32(0x7c00) == INFINITY && fc_f16_to_f32(0xfc00) == -INFINITY);
    CHECK(fc_round_f16(65519.0f) == 65504.0f && fc_round_f16(3.0e-8f) == 0x1p-25f * 2.0f);
    /* NaN stays NaN (quiet: the top mantissa bit), including signalling and
     * payload-only-in-low-bits NaNs that truncation would turn into inf. */
    uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u, 0xff800001u};
    for (size_t i = 0; i < 5; i++) {
        uint16_t h = fc_f16_from_f32(f_of(nans[i]));
        CHECK_MSG(f16_is_nan(h) && (h & 0x0200), "f16(NaN 0x%08x) = 0x%04x", nans[i], h);
        CHECK(isnan(fc_round_f16(f_of(nans[i]))));
    }
    CHECK(isnan(fc_f16_to_f32(0x7e00)) && isnan(fc_f16_to_f32(0x7c01)));
}

static void test_known_bf16(void) {
    struct {
        float x;
        uint16_t b;
    } cases[] = {
        {1.0f, 0x3f80}, {-2.0f, 0xc000}, {0.5f, 0x3f00},
        {1.0f + 0x1p-8f, 0x3f80},             /* tie 1|1+2^-7: to even */
        {1.0f + 0x3p-8f, 0x3f82},             /* tie 1+2^-7|1+2^-6: to even */
        {1.0f + 0x1p-8f + 0x1p-23f, 0x3f81},  /* just above the tie */
        {1.0f + 0x1p-8f - 0x1p-23f, 0x3f80},  /* just below */
        {FLT_MAX, 0x7f80},                    /* rounds up through the carry to inf */
        {-FLT_MAX, 0xff80},
        {0x1.fep127f, 0x7f7f},                /* the largest bf16 */
        {0x1.ffp127f, 0x7f80},                /* its midpoint to 2^128: to even = inf */
        {0x1.fefffep127f, 0x7f7f},
        {INFINITY, 0x7f80}, {-INFINITY, 0xff80},
        {0x1p-133f, 0x0001},                  /* smallest bf16 subnormal */
        {0x1p-134f, 0x0000},                  /* half of it: tie to even 0 */
        {0x3p-134f, 0x0002},                  /* 1.5 units: tie to even 2 */
        {0x1p-149f, 0x0000},
        /* 127.5 subnormal units: to even 128, the smallest normal */
        {0x1.fcp-127f + 0x1p-134f, 0x0080},
        {3.14159265f, 0x4049},                /* 3.140625 */
        {0.1f, 0x3dcd},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint16_t got = fc_bf16_from_f32(cases[i].x);
        CHECK_MSG(got == cases[i].b, "bf16(%a) = 0x%04x, want 0x%04x", (double)cases[i].x, got,
                  cases[i].b);
    }
    CHECK(fc_bf16_from_f32(-0.0f) == 0x8000 && signbit(fc_round_bf16(-0.0f)));
    CHECK(fc_bf16_to_f32(0x3f80) == 1.0f && fc_bf16_to_f32(0x7f80) == INFINITY);
    CHECK(fc_round_bf16(1.0f + 0x3p-8f) == 1.015625f);
    uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u, 0xff80ffffu};
    for (size_t i = 0; i < 5; i++) {
        uint16_t b = fc_bf16_from_f32(f_of(nans[i]));
        CHECK_MSG(bf16_is_nan(b) && (b & 0x0040), "bf16(NaN 0x%08x) = 0x%04x", nans[i], b);
        CHECK(isnan(fc_round_bf16(f_of(nans[i]))));
    }
}

/* ---- exhaustive over the 16-bit patterns ---- */

static void test_exhaustive(void) {
    size_t bad_dec16 = 0, bad_rt16 = 0, bad_decb = 0, bad_rtb = 0, bad_nan = 0;
    for (uint32_t p = 0; p <= 0xffff; p++) {
        uint16_t h = (uint16_t)p;
        if (f16_is_nan(h)) {
            bad_nan += !isnan(fc_f16_to_f32(h)) || !f16_is_nan(fc_f16_from_f32(fc_f16_to_f32(h)));
        } else {
            float f = fc_f16_to_f32(h);
            bad_dec16 += u_of(f) != u_of((float)f16_value(h, 0));   /* sign of zero too */
            bad_rt16 += fc_f16_from_f32(f) != h;
        }
        if (bf16_is_nan(h)) {
            bad_nan += !isnan(fc_bf16_to_f32(h)) ||
                       !bf16_is_nan(fc_bf16_from_f32(fc_bf16_to_f32(h)));
        } else {
            float f = fc_bf16_to_f32(h);
            bad_decb += u_of(f) != u_of((float)bf16_value(h, 0));
            bad_rtb += fc_bf16_from_f32(f) != h;
        }
    }
    CHECK_MSG(bad_dec16 == 0, "fc_f16_to_f32 differs from the ldexp decoding for %zu patterns",
              bad_dec16);
    CHECK_MSG(bad_rt16 == 0, "f16 round trip fails for %zu patterns", bad_rt16);
    CHECK_MSG(bad_decb == 0, "fc_bf16_to_f32 differs from the ldexp decoding for %zu patterns",
              bad_decb);
    CHECK_MSG(bad_rtb == 0, "bf16 round trip fails for %zu patterns", bad_rtb);
    CHECK_MSG(bad_nan == 0, "%zu NaN patterns did not stay NaN", bad_nan);
}

/* ---- random floats against the references ---- */

/* About 1e6 floats: log-uniform magnitudes over the fp16 range (2^-27 ..
 * 2^17, so underflow and overflow are included) and uniformly random bit
 * patterns (all of fp32, for bf16), random signs. */
static float random_f16_range(uint64_t i) {
    fc_philox_out r = fc_rng_block(20240611, 3, i);
    double e = -27.0 + 44.0 * fc_u32_to_unit_float(r.v[0]);
    float x = (float)ldexp(1.0 + fc_u32_to_unit_float(r.v[1]), (int)floor(e));
    return (r.v[2] & 1) ? -x : x;
}

static float random_finite(uint64_t i) {
    fc_philox_out r = fc_rng_block(20240611, 4, i);
    uint32_t u = r.v[0];
    if ((u & 0x7f800000u) == 0x7f800000u) u ^= 0x00800000u;   /* no inf/NaN: tested above */
    return f_of(u);
}

/* Each float compared with fc_f16_from_f32 (bits), fc_round_f16 (value),
 * and _Float16 where the compiler has it. */
static size_t check_f16_one(float x, size_t *bad_hw) {
    uint16_t want = ref_f16_bits(x);
    size_t bad = fc_f16_from_f32(x) != want;
    bad += u_of(fc_round_f16(x)) != u_of((float)f16_value(want, 0));
#ifdef __FLT16_MAX__
    *bad_hw += u_of(fc_round_f16(x)) != u_of((float)(_Float16)x);
#else
    (void)bad_hw;
#endif
    return bad;
}

static void test_random_f16(void) {
    for (uint32_t p = 0; p < F16_TABLE; p++) f16_table[p] = f16_value((uint16_t)p, 1);
    size_t n = 1000000, bad = 0, bad_hw = 0, checked = 0, ties = 0, inexact = 0;
    for (size_t i = 0; i < n; i++, checked++) bad += check_f16_one(random_f16_range(i), &bad_hw);
    /* Every midpoint between neighbouring fp16 magnitudes (exact in fp32),
     * and the floats on either side of it: the cases ties-to-even decides. */
    for (uint32_t p = 0; p + 1 < F16_TABLE; p++) {
        float mid = (float)((f16_table[p] + f16_table[p + 1]) / 2);
        inexact += (double)mid != (f16_table[p] + f16_table[p + 1]) / 2;
        float xs[3] = {mid, nextafterf(mid, 0.0f), nextafterf(mid, INFINITY)};
        for (int k = 0; k < 3; k++, checked += 2) {
            bad += check_f16_one(xs[k], &bad_hw);
            bad += check_f16_one(-xs[k], &bad_hw);
        }
        ties++;
    }
    CHECK_MSG(bad == 0, "fp16 rounding differs from the nearest-value reference for %zu of %zu",
              bad, checked);
    CHECK(ties == 0x7c00 && inexact == 0);   /* every midpoint was exact in fp32 */
#ifdef __FLT16_MAX__
    CHECK_MSG(bad_hw == 0, "fc_round_f16 differs from (_Float16) for %zu of %zu", bad_hw, checked);
#endif
}

static void test_random_bf16(void) {
    size_t n = 1000000, bad = 0, bad_hw = 0, checked = 0;
    for (size_t i = 0; i < n + 0x10000; i++) {
        float x;
        if (i < n) {
            x = random_finite(i);
        } else {   /* every midpoint of a bf16 pattern and its neighbour, and +-1 ulp */
            uint32_t mid = ((uint32_t)(i - n) << 16) | 0x8000u;
            if ((mid & 0x7f800000u) == 0x7f800000u) continue;
            float xs[3] = {f_of(mid), f_of(mid - 1), f_of(mid + 1)};
            for (int k = 0; k < 3; k++, checked++) {
                uint16_t want = ref_bf16_bits(xs[k]);
                bad += fc_bf16_from_f32(xs[k]) != want;
                bad += u_of(fc_round_bf16(xs[k])) != u_of((float)bf16_value(want, 0));
            }
            continue;
        }
        checked++;
        uint16_t want = ref_bf16_bits(x);
        bad += fc_bf16_from_f32(x) != want;
        bad += u_of(fc_round_bf16(x)) != u_of((float)bf16_value(want, 0));
    }
    CHECK_MSG(bad == 0, "bf16 rounding differs from the double reference for %zu of %zu", bad,
              checked);
#if defined(__AVX512BF16__) && defined(__AVX512F__)
    /* vcvtneps2bf16 flushes denormal inputs and outputs, so only normal
     * inputs are compared (their bf16 results are normal or inf). */
    float buf[16];
    size_t hw_checked = 0;
    for (size_t i = 0; i < n; i += 16) {
        for (int k = 0; k < 16; k++) buf[k] = random_finite(i + (size_t)k);
        __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(buf));
        uint16_t out[16];
        memcpy(out, &h, sizeof out);
        for (int k = 0; k < 16; k++) {
            if (!isnormal(buf[k])) continue;
            hw_checked++;
            bad_hw += out[k] != fc_bf16_from_f32(buf[k]);
        }
    }
    CHECK_MSG(bad_hw == 0 && hw_checked > n / 2,
              "fc_bf16_from_f32 differs from vcvtneps2bf16 for %zu of %zu", bad_hw, hw_checked);
#else
    (void)bad_hw;
#endif
}

/* The CPU backend's fp16 spans (F16C's conversions where the CPU has
 * them) against fc_round_f16, on every 61st fp32 bit pattern (70 million
 * values of every class: subnormals, ties, overflow, NaN) in spans of an
 * odd length, so the vector loop and its scalar tail both run: the same
 * bits, or NaN for NaN with the same sign. */
static void test_f16_span(void) {
    enum { SPAN = 4099, STRIDE = 61 };
    static float src[SPAN], got[SPAN];
    size_t bad = 0, n = 0;
    for (uint64_t u = 0; u <= 0xffffffffu;) {
        size_t len = 0;
        for (; len < SPAN && u <= 0xffffffffu; len++, u += STRIDE) src[len] = f_of((uint32_t)u);
        fc_cpu_round_f16_span(got, src, len);
        for (size_t i = 0; i < len; i++) {
            float want = fc_round_f16(src[i]);
            int same = isnan(want) ? isnan(got[i]) && signbit(got[i]) == signbit(want) : u_of(got[i]) == u_of(want);
            if (!same && bad++ < 5)
                fprintf(stderr, "f16 span: %a (0x%08x) gave %a, want %a\n", src[i], u_of(src[i]), got[i], want);
        }
        n += len;
    }
    CHECK_MSG(bad == 0 && n > 70000000, "fp16 spans differ from fc_round_f16 for %zu of %zu values", bad, n);
}

int main(void) {
    test_f16_span();
    test_known_f16();
    test_known_bf16();
    test_exhaustive();
    test_random_f16();
    test_random_bf16();
    return CHECK_DONE();
}
