/* Test inputs shared by the backend tests: host arrays drawn from the
 * Philox stream (reproducible, no libc rand) or filled with one value.
 * The caller frees them. */
#ifndef FC_TESTS_TEST_ARRAYS_H
#define FC_TESTS_TEST_ARRAYS_H

#include <stdint.h>
#include <stdlib.h>

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

#endif
