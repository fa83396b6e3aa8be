/* A small panel for the training tests, in memory (so training takes the
 * device path): n_series sines of periods 8, 12, 16, ... at levels level,
 * 2 level, 3 level, ... with a slight trend, n_points each, ds 0, 1, 2, ...
 * (for tests that include check.h and data/dataset.h first). */
#ifndef FC_TESTS_TEST_SINES_H
#define FC_TESTS_TEST_SINES_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static inline fc_dataset *test_sines(size_t n_series, size_t n_points, double level, double amplitude) {
    fc_dataset *d = NULL;
    CHECK(fc_dataset_alloc(n_series, n_series * n_points, 0, &d) == FC_OK);
    if (!d) return NULL;
    for (size_t i = 0; i < n_series; i++) {
        char id[24];
        snprintf(id, sizeof id, "s%zu", i);
        d->ids[i] = strdup(id);
        d->offsets[i] = i * n_points;
        for (size_t t = 0; t < n_points; t++) {
            size_t r = i * n_points + t;
            d->ds[r] = (int64_t)t;
            d->y[r] = level * (double)(i + 1) + amplitude * sin(2.0 * M_PI * (double)t / (double)(8 + 4 * i)) +
                      0.01 * level * (double)t / (double)n_points;
            d->mask[r] = 1;
        }
    }
    d->offsets[n_series] = n_series * n_points;
    d->source = strdup("synthetic");
    return d;
}

#endif
