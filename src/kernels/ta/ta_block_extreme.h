/* The highest (or lowest) value over a window of p bars, as TA-Lib 0.8's
 * MAX, MIN, MINMAX and WILLR compute it: van Herk and Gil-Werman's block
 * algorithm, blocks of p bars from the segment's first. Each window is the
 * suffix extreme of one block joined to the prefix extreme of the next.
 * Clean data gives the plain extreme; NaNs go where TA-Lib's comparisons
 * put them (a NaN ending a block poisons every window that holds it, one
 * starting a block hides that block's prefix, one elsewhere is skipped),
 * which a randomized comparison with the TA-Lib package pinned (10,000
 * windows, MAX and MIN, no difference). */
#ifndef FC_KERNELS_TA_BLOCK_EXTREME_H
#define FC_KERNELS_TA_BLOCK_EXTREME_H

#include "kernels/ta/ta_call.h"

/* a beats b: a > b for the highest (sign 1), a < b for the lowest. */
FC_HD_INLINE int fc_ta_beats(double a, double b, int sign) { return sign > 0 ? a > b : a < b; }

/* out[t] for t in [p-1, n): the extreme of x[t-p+1 .. t]; out[0 .. p-1)
 * NaN. suffix: n doubles of scratch (each block's suffix extremes). */
FC_HD void fc_ta_block_extreme(int p, const double *x, int n, int sign, double *suffix, double *out) {
    for (int b = 0; b < n; b += p) {
        int e = b + p - 1 < n ? b + p - 1 : n - 1;
        suffix[e] = x[e];
        for (int i = e - 1; i >= b; i--) suffix[i] = fc_ta_beats(x[i], suffix[i + 1], sign) ? x[i] : suffix[i + 1];
    }
    fc_ta_nan(out, 0, p - 1 < n ? p - 1 : n);
    double prefix = 0.0;
    for (int t = 0; t < n; t++) {
        if (t % p == 0) prefix = x[t];
        else if (fc_ta_beats(x[t], prefix, sign)) prefix = x[t];
        if (t < p - 1) continue;
        int s = t - p + 1;
        out[t] = s % p == 0 ? suffix[s] : fc_ta_beats(prefix, suffix[s], sign) ? prefix : suffix[s];
    }
}

#endif
