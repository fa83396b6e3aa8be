/* The per-point backward bodies that the CUDA backend runs one thread per
 * input point (fc_maxpool1d_backward_point, fc_interp_linear_backward_point)
 * against the row bodies the CPU runs (the scatters): the same bits for
 * every point, over many shapes, with signed zeros, infinities and ties in
 * the gradients, so the GPU's backward is checked here without a GPU. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "kernels/interp_linear.h"
#include "kernels/maxpool1d.h"

/* Deterministic values with the awkward cases mixed in. */
static float value_at(uint64_t *state, int awkward) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t r = (uint32_t)(*state >> 33);
    if (awkward && r % 17 == 0) return -0.0f;
    if (awkward && r % 23 == 0) return (r & 1) ? INFINITY : -INFINITY;
    if (r % 7 == 0) return 1.0f;   /* ties for the max */
    return (float)(r % 20001) / 1000.0f - 10.0f;
}

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0 || (isnan(a) && isnan(b)); }

static int interp_shape_agrees(size_t n_in, size_t n_out, uint64_t *state) {
    float *dy = malloc(n_out * sizeof *dy), *dx = malloc(n_in * sizeof *dx);
    for (size_t j = 0; j < n_out; j++) dy[j] = value_at(state, 1);
    fc_interp_linear_row_backward(dx, dy, n_in, n_out);
    int ok = 1;
    for (size_t i = 0; i < n_in && ok; i++) {
        float p = fc_interp_linear_backward_point(dy, n_in, n_out, i);
        if (!same_bits(p, dx[i])) {
            fprintf(stderr, "interp %zu -> %zu: dx[%zu] row %.9g point %.9g\n", n_in, n_out, i, dx[i], p);
            ok = 0;
        }
    }
    free(dy);
    free(dx);
    return ok;
}

static int maxpool_shape_agrees(size_t L, size_t k, uint64_t *state) {
    size_t n_out = fc_maxpool1d_out_len(L, k);
    float *x = malloc(L * sizeof *x), *y = malloc(n_out * sizeof *y), *dy = malloc(n_out * sizeof *dy);
    float *dx = malloc(L * sizeof *dx);
    int32_t *argmax = malloc(n_out * sizeof *argmax);
    for (size_t i = 0; i < L; i++) x[i] = value_at(state, 0);
    for (size_t j = 0; j < n_out; j++) dy[j] = value_at(state, 1);
    fc_maxpool1d_row_forward(x, L, k, y, argmax);
    fc_maxpool1d_row_backward(dx, L, dy, argmax, k);
    int ok = 1;
    for (size_t i = 0; i < L && ok; i++) {
        float p = fc_maxpool1d_backward_point(dy, argmax, k, i);
        if (!same_bits(p, dx[i])) {
            fprintf(stderr, "maxpool L=%zu k=%zu: dx[%zu] row %.9g point %.9g\n", L, k, i, dx[i], p);
            ok = 0;
        }
    }
    free(x);
    free(y);
    free(dy);
    free(dx);
    free(argmax);
    return ok;
}

int main(void) {
    uint64_t state = 42;
    size_t sizes[] = {1, 2, 3, 5, 7, 12, 24, 31, 33, 48, 96, 97, 168, 257, 720, 1001};
    size_t n = sizeof sizes / sizeof *sizes;
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < n; b++) CHECK(interp_shape_agrees(sizes[a], sizes[b], &state));
    CHECK(interp_shape_agrees(12345, 54321, &state));
    CHECK(interp_shape_agrees(54321, 12345, &state));
    size_t kernels[] = {1, 2, 3, 4, 8, 16, 100};
    for (size_t a = 0; a < n; a++)
        for (size_t b = 0; b < sizeof kernels / sizeof *kernels; b++)
            CHECK(maxpool_shape_agrees(sizes[a], kernels[b], &state));
    printf("test_kernel_points: %d checks, %d failures\n", check_count, check_failures);
    return check_failures != 0;
}
