/* TA-Lib's Math Transform and Math Operators (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_mth_... */
#ifndef FC_KERNELS_TA_MATH_H
#define FC_KERNELS_TA_MATH_H

#include "kernels/ta/ta_call.h"
#include <stddef.h>
#include "kernels/ta/ta_ma.h"
#include "kernels/ta/ta_block_extreme.h"

/* ------------------------------------------------------ math transforms */

/* Each transform is one libm call per bar, no lookback. */
#define FC_TA_MTH_UNARY(name, expr) \
    FC_HD int fc_ta_##name##_lookback(const double *par) { (void)par; return 0; } \
    FC_HD void fc_ta_##name(const fc_ta_call *c) { \
        const double *x = c->in[0]; \
        for (int t = 0; t < c->n; t++) c->out[0][t] = expr(x[t]); \
    }

FC_TA_MTH_UNARY(acos, acos)
FC_TA_MTH_UNARY(asin, asin)
FC_TA_MTH_UNARY(atan, atan)
FC_TA_MTH_UNARY(ceil, ceil)
FC_TA_MTH_UNARY(cos, cos)
FC_TA_MTH_UNARY(cosh, cosh)
FC_TA_MTH_UNARY(exp, exp)
FC_TA_MTH_UNARY(floor, floor)
FC_TA_MTH_UNARY(ln, log)
FC_TA_MTH_UNARY(log10, log10)
FC_TA_MTH_UNARY(sin, sin)
FC_TA_MTH_UNARY(sinh, sinh)
FC_TA_MTH_UNARY(sqrt, sqrt)
FC_TA_MTH_UNARY(tan, tan)
FC_TA_MTH_UNARY(tanh, tanh)

#undef FC_TA_MTH_UNARY

/* ------------------------------------------- element-wise operators */

#define FC_TA_MTH_BINARY(name, op) \
    FC_HD int fc_ta_##name##_lookback(const double *par) { (void)par; return 0; } \
    FC_HD void fc_ta_##name(const fc_ta_call *c) { \
        const double *a = c->in[0], *b = c->in[1]; \
        for (int t = 0; t < c->n; t++) c->out[0][t] = a[t] op b[t]; \
    }

FC_TA_MTH_BINARY(add, +)
FC_TA_MTH_BINARY(sub, -)
FC_TA_MTH_BINARY(mult, *)
FC_TA_MTH_BINARY(div, /)

#undef FC_TA_MTH_BINARY

/* --------------------------------------------------------------- CUMSUM */

FC_HD int fc_ta_cumsum_lookback(const double *par) { (void)par; return 0; }

/* A plain running total from the segment's first bar. */
FC_HD void fc_ta_cumsum(const fc_ta_call *c) {
    double total = 0.0;
    for (int t = 0; t < c->n; t++) {
        total += c->in[0][t];
        c->out[0][t] = total;
    }
}

/* ------------------------------------------------------------------ SUM */

FC_HD int fc_ta_sum_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }

/* A running total over p bars, the oldest value subtracted after each output. */
FC_HD void fc_ta_sum(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]);
    const double *x = c->in[0];
    double *out = c->out[0];
    double total = 0.0;
    for (int i = 0; i < p - 1; i++) total += x[i];
    fc_ta_nan(out, 0, p - 1);
    for (int t = p - 1; t < c->n; t++) {
        total += x[t];
        out[t] = total;
        total -= x[t - p + 1];
    }
}

/* ------------------------------------- MAX, MIN, MINMAX and their indices */

/* TA-Lib's sliding extreme over p bars: the index of the highest (lowest)
 * value is kept; when it leaves the window the window is rescanned with a
 * strict comparison (the earliest of equal values wins), otherwise a new bar
 * replaces it when >= (<=) (the latest of equal values wins). A NaN never
 * wins a comparison. The rescan starts from the window's first bar: MAXINDEX
 * and MININDEX keep that bar even when it is NaN (their index then points at
 * the NaN until it leaves the window), while TA-Lib's MAX, MIN and MINMAX
 * (as the wheel computes them) pass over a NaN first bar, as if the rescan
 * started from -inf (+inf): values_only selects the latter. Writes the index
 * of each bar's extreme (from bar p-1 on) into hi_idx / lo_idx (either may
 * be NULL), as doubles. */
FC_HD void fc_ta_mth_extremes(int p, const double *x, int n, int values_only, double *hi_idx,
                              double *lo_idx) {
    int hi = -1, lo = -1;
    double highest = 0.0, lowest = 0.0;
    for (int t = p - 1; t < n; t++) {
        int first = t - p + 1;
        double v = x[t];
        if (hi_idx) {
            if (hi < first) {
                hi = first;
                highest = values_only && isnan(x[first]) ? -INFINITY : x[first];
                for (int i = first + 1; i <= t; i++)
                    if (x[i] > highest) hi = i, highest = x[i];
            } else if (v >= highest) {
                hi = t;
                highest = v;
            }
            hi_idx[t] = (double)hi;
        }
        if (lo_idx) {
            if (lo < first) {
                lo = first;
                lowest = values_only && isnan(x[first]) ? INFINITY : x[first];
                for (int i = first + 1; i <= t; i++)
                    if (x[i] < lowest) lo = i, lowest = x[i];
            } else if (v <= lowest) {
                lo = t;
                lowest = v;
            }
            lo_idx[t] = (double)lo;
        }
    }
    if (hi_idx) fc_ta_nan(hi_idx, 0, p - 1);
    if (lo_idx) fc_ta_nan(lo_idx, 0, p - 1);
}

/* The values at the indices that fc_ta_mth_extremes wrote into out. */
FC_HD void fc_ta_mth_values_at(int p, const double *x, int n, double *out) {
    for (int t = p - 1; t < n; t++) out[t] = x[(int)out[t]];
}

/* MAX, MIN and MINMAX: TA-Lib 0.8's block algorithm (ta_block_extreme.h),
 * whose NaNs the index functions' rescan does not reproduce. */
FC_HD int fc_ta_max_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_max(const fc_ta_call *c) {
    fc_ta_block_extreme(fc_ta_int(c->par[0]), c->in[0], c->n, 1, c->work, c->out[0]);
}

FC_HD int fc_ta_min_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_min(const fc_ta_call *c) {
    fc_ta_block_extreme(fc_ta_int(c->par[0]), c->in[0], c->n, -1, c->work, c->out[0]);
}

FC_HD int fc_ta_minmax_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_minmax(const fc_ta_call *c) {
    int p = fc_ta_int(c->par[0]);
    fc_ta_block_extreme(p, c->in[0], c->n, -1, c->work, c->out[0]);
    fc_ta_block_extreme(p, c->in[0], c->n, 1, c->work, c->out[1]);
}

/* The index outputs count bars from the segment's first bar (see the note
 * at the list below). */
FC_HD int fc_ta_maxindex_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_maxindex(const fc_ta_call *c) {
    fc_ta_mth_extremes(fc_ta_int(c->par[0]), c->in[0], c->n, 0, c->out[0], NULL);
}

FC_HD int fc_ta_minindex_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_minindex(const fc_ta_call *c) {
    fc_ta_mth_extremes(fc_ta_int(c->par[0]), c->in[0], c->n, 0, NULL, c->out[0]);
}

FC_HD int fc_ta_minmaxindex_lookback(const double *par) { return fc_ta_int(par[0]) - 1; }
FC_HD void fc_ta_minmaxindex(const fc_ta_call *c) {
    fc_ta_mth_extremes(fc_ta_int(c->par[0]), c->in[0], c->n, 0, c->out[1], c->out[0]);
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_MATH(X) \
    X(ACOS, acos, 0) \
    X(ASIN, asin, 0) \
    X(ATAN, atan, 0) \
    X(CEIL, ceil, 0) \
    X(COS, cos, 0) \
    X(COSH, cosh, 0) \
    X(EXP, exp, 0) \
    X(FLOOR, floor, 0) \
    X(LN, ln, 0) \
    X(LOG10, log10, 0) \
    X(SIN, sin, 0) \
    X(SINH, sinh, 0) \
    X(SQRT, sqrt, 0) \
    X(TAN, tan, 0) \
    X(TANH, tanh, 0) \
    X(ADD, add, 0) \
    X(SUB, sub, 0) \
    X(MULT, mult, 0) \
    X(DIV, div, 0) \
    X(CUMSUM, cumsum, 0) \
    X(SUM, sum, 0) \
    X(MAX, max, 1) \
    X(MIN, min, 1) \
    X(MINMAX, minmax, 1) \
    X(MAXINDEX, maxindex, 0) \
    X(MININDEX, minindex, 0) \
    X(MINMAXINDEX, minmaxindex, 0)

/* The index outputs count bars from the segment's first; the driver
 * (kernels/ta/ta_segment.h) shifts them to count from the series' first,
 * as the TA-Lib package does. */

#endif
