/* The nearest and cubic interpolation bodies (kernels/interp_nearest.h,
 * kernels/interp_cubic.h) against closed forms, not against their own
 * formulas: torch's nearest indices written down from
 * F.interpolate(mode="nearest") (3 knots to 7 points read 0 0 0 1 1 2 2);
 * Keys' cubic convolution from its definition in double (W(d) at each
 * knot's distance), constants reproduced everywhere (the weights sum to 1,
 * border clamping included) and the knots themselves when n_in == n_out;
 * and each backward is the transpose of its forward: <dy, F x> = <F^T dy, x>. */
#include <math.h>

#include "check.h"
#include "core/rng.h"
#include "kernels/interp_cubic.h"
#include "kernels/interp_nearest.h"

enum { MAX_N = 64 };

static float uniform(uint64_t i) { return 2.0f * fc_u32_to_unit_float(fc_rng_block(11, 3, i).v[0]) - 1.0f; }

static void test_nearest_indices(void) {
    static const size_t want37[] = {0, 0, 0, 1, 1, 2, 2};
    for (size_t j = 0; j < 7; j++) CHECK(fc_interp_nearest_src(3, 7, j) == want37[j]);
    for (size_t j = 0; j < 12; j++) CHECK(fc_interp_nearest_src(4, 12, j) == j / 3);   /* upsampling by 3 */
    for (size_t j = 0; j < 4; j++) CHECK(fc_interp_nearest_src(12, 4, j) == 3 * j);    /* downsampling by 3 */
}

/* Keys' kernel W(d) from its definition (Keys 1981, torch's A = -0.75):
 * (A+2)|d|^3 - (A+3)|d|^2 + 1 for |d| <= 1, A|d|^3 - 5A|d|^2 + 8A|d| - 4A
 * for 1 < |d| < 2, 0 beyond; y(s) = sum over knots i of x[clamp(i)] W(s - i). */
static double keys(double d) {
    const double A = -0.75;
    d = fabs(d);
    return d <= 1 ? ((A + 2) * d - (A + 3)) * d * d + 1 : d < 2 ? ((A * d - 5 * A) * d + 8 * A) * d - 4 * A : 0;
}

static void test_cubic_closed_form(void) {
    static const size_t sizes[][2] = {{1, 7}, {2, 5}, {3, 12}, {6, 24}, {12, 12}, {31, 7}, {5, 64}};
    float x[MAX_N], y[MAX_N];
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n_in = sizes[s][0], n_out = sizes[s][1];
        for (size_t i = 0; i < n_in; i++) x[i] = 2.5f;   /* constants stay constants: the weights sum to 1 */
        fc_interp_cubic_row_forward(y, x, n_in, n_out);
        for (size_t j = 0; j < n_out; j++) CHECK_MSG(fabsf(y[j] - 2.5f) < 4e-6f, "%zu->%zu j %zu: %g", n_in, n_out, j, y[j]);
        for (size_t i = 0; i < n_in; i++) x[i] = uniform(300 + i);
        fc_interp_cubic_row_forward(y, x, n_in, n_out);
        for (size_t j = 0; j < n_out; j++) {
            double src = (double)n_in / (double)n_out * ((double)j + 0.5) - 0.5, want = 0;
            long long f = (long long)floor(src);
            if (f > (long long)n_in - 1) f = (long long)n_in - 1;
            for (long long i = f - 1; i <= f + 2; i++)
                want += x[i < 0 ? 0 : i > (long long)n_in - 1 ? (long long)n_in - 1 : i] * keys(src - (double)i);
            CHECK_MSG(fabs(y[j] - want) < 1e-5, "%zu->%zu j %zu: %g, Keys %g", n_in, n_out, j, y[j], want);
            if (n_in == n_out) CHECK(fabsf(y[j] - x[j]) < 1e-6f);   /* on the knots: the knots */
        }
    }
}

/* <dy, F x> = <F^T dy, x> in double, for random x and dy. */
static void check_transpose(const char *name, void (*fwd)(float *, const float *, size_t, size_t),
                            void (*bwd)(float *, const float *, size_t, size_t), size_t n_in, size_t n_out) {
    float x[MAX_N], y[MAX_N], dy[MAX_N], dx[MAX_N];
    for (size_t i = 0; i < n_in; i++) x[i] = uniform(i);
    for (size_t j = 0; j < n_out; j++) dy[j] = uniform(1000 + j);
    fwd(y, x, n_in, n_out);
    bwd(dx, dy, n_in, n_out);
    double a = 0, b = 0;
    for (size_t j = 0; j < n_out; j++) a += (double)dy[j] * y[j];
    for (size_t i = 0; i < n_in; i++) b += (double)dx[i] * x[i];
    CHECK_MSG(fabs(a - b) < 1e-5 * (1 + fabs(a)), "%s %zu->%zu: %g vs %g", name, n_in, n_out, a, b);
}

int main(void) {
    test_nearest_indices();
    test_cubic_closed_form();
    static const size_t sizes[][2] = {{1, 7}, {2, 7}, {3, 12}, {7, 31}, {31, 7}, {12, 12}, {5, 64}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n_in = sizes[s][0], n_out = sizes[s][1];
        check_transpose("nearest", fc_interp_nearest_row_forward, fc_interp_nearest_row_backward, n_in, n_out);
        check_transpose("cubic", fc_interp_cubic_row_forward, fc_interp_cubic_row_backward, n_in, n_out);
        float dy[MAX_N], dx[MAX_N];   /* the per-knot gathers (CUDA's) equal the scatters */
        for (size_t j = 0; j < n_out; j++) dy[j] = uniform(2000 + j);
        fc_interp_cubic_row_backward(dx, dy, n_in, n_out);
        for (size_t i = 0; i < n_in; i++) CHECK(fc_interp_cubic_backward_point(dy, n_in, n_out, i) == dx[i]);
        fc_interp_nearest_row_backward(dx, dy, n_in, n_out);
        for (size_t i = 0; i < n_in; i++) CHECK(fc_interp_nearest_backward_point(dy, n_in, n_out, i) == dx[i]);
    }
    return CHECK_DONE();
}
