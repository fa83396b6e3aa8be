/* Test inputs shared by the backend tests: host arrays drawn from the
 * Philox stream (reproducible, no libc rand), filled with one value or
 * copied (the caller frees them); a bitwise comparison; the CPU backend
 * (for tests that include check.h and backend/backend.h first). */
#ifndef FC_TESTS_TEST_ARRAYS_H
#define FC_TESTS_TEST_ARRAYS_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/rng.h"

static inline float *randu(size_t n, uint64_t seed, float lo, float hi) {
    float *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        fc_philox_out r = fc_rng_block(seed, 7, i);
        x[i] = lo + (hi - lo) * fc_u32_to_unit_float(r.v[0]);
    }
    return x;
}

static inline float *filled(size_t n, float v) {
    float *x = malloc((n ? n : 1) * sizeof *x);
    for (size_t i = 0; i < n; i++) x[i] = v;
    return x;
}

static inline int same_bits(const float *a, const float *b, size_t n) { return memcmp(a, b, n * sizeof *a) == 0; }

static inline float *copy_of(const float *x, size_t n) {
    float *y = malloc((n ? n : 1) * sizeof *y);
    memcpy(y, x, n * sizeof *y);
    return y;
}

#ifdef CHECK_MSG
/* The CPU backend with `threads` threads; exits the test when it cannot be made. */
static inline fc_backend *cpu_backend(int threads) {
    fc_backend *be = NULL;
    fc_status st = fc_backend_cpu_create(threads, &be);
    CHECK_MSG(st == FC_OK, "cpu backend: %d", (int)st);
    if (st != FC_OK) exit(1);
    return be;
}
#endif

#endif
