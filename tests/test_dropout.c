/* The backend's dropout (kernels/dropout.h) on the CPU backend, which runs
 * the body the CUDA backend runs (test_backend_ops compares the devices):
 *
 *   0. the generator the mask comes from, Philox4x32-10 (core/rng.h),
 *      against Random123's published known answers, so the mask's
 *      definition rests on the published generator;
 *   1. p = 0 copies x bit for bit (NaN payloads too), strided rows whose
 *      gaps survive, and leaves x alone in place;
 *   2. the kept fraction of 10^6 points is within 4 binomial standard
 *      deviations of 1 - p, for several p;
 *   3. every kept point is x / (1 - p) exactly (float division), every
 *      dropped one a zero of x's sign; the mask is the one backend.h
 *      defines (index offset + r C + c, whatever the strides), and a
 *      uniform equal to p is kept (u >= p);
 *   4. the backward, the same call on dy with the same seed and offset,
 *      zeroes exactly the points the forward zeroed, also in place;
 *   5. another offset or seed gives another mask, and the offset moves
 *      along the packed index (offset + C on row 0 is row 1's mask);
 *   6. all cores and one thread give the same bits. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "core/rng.h"
#include "test_arrays.h"

/* x (n) in (-2, 2) without zeros, so that a zero of y means dropped. */
static float *nonzero(size_t n, uint64_t seed) {
    float *x = randu(n, seed, -2, 2);
    for (size_t i = 0; i < n; i++)
        if (x[i] == 0.0f) x[i] = 0.5f;
    return x;
}

/* ---- 0. Philox4x32-10 known answers (Random123's kat_vectors) ---- */

static void check_philox(void) {
    static const uint32_t in[3][6] = {
        {0, 0, 0, 0, 0, 0},
        {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
        {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u, 0xa4093822u, 0x299f31d0u},
    };
    static const uint32_t out[3][4] = {
        {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u},
        {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu},
        {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u},
    };
    for (int k = 0; k < 3; k++) {
        fc_philox_out r = fc_philox4x32(in[k][0], in[k][1], in[k][2], in[k][3], in[k][4], in[k][5]);
        CHECK_MSG(!memcmp(r.v, out[k], sizeof out[k]), "Philox4x32-10 known answer %d: %08x %08x %08x %08x", k,
                  r.v[0], r.v[1], r.v[2], r.v[3]);
    }
}

/* ---- 1. p = 0 ---- */

static void check_p0(fc_backend *be) {
    enum { B = 5, C = 9, LDX = 11, LDY = 13 };
    float *x = randu(B * LDX, 1, -2, 2), *y = filled(B * LDY, 7.0f);
    uint32_t payload = 0x7fc01234u;   /* a NaN with a payload: a copy keeps it, arithmetic need not */
    memcpy(&x[3], &payload, sizeof payload);
    x[4] = -0.0f;
    be->dropout(be, y, LDY, x, LDX, B, C, 0.0f, 42, 0);
    int ok = 1;
    for (size_t r = 0; r < B; r++) {
        ok &= same_bits(y + r * LDY, x + r * LDX, C);
        for (size_t k = C; k < LDY; k++) ok &= y[r * LDY + k] == 7.0f;
    }
    CHECK_MSG(ok, "p = 0: y is not a bit-for-bit copy of x, or a gap was written");
    float *xi = copy_of(x, B * LDX);
    be->dropout(be, xi, LDX, xi, LDX, B, C, 0.0f, 42, 0);
    CHECK_MSG(same_bits(xi, x, B * LDX), "p = 0 in place: x changed");
    free(x), free(y), free(xi);
}

/* ---- 2. kept fraction ---- */

static void check_fraction(fc_backend *be, float p, uint64_t seed) {
    enum { B = 1000, C = 1000 };
    float *x = filled((size_t)B * C, 1.0f);
    be->dropout(be, x, C, x, C, B, C, p, seed, 0);
    size_t kept = 0;
    for (size_t i = 0; i < (size_t)B * C; i++) kept += x[i] != 0.0f;
    double n = (double)B * C, q = 1.0 - (double)p, sd = sqrt(n * q * (1 - q));
    double z = ((double)kept - n * q) / sd;
    CHECK_MSG(fabs(z) <= 4, "p = %g: %zu of %.0f kept, %.2f standard deviations from %.0f", (double)p, kept, n, z,
              n * q);
    printf("p = %-5g kept %zu of %.0f (%+.2f sd from (1 - p) n)\n", (double)p, kept, n, z);
    free(x);
}

/* ---- 3, 4. values, the defined mask, and the backward ---- */

/* The mask as backend.h defines it. */
static int kept_at(uint64_t seed, uint64_t index, float p) {
    return fc_u32_to_unit_float(fc_rng_block(seed, FC_RNG_STREAM_DROPOUT, index).v[0]) >= p;
}

static void check_values(fc_backend *be, size_t B, size_t C, size_t pad, float p, uint64_t seed, uint64_t offset) {
    size_t ldx = C + pad, ldy = C + 2 * pad;
    float *x = nonzero(B * ldx, seed), *y = filled(B * ldy, NAN);
    be->dropout(be, y, ldy, x, ldx, B, C, p, seed, offset);
    size_t wrong_value = 0, wrong_mask = 0, gaps = 0, kept = 0;
    float q = 1.0f - p;
    for (size_t r = 0; r < B; r++) {
        for (size_t c = 0; c < C; c++) {
            float xv = x[r * ldx + c], yv = y[r * ldy + c];
            int k = yv != 0.0f;
            kept += k;
            wrong_mask += k != kept_at(seed, offset + r * C + c, p);
            if (k) wrong_value += yv != xv / q;
            else wrong_value += !!signbit(yv) != !!signbit(xv);
        }
        for (size_t c = C; c < ldy; c++) gaps += !isnan(y[r * ldy + c]);
    }
    CHECK_MSG(wrong_value == 0, "B%zu C%zu p %g: %zu points not x / (1 - p) or a zero of x's sign", B, C, (double)p,
              wrong_value);
    CHECK_MSG(wrong_mask == 0, "B%zu C%zu p %g: %zu points off the mask of index offset + r C + c", B, C, (double)p,
              wrong_mask);
    CHECK_MSG(gaps == 0, "B%zu C%zu: %zu gap elements written", B, C, gaps);

    /* the backward: the same call on dy (in place, as a caller would) */
    float *dy = nonzero(B * ldx, seed + 1), *dy0 = copy_of(dy, B * ldx);
    be->dropout(be, dy, ldx, dy, ldx, B, C, p, seed, offset);
    size_t mismatch = 0;
    for (size_t r = 0; r < B; r++)
        for (size_t c = 0; c < C; c++) {
            float g = dy[r * ldx + c];
            mismatch += (g == 0.0f) != (y[r * ldy + c] == 0.0f);
            if (g != 0.0f) mismatch += g != dy0[r * ldx + c] / q;
        }
    CHECK_MSG(mismatch == 0, "B%zu C%zu p %g: the backward's mask differs from the forward's at %zu points", B, C,
              (double)p, mismatch);
    printf("B%-4zu C%-4zu pad%zu p %-4g offset %-10llu: %zu of %zu kept, values and mask exact\n", B, C, pad,
           (double)p, (unsigned long long)offset, kept, B * C);
    free(x), free(y), free(dy), free(dy0);
}

/* A point whose uniform equals p exactly is kept (u >= p, not u > p):
 * p taken from point 3's own uniform. */
static void check_tie(fc_backend *be) {
    enum { C = 8 };
    const uint64_t seed = 99, offset = 40;
    float p = fc_u32_to_unit_float(fc_rng_block(seed, FC_RNG_STREAM_DROPOUT, offset + 3).v[0]);
    if (!(p < 1.0f)) p = 0.5f;   /* cannot happen: the uniform is below 1 */
    float x[C], y[C];
    for (size_t i = 0; i < C; i++) x[i] = 1.0f;
    be->dropout(be, y, C, x, C, 1, C, p, seed, offset);
    CHECK_MSG(y[3] == 1.0f / (1.0f - p), "a uniform equal to p (%.9g) was dropped: keep must be u >= p", (double)p);
}

/* ---- 5. offsets and seeds ---- */

/* The fraction of n points on which two masks differ (dropped in one, kept in the other). */
static double differ(const float *a, const float *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; i++) d += (a[i] == 0.0f) != (b[i] == 0.0f);
    return (double)d / (double)n;
}

static void check_offsets(fc_backend *be) {
    enum { B = 100, C = 1000 };
    const size_t n = (size_t)B * C;
    const float p = 0.5f;
    float *a = filled(n, 1.0f), *b = filled(n, 1.0f), *s = filled(n, 1.0f), *row = filled(C, 1.0f);
    be->dropout(be, a, C, a, C, B, C, p, 7, 1000);
    be->dropout(be, b, C, b, C, B, C, p, 7, 1000 + n);   /* the next step's offsets */
    be->dropout(be, s, C, s, C, B, C, p, 8, 1000);       /* another seed */
    double d_off = differ(a, b, n), d_seed = differ(a, s, n);
    /* independent masks differ on 2 p (1 - p) = 1/2 of the points */
    CHECK_MSG(fabs(d_off - 0.5) < 0.01 && fabs(d_seed - 0.5) < 0.01,
              "masks of other offsets / seeds differ on %.4f / %.4f of the points, not about 1/2", d_off, d_seed);
    /* offset + C on one row is the mask of row 1 at offset */
    be->dropout(be, row, C, row, C, 1, C, p, 7, 1000 + C);
    CHECK_MSG(same_bits(row, a + C, C), "offset + C on row 0 is not row 1's mask: the index is not offset + r C + c");
    printf("offsets: another offset differs on %.4f, another seed on %.4f of the points\n", d_off, d_seed);
    free(a), free(b), free(s), free(row);
}

/* ---- 6. threads ---- */

static void check_threads(fc_backend *be, fc_backend *be1) {
    enum { B = 300, C = 257, LD = 260 };
    float *x = randu(B * LD, 91, -2, 2), *y = filled(B * LD, NAN), *y1 = filled(B * LD, NAN);
    be->dropout(be, y, LD, x, LD, B, C, 0.3f, 0x123456789abcdefull, 1ull << 40);
    be1->dropout(be1, y1, LD, x, LD, B, C, 0.3f, 0x123456789abcdefull, 1ull << 40);
    CHECK_MSG(same_bits(y, y1, B * LD), "all cores and one thread give different masks or values");
    free(x), free(y), free(y1);
}

int main(void) {
    fc_backend *be = cpu_backend(0), *be1 = cpu_backend(1);
    check_philox();
    check_p0(be);
    check_fraction(be, 0.1f, 1);
    check_fraction(be, 0.5f, 2);
    check_fraction(be, 0.9f, 3);
    check_fraction(be, 0.999f, 4);
    check_values(be, 1, 1, 0, 0.5f, 11, 0);
    check_values(be, 3, 7, 2, 0.1f, 12, 5);
    check_values(be, 7, 31, 3, 0.5f, 13, 0xFFFFFF80u);   /* indices cross 2^32 */
    check_values(be, 64, 200, 1, 0.3f, 14, 1000);       /* 12800 points: the parallel path */
    check_values(be, 5, 33, 1, 0.9f, 15, 77);
    check_values(be, 3, 9, 0, 1.0f / 3.0f, 16, 1);     /* 1 - p rounds */
    check_tie(be);
    check_offsets(be);
    check_threads(be, be1);
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    return CHECK_DONE();
}
