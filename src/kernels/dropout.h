/* Body of the backend's dropout: torch's inverted dropout with a mask from
 * the counter-based generator (core/rng.h), so that the mask of a point is
 * a function of (seed, offset, row, column) alone:
 *
 *   u    = fc_u32_to_unit_float(first word of fc_rng_block(seed, FC_RNG_STREAM_DROPOUT, offset + r C + c))
 *   keep = u >= p                    (probability 1 - p, to 2^-24)
 *   y    = x * keep / (1 - p)        in float: (x * (keep ? 1 : 0)) / (1.0f - p)
 *
 * so a kept point is x / (1 - p) correctly rounded (x * 1 is exact) and a
 * dropped one is x * 0 / (1 - p): a zero of x's sign, NaN for an infinite
 * or NaN x, as torch's x * mask * scale. The index runs over the (B, C)
 * block packed (r C + c, whatever the row strides), so the backward, the
 * same call on dy with the same (seed, offset), zeroes the same points;
 * callers give each dropout site and step its own offset range. No thread,
 * device or thread count enters the mask: every backend gives the same
 * bits (a multiply and a divide, both IEEE). */
#ifndef FC_KERNELS_DROPOUT_H
#define FC_KERNELS_DROPOUT_H

#include <stddef.h>
#include <stdint.h>
#include "core/hd.h"
#include "core/rng.h"

/* 1 when point `index` of the stream is kept at drop probability p. */
FC_HD int fc_dropout_keep(uint64_t seed, uint64_t index, float p) {
    return fc_u32_to_unit_float(fc_rng_block(seed, FC_RNG_STREAM_DROPOUT, index).v[0]) >= p;
}

FC_HD float fc_dropout_point(float x, float p, uint64_t seed, uint64_t index) {
    return x * (fc_dropout_keep(seed, index, p) ? 1.0f : 0.0f) / (1.0f - p);
}

/* One row of C points, the first at stream index `index`. y may be x. */
FC_HD void fc_dropout_row(float *y, const float *x, size_t C, float p, uint64_t seed, uint64_t index) {
    for (size_t c = 0; c < C; c++) y[c] = fc_dropout_point(x[c], p, seed, index + c);
}

#endif
