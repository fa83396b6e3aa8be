/* A DistributionLoss model's forecast columns (distribution_forecast.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/distribution_sample.h"
#include "train/distribution_forecast.h"

size_t fc_distribution_columns(const fc_loss_spec *s) { return 1 + (size_t)s->n_q; }

static int by_value(const void *a, const void *b) {
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* torch computes the position q (n - 1) in the values' float and lerps as
 * at::lerp: a + w (b - a) below w = 0.5, b - (b - a)(1 - w) from it. */
float fc_sorted_quantile(const float *sorted, size_t n, float q) {
    float rank = q * (float)(n - 1);
    size_t lo = (size_t)floorf(rank), hi = (size_t)ceilf(rank);
    if (hi >= n) hi = n - 1;
    float a = sorted[lo], b = sorted[hi], w = rank - (float)lo;
    return w < 0.5f ? a + w * (b - a) : b - (b - a) * (1.0f - w);
}

/* One point: its draws, their mean and quantiles. A NaN draw (a raw output
 * that is not finite) makes every column NaN, as torch.quantile's. */
static void point_columns(const fc_loss_spec *s, fc_draw_rng_key key, const float *raw, float shift, float scale,
                          float *draws, float *out) {
    int dist = s->kind - FC_LOSS_NORMAL, nan = 0;
    size_t n = (size_t)s->n_samples;
    double sum = 0.0;
    for (size_t k = 0; k < n; k++) {
        fc_draw_rng r = fc_draw_rng_at(key.seed, (uint32_t)key.window, (uint32_t)(key.window >> 32), key.point,
                                       (uint32_t)k);
        draws[k] = fc_distribution_draw(dist, raw, shift, scale, &r);
        nan |= draws[k] != draws[k];
        sum += (double)draws[k];
    }
    out[0] = (float)(sum / (double)n);
    if (nan) {
        for (int j = 0; j < s->n_q; j++) out[1 + j] = NAN;
        return;
    }
    qsort(draws, n, sizeof *draws, by_value);
    for (int j = 0; j < s->n_q; j++) out[1 + j] = fc_sorted_quantile(draws, n, s->q[j]);
}

uint64_t fc_distribution_window_key(const float *in_y, const float *in_mask, size_t L) {
    uint64_t h = 0xcbf29ce484222325ull;
    const float *rows[2] = {in_y, in_mask};
    for (int r = 0; r < 2; r++)
        for (size_t t = 0; t < L; t++) {
            uint32_t bits;
            memcpy(&bits, &rows[r][t], sizeof bits);
            for (int k = 0; k < 4; k++) h = (h ^ ((bits >> (8 * k)) & 0xffu)) * 0x100000001b3ull;
        }
    return h;
}

void fc_distribution_forecast_window(const fc_loss_spec *s, uint64_t seed, uint64_t window, const float *raw,
                                     size_t H, float shift, float scale, float *draws, float *out) {
    size_t P = fc_loss_outputs(s), C = fc_distribution_columns(s);
    for (size_t t = 0; t < H; t++) {
        fc_draw_rng_key key = {seed, window, (uint32_t)t};
        point_columns(s, key, raw + t * P, shift, scale, draws, out + t * C);
    }
}
