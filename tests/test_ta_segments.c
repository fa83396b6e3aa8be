/* Every TA-Lib function over many series at once: the driver's split into
 * segments (leading NaNs skipped, POISON and RESTART, masks) and the GPU's
 * way of running them (backend/cuda/cuda_ta.cu's fc_cuda_ta_segments,
 * emulated here on the host: NaN over the span, segments visited last
 * first, each segment's scratch its slice of one buffer) give, bit for
 * bit, the values of each series computed alone, and touch no row outside
 * the span. The values themselves are test_ta_fixtures' business. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "kernels/ta/ta_segment.h"
#include "quant/ta.h"
#include "ta_gpu_emulation.h"

#define ROWS 3000
#define GUARD -12345.0   /* rows before the span: no path may touch them */

typedef struct {
    double col[7][ROWS];   /* open, high, low, close, volume, periods, unit */
    uint8_t mask[ROWS];
    size_t off[16], n_series;
} panel;

static uint64_t rng = 12345;
static double uniform(void) {
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* Random-walk bars in series of 0 to 700 bars past row 100, with NaN gaps
 * (leading, inner, a long one, a series of NaN only) and masked bars. */
static void make_panel(panel *p) {
    size_t lens[] = {700, 1, 40, 0, 260, 9, 600, 90, 5, 400, 40, 3, 300};
    p->n_series = sizeof lens / sizeof *lens;
    p->off[0] = 100;
    for (size_t k = 0; k < p->n_series; k++) p->off[k + 1] = p->off[k] + lens[k];
    double v = 100.0;
    for (size_t i = 0; i < ROWS; i++) {
        v += uniform() - 0.5;
        double o = v + uniform() - 0.5, c = v + uniform() - 0.5;
        p->col[0][i] = o;
        p->col[1][i] = fmax(o, c) + uniform();
        p->col[2][i] = fmin(o, c) - uniform();
        p->col[3][i] = c;
        p->col[4][i] = 1000.0 + 1000.0 * uniform();
        p->col[5][i] = 2.0 + (double)(i % 20);
        p->col[6][i] = 1.8 * uniform() - 0.9;
        p->mask[i] = uniform() > 0.01;
        if (uniform() < 0.01) p->col[i % 5][i] = NAN;
        if (i < p->off[0])
            for (int c2 = 0; c2 < 7; c2++) p->col[c2][i] = GUARD;
    }
    for (size_t i = p->off[9]; i < p->off[9] + 15; i++) p->col[3][i] = NAN;   /* a long gap */
    for (size_t i = p->off[10]; i < p->off[11]; i++) p->col[1][i] = NAN;      /* no value at all */
}

static const double *input_of(const panel *p, const fc_ta_func *f, int i) {
    static const char *const names[7] = {"open", "high", "low", "close", "volume", "periods", "unit"};
    const char *col = f->desc.inputs[i].column;
    for (int c = 0; c < 7; c++)
        if (!strcmp(names[c], col)) return p->col[c];
    return p->col[3];
}

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

/* out of one series computed alone, compared with the batch's rows. */
static int series_alone_matches(const fc_ta_func *f, const double *par, const double *const *in,
                                const uint8_t *mask, const panel *p, size_t s, const fc_ind_options *o,
                                double *const *batch) {
    size_t n = p->off[s + 1] - p->off[s], off[2] = {0, n};
    double *ins[FC_TA_MAX_INPUTS] = {0}, *outs[FC_TA_MAX_OUTPUTS] = {0};
    uint8_t *m = mask ? malloc(n + 1) : NULL;
    for (int i = 0; i < f->desc.n_inputs; i++) {
        ins[i] = malloc((n + 1) * sizeof(double));
        memcpy(ins[i], in[i] + p->off[s], n * sizeof(double));
    }
    if (m) memcpy(m, mask + p->off[s], n);
    for (int k = 0; k < f->desc.n_outputs; k++) outs[k] = malloc((n + 1) * sizeof(double));
    int ok = fc_ta_compute(f, par, (const double *const *)ins, m, off, 1, o, outs, NULL) == FC_OK;
    for (int k = 0; k < f->desc.n_outputs && ok; k++)
        for (size_t t = 0; t < n && ok; t++) ok = same(outs[k][t], batch[k][p->off[s] + t]);
    for (int i = 0; i < FC_TA_MAX_INPUTS; i++) free(ins[i]);
    for (int k = 0; k < FC_TA_MAX_OUTPUTS; k++) free(outs[k]);
    free(m);
    return ok;
}

static double outs_a[FC_TA_MAX_OUTPUTS][ROWS], outs_b[FC_TA_MAX_OUTPUTS][ROWS];

static void check_function(const fc_ta_func *f, const panel *p, fc_backend *gpu) {
    double par[FC_TA_MAX_PARAMS];
    CHECK(fc_ta_params(f, NULL, 0, par) == FC_OK);
    const double *in[FC_TA_MAX_INPUTS] = {0};
    for (int i = 0; i < f->desc.n_inputs; i++) in[i] = input_of(p, f, i);
    double *a[FC_TA_MAX_OUTPUTS], *b[FC_TA_MAX_OUTPUTS];
    for (int k = 0; k < FC_TA_MAX_OUTPUTS; k++) a[k] = outs_a[k], b[k] = outs_b[k];
    for (int policy = 0; policy < 2; policy++)
        for (int masked = 0; masked < 2; masked++) {
            for (int k = 0; k < FC_TA_MAX_OUTPUTS; k++)
                for (size_t i = 0; i < ROWS; i++) outs_a[k][i] = outs_b[k][i] = GUARD;
            fc_ind_options o = {policy ? FC_NAN_RESTART : FC_NAN_POISON, 2, -1, NULL};
            const uint8_t *mask = masked ? p->mask : NULL;
            uint8_t none_a[16], none_b[16];
            CHECK(fc_ta_compute(f, par, in, mask, p->off, p->n_series, &o, a, none_a) == FC_OK);
            o.backend = gpu;
            CHECK(fc_ta_compute(f, par, in, mask, p->off, p->n_series, &o, b, none_b) == FC_OK);
            int equal = !memcmp(none_a, none_b, p->n_series), untouched = 1;
            for (int k = 0; k < f->desc.n_outputs; k++)
                for (size_t i = 0; i < ROWS; i++) {
                    equal &= same(outs_a[k][i], outs_b[k][i]);
                    if (i < p->off[0] || i >= p->off[p->n_series]) untouched &= outs_a[k][i] == GUARD && outs_b[k][i] == GUARD;
                }
            CHECK_MSG(equal, "%s (policy %d, mask %d): the GPU's way differs from the CPU's", f->desc.name, policy, masked);
            CHECK_MSG(untouched, "%s: a row outside the span was written", f->desc.name);
            o.backend = NULL;
            for (size_t s = 0; s < p->n_series; s++)
                CHECK_MSG(series_alone_matches(f, par, in, mask, p, s, &o, a), "%s (policy %d, mask %d): series %zu "
                          "alone differs from the batch", f->desc.name, policy, masked, s);
        }
}

int main(void) {
    static panel p;
    make_panel(&p);
    fc_backend gpu;
    memset(&gpu, 0, sizeof gpu);
    gpu.name = "emulated";
    gpu.ta_segments = fc_test_emulated_ta_segments;
    size_t checked = 0;
    for (size_t i = 0; i < fc_ta_count(); i++) {
        const fc_ta_func *f = fc_ta_at(i);
        if (!f->impl) continue;
        check_function(f, &p, &gpu);
        checked++;
    }
    printf("%zu functions: batch = each series alone = the GPU's segments, under both NaN policies\n", checked);
    CHECK(checked > 0);
    printf("%d checks, %d failures\n", check_count, check_failures);
    return check_failures != 0;
}
