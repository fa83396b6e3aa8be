/* Data movement for the SIMD lane driver (indicator_lanes.c): 8x8 transposes
 * between 8 series (rows) and a time-major tile, and square roots in bulk.
 * AVX-512 and AVX2 versions where the compiler targets them, plain loops
 * otherwise; all produce identical bits (transposes move values, and vsqrtpd
 * is correctly rounded like sqrt). Written with intrinsics because GCC 12
 * neither finds these shuffles itself nor vectorizes sqrt under the default
 * -fmath-errno. */
#ifndef FC_QUANT_INDICATOR_SIMD_H
#define FC_QUANT_INDICATOR_SIMD_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__AVX512F__) || defined(__AVX2__)
#include <immintrin.h>
#endif

#if defined(__AVX512F__)
/* The shared first two stages of an 8x8 double transpose in registers: pairs
 * interleaved, then 128-bit lanes of pairs; the callers finish with the
 * 256-bit halves, each in its own store pattern. */
static inline void fc_transpose8_halves(__m512d r[8]) {
    __m512d u[8];
    for (int l = 0; l < 8; l += 2) {
        u[l] = _mm512_unpacklo_pd(r[l], r[l + 1]);
        u[l + 1] = _mm512_unpackhi_pd(r[l], r[l + 1]);
    }
    for (int h = 0; h < 8; h += 4) {
        r[h + 0] = _mm512_shuffle_f64x2(u[h + 0], u[h + 2], 0x88);
        r[h + 1] = _mm512_shuffle_f64x2(u[h + 1], u[h + 3], 0x88);
        r[h + 2] = _mm512_shuffle_f64x2(u[h + 0], u[h + 2], 0xdd);
        r[h + 3] = _mm512_shuffle_f64x2(u[h + 1], u[h + 3], 0xdd);
    }
}
#endif

/* tile[j*8 + l] = rows[l][t + j] for j, l < 8. */
static inline void fc_transpose_in8(const double *const rows[8], long t, double *tile) {
#if defined(__AVX512F__)
    __m512d r[8];
    for (int l = 0; l < 8; l++) r[l] = _mm512_loadu_pd(rows[l] + t);
    fc_transpose8_halves(r);
    for (int j = 0; j < 4; j++) {
        _mm512_storeu_pd(tile + j * 8, _mm512_shuffle_f64x2(r[j], r[j + 4], 0x88));
        _mm512_storeu_pd(tile + (j + 4) * 8, _mm512_shuffle_f64x2(r[j], r[j + 4], 0xdd));
    }
#elif defined(__AVX2__)
    for (int lb = 0; lb < 8; lb += 4)
        for (int jb = 0; jb < 8; jb += 4) {
            __m256d a = _mm256_loadu_pd(rows[lb] + t + jb), b = _mm256_loadu_pd(rows[lb + 1] + t + jb);
            __m256d c = _mm256_loadu_pd(rows[lb + 2] + t + jb), d = _mm256_loadu_pd(rows[lb + 3] + t + jb);
            __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
            __m256d t2 = _mm256_unpacklo_pd(c, d), t3 = _mm256_unpackhi_pd(c, d);
            _mm256_storeu_pd(tile + (jb + 0) * 8 + lb, _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm256_storeu_pd(tile + (jb + 1) * 8 + lb, _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm256_storeu_pd(tile + (jb + 2) * 8 + lb, _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm256_storeu_pd(tile + (jb + 3) * 8 + lb, _mm256_permute2f128_pd(t1, t3, 0x31));
        }
#else
    for (int j = 0; j < 8; j++)
        for (int l = 0; l < 8; l++) tile[j * 8 + l] = rows[l][t + j];
#endif
}

/* rows[l][t + j] = tile[j*8 + l]. stream: non-temporal stores where the
 * destination is 64-byte aligned (AVX-512 only; plain stores elsewhere). */
static inline void fc_transpose_out8(const double *tile, double *const rows[8], long t, int stream) {
#if defined(__AVX512F__)
    __m512d r[8];
    for (int j = 0; j < 8; j++) r[j] = _mm512_loadu_pd(tile + j * 8);
    fc_transpose8_halves(r);
    for (int l = 0; l < 4; l++) {
        __m512d lo = _mm512_shuffle_f64x2(r[l], r[l + 4], 0x88), hi = _mm512_shuffle_f64x2(r[l], r[l + 4], 0xdd);
        double *a = rows[l] + t, *b = rows[l + 4] + t;
        if (stream && ((uintptr_t)a & 63) == 0) _mm512_stream_pd(a, lo);
        else _mm512_storeu_pd(a, lo);
        if (stream && ((uintptr_t)b & 63) == 0) _mm512_stream_pd(b, hi);
        else _mm512_storeu_pd(b, hi);
    }
#elif defined(__AVX2__)
    (void)stream;
    for (int jb = 0; jb < 8; jb += 4)
        for (int lb = 0; lb < 8; lb += 4) {
            __m256d a = _mm256_loadu_pd(tile + (jb + 0) * 8 + lb), b = _mm256_loadu_pd(tile + (jb + 1) * 8 + lb);
            __m256d c = _mm256_loadu_pd(tile + (jb + 2) * 8 + lb), d = _mm256_loadu_pd(tile + (jb + 3) * 8 + lb);
            __m256d t0 = _mm256_unpacklo_pd(a, b), t1 = _mm256_unpackhi_pd(a, b);
            __m256d t2 = _mm256_unpacklo_pd(c, d), t3 = _mm256_unpackhi_pd(c, d);
            _mm256_storeu_pd(rows[lb + 0] + t + jb, _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm256_storeu_pd(rows[lb + 1] + t + jb, _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm256_storeu_pd(rows[lb + 2] + t + jb, _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm256_storeu_pd(rows[lb + 3] + t + jb, _mm256_permute2f128_pd(t1, t3, 0x31));
        }
#else
    (void)stream;
    for (int j = 0; j < 8; j++)
        for (int l = 0; l < 8; l++) rows[l][t + j] = tile[j * 8 + l];
#endif
}

/* v[i] = sqrt(v[i]) for i < n. */
static inline void fc_sqrt_inplace(double *v, int n) {
    int i = 0;
#if defined(__AVX512F__)
    for (; i + 8 <= n; i += 8) _mm512_storeu_pd(v + i, _mm512_sqrt_pd(_mm512_loadu_pd(v + i)));
#elif defined(__AVX2__)
    for (; i + 4 <= n; i += 4) _mm256_storeu_pd(v + i, _mm256_sqrt_pd(_mm256_loadu_pd(v + i)));
#endif
    for (; i < n; i++) v[i] = sqrt(v[i]);
}

/* Orders the NT stores before whatever another thread does next. */
static inline void fc_stream_fence(void) {
#if defined(__AVX512F__)
    _mm_sfence();
#endif
}

#endif
