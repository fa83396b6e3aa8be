/* Philox4x32-10 counter-based random numbers (Salmon et al., SC'11, "Parallel
 * random numbers: as easy as 1, 2, 3"; the same generator as cuRAND's and
 * numpy's Philox). Output depends only on (key, counter), so a seed gives the
 * same stream on CPU and GPU and for any thread count: each consumer derives
 * its counter from what it is computing (step, window, element), never from
 * who computes it. Written by hand: it is 30 lines and no Debian library
 * offers a C Philox usable from both host and device code. */
#ifndef FC_CORE_RNG_H
#define FC_CORE_RNG_H

#include <stdint.h>
#include <math.h>
#include "core/hd.h"

typedef struct { uint32_t v[4]; } fc_philox_out;

/* Every use of the generator has its own stream, listed here so that no
 * two uses can draw the same numbers. */
enum {
    FC_RNG_STREAM_INIT = 1,             /* parameter initialisation */
    FC_RNG_STREAM_EPOCH = 2,            /* series order of each epoch */
    FC_RNG_STREAM_WINDOWS = 3,          /* windows drawn at each step */
    FC_RNG_STREAM_DROPOUT = 4,          /* dropout masks (kernels/dropout.h) */
    FC_RNG_STREAM_PATHS = 0x50415448u,  /* Monte Carlo paths ("PATH") */
    FC_RNG_STREAM_LSM_CALIBRATION = 0x4C534D43u,   /* Longstaff-Schwartz regression paths ("LSMC") */
    FC_RNG_STREAM_LSM_PRICING = 0x4C534D50u,       /* its independent pricing paths ("LSMP") */
    FC_RNG_STREAM_BARRIER = 0x42415252u,           /* barrier Monte Carlo paths ("BARR") */
    FC_RNG_STREAM_TUNE = 0x54554E45u    /* hyperparameter samples of fcast tune ("TUNE") */
};

FC_HD uint32_t fc_mulhilo32(uint32_t a, uint32_t b, uint32_t *hi) {
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* One Philox4x32-10 block: 128 random bits for a 128-bit counter and 64-bit key. */
FC_HD fc_philox_out fc_philox4x32(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                  uint32_t k0, uint32_t k1) {
    const uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;
    const uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, hi1;
        uint32_t lo0 = fc_mulhilo32(M0, c0, &hi0);
        uint32_t lo1 = fc_mulhilo32(M1, c2, &hi1);
        uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
        c0 = n0; c1 = n1; c2 = n2; c3 = n3;
        k0 += W0; k1 += W1;
    }
    fc_philox_out o = {{c0, c1, c2, c3}};
    return o;
}

/* Four random words for (seed, stream, index): `stream` separates uses
 * (init, sampling, dropout, paths), `index` is the position within a use. */
FC_HD fc_philox_out fc_rng_block(uint64_t seed, uint32_t stream, uint64_t index) {
    return fc_philox4x32((uint32_t)index, (uint32_t)(index >> 32), stream, 0u,
                         (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* Uniform float in [0, 1) from the top 24 bits. */
FC_HD float fc_u32_to_unit_float(uint32_t x) { return (float)(x >> 8) * (1.0f / 16777216.0f); }

/* Uniform double in (0, 1): never 0, so log() is safe. 53 bits from two words. */
FC_HD double fc_u32x2_to_open_double(uint32_t a, uint32_t b) {
    uint64_t m = ((uint64_t)(a >> 5) << 26) | (uint64_t)(b >> 6); /* 27 + 26 = 53 bits */
    return ((double)m + 0.5) * (1.0 / 9007199254740992.0);
}

/* Two independent standard normals from four words (Box-Muller, double). */
FC_HD void fc_box_muller(fc_philox_out r, double *z0, double *z1) {
    double u1 = fc_u32x2_to_open_double(r.v[0], r.v[1]);
    double u2 = fc_u32x2_to_open_double(r.v[2], r.v[3]);
    double rad = sqrt(-2.0 * log(u1));
    double ang = 6.283185307179586476925286766559 * u2;
    *z0 = rad * cos(ang);
    *z1 = rad * sin(ang);
}

/* Uniform integer in [0, n) by 64-bit multiply-shift (bias < n / 2^32). */
FC_HD uint32_t fc_u32_below(uint32_t x, uint32_t n) { return (uint32_t)(((uint64_t)x * n) >> 32); }

#endif
