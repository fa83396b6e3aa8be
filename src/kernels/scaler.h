/* Per-window temporal scalers with neuralforecast's TemporalNorm semantics
 * (common/_scalers.py): statistics come from the insample part only, over
 * points whose mask is 1; the whole window is then transformed.
 *
 *   identity  shift 0, scale 1
 *   standard  shift = mean, scale = population std (0 -> 1) + eps
 *   robust    shift = median (the lower middle value for an even count, as
 *             torch.nanmedian), scale = MAD (0 -> 0.6744897501960817 * std,
 *             still 0 -> 1) + eps
 *   minmax    shift = min, scale = (max - min) (0 -> 1) + eps
 *
 * A window with no observed insample point gets shift 0, scale 1 + eps
 * (torch returns NaN for minmax there; see docs/parity.md). Statistics are
 * accumulated in double. `work` holds L floats (robust only). */
#ifndef FC_KERNELS_SCALER_H
#define FC_KERNELS_SCALER_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

/* REVIN: neuralforecast's TemporalNorm('revin'): the standard scaler's
 * statistics and transform, and an inverse through its learned RevIN
 * parameters, shift + revin_bias and scale (relu(revin_weight) + eps). Its
 * transform uses the plain statistics (TemporalNorm.transform scales with
 * the local x_shift, x_scale), so with a loss measured on the scaled data
 * (point and quantile losses) no gradient reaches the parameters and they
 * keep their initial bias 0 and weight 1: the inverse scale is
 * scale (1 + eps) (fc_scaler_inverse_scale). */
typedef enum { FC_SCALER_IDENTITY = 0, FC_SCALER_STANDARD, FC_SCALER_ROBUST, FC_SCALER_MINMAX, FC_SCALER_REVIN,
               FC_SCALER_KINDS } fc_scaler_kind;

#define FC_SCALER_EPS 1e-6f

FC_HD void fc_masked_mean_std(const float *x, const float *mask, size_t L, double *mean, double *std) {
    double s = 0.0, n = 0.0, q = 0.0;
    for (size_t t = 0; t < L; t++)
        if (mask[t] > 0.0f) { s += x[t]; n += 1.0; }
    *mean = n > 0.0 ? s / n : 0.0;
    for (size_t t = 0; t < L; t++)
        if (mask[t] > 0.0f) q += (x[t] - *mean) * (x[t] - *mean);
    *std = n > 0.0 ? sqrt(q / n) : 0.0;
}

/* The k-th smallest (0-based) of a[0..n), n > 0, reordering a: Hoare's
 * selection in Wirth's form, O(n) on average where sorting (the insertion
 * sort this replaced) is O(n^2): at L = 96 the robust scaler's share of a
 * step fell several-fold. The value is the order statistic, the same
 * whatever the algorithm. The index bounds only matter for NaN, which
 * orders nowhere; with them every scan stays inside [lo, hi]. */
FC_HD float fc_select_kth(float *a, size_t n, size_t k) {
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (lo < hi) {
        float x = a[kk];
        ptrdiff_t i = lo, j = hi;
        do {
            while (i < hi && a[i] < x) i++;
            while (j > lo && x < a[j]) j--;
            if (i <= j) {
                float t = a[i];
                a[i] = a[j];
                a[j] = t;
                i++;
                j--;
            }
        } while (i <= j);
        if (j < kk) lo = i;
        if (kk < i) hi = j;
    }
    return a[kk];
}

/* Lower median of the masked values (work: L floats, reordered). */
FC_HD float fc_masked_lower_median(const float *x, const float *mask, size_t L, float *work) {
    size_t n = 0;
    for (size_t t = 0; t < L; t++)
        if (mask[t] > 0.0f) work[n++] = x[t];
    return n ? fc_select_kth(work, n, (n - 1) / 2) : 0.0f;
}

FC_HD void fc_scaler_robust(const float *x, const float *mask, size_t L, float *work,
                            float *shift, float *scale) {
    float med = fc_masked_lower_median(x, mask, L, work);
    size_t n = 0;
    for (size_t t = 0; t < L; t++)            /* |x - median| of the observed points */
        if (mask[t] > 0.0f) work[n++] = fabsf(x[t] - med);
    float mad = n ? fc_select_kth(work, n, (n - 1) / 2) : 0.0f;
    if (mad == 0.0f) {
        double mean, std;
        fc_masked_mean_std(x, mask, L, &mean, &std);
        mad = (float)std * 0.6744897501960817f;
    }
    if (mad == 0.0f) mad = 1.0f;
    *shift = med;
    *scale = mad + FC_SCALER_EPS;
}

FC_HD void fc_scaler_minmax(const float *x, const float *mask, size_t L, float *shift, float *scale) {
    float lo = INFINITY, hi = -INFINITY;
    for (size_t t = 0; t < L; t++)
        if (mask[t] > 0.0f) { lo = fminf(lo, x[t]); hi = fmaxf(hi, x[t]); }
    if (lo > hi) { lo = 0.0f; hi = 0.0f; }   /* nothing observed */
    float range = hi - lo;
    if (range == 0.0f) range = 1.0f;
    *shift = lo;
    *scale = range + FC_SCALER_EPS;
}

/* Statistics of one window from its insample x (L) and mask (L). */
FC_HD void fc_scaler_stats(fc_scaler_kind kind, const float *x, const float *mask, size_t L,
                           float *work, float *shift, float *scale) {
    if (kind == FC_SCALER_STANDARD || kind == FC_SCALER_REVIN) {
        double mean, std;
        fc_masked_mean_std(x, mask, L, &mean, &std);
        float s = (float)std;
        *shift = (float)mean;
        *scale = (s == 0.0f ? 1.0f : s) + FC_SCALER_EPS;
    } else if (kind == FC_SCALER_ROBUST) {
        fc_scaler_robust(x, mask, L, work, shift, scale);
    } else if (kind == FC_SCALER_MINMAX) {
        fc_scaler_minmax(x, mask, L, shift, scale);
    } else {
        *shift = 0.0f;
        *scale = 1.0f;
    }
}

/* z = (x - shift) / scale over n points, in place. */
FC_HD void fc_scaler_apply(float *x, size_t n, float shift, float scale) {
    for (size_t t = 0; t < n; t++) x[t] = (x[t] - shift) / scale;
}

/* The scale a forecast is inverted with: the window's, or RevIN's
 * scale (relu(1) + eps) in float, as torch computes it at the initial
 * weight. */
FC_HD float fc_scaler_inverse_scale(fc_scaler_kind kind, float scale) {
    return kind == FC_SCALER_REVIN ? scale * (1.0f + FC_SCALER_EPS) : scale;
}

/* x = z * scale + shift over n points, in place. */
FC_HD void fc_scaler_invert(float *z, size_t n, float shift, float scale) {
    for (size_t t = 0; t < n; t++) z[t] = z[t] * scale + shift;
}

#endif
