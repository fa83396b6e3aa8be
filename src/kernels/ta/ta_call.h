/* One call of a TA-Lib function on one clean segment of one series: the
 * contract between the driver (quant/ta_compute.c) and the function bodies
 * of this folder, one header per TA-Lib group.
 *
 * Each function NAME (TA-Lib's name, lower case) is two FC_HD bodies:
 *
 *     int  fc_ta_NAME_lookback(const double *par);  TA-Lib's lookback
 *     void fc_ta_NAME(const fc_ta_call *c);         the values
 *
 * par holds the parameters in TA-Lib's order, every one given (the driver
 * fills the defaults and checks the ranges), integers as whole doubles.
 * The driver calls fc_ta_NAME only with c->n > lookback; the body writes
 * every out[k][0..n): NaN where TA-Lib leaves the bar out (the lookback),
 * TA-Lib's value elsewhere. Integer outputs (the patterns' -100/0/100,
 * indices) are written as whole doubles. c->work holds `work` doubles per
 * bar (the function's entry in its group's list), for intermediate series.
 *
 * The arithmetic is TA-Lib 0.8.1's (the library inside the ta-lib 0.8.2
 * wheel), step for step, so the values match to the bit: fcast's own code,
 * written from reading what TA-Lib computes, not TA-Lib's code. Where the
 * wheel's compiler fused a*b + c into one FMA, the body calls fma() at that
 * spot (this project compiles with contraction off, so every other product
 * and sum is rounded on its own, as in TA-Lib).
 *
 * Each group header ends with its list, X(NAME, name, work) per function,
 * which kernels/ta/ta_all.h turns into ids and the dispatch the CPU and
 * CUDA share, and quant/ta_impl.c into the table of entries. Helpers private to a header carry its
 * group's prefix (fc_ta_ovl_..., fc_ta_mom_...), as every header can be
 * included into one translation unit. */
#ifndef FC_KERNELS_TA_CALL_H
#define FC_KERNELS_TA_CALL_H

#include <math.h>
#include "core/hd.h"

#define FC_TA_MAX_INPUTS 5
#define FC_TA_MAX_OUTPUTS 4
#define FC_TA_MAX_PARAMS 8

typedef struct {
    int n;                                 /* bars in the segment */
    const double *in[FC_TA_MAX_INPUTS];    /* the function's inputs, in TA-Lib's order */
    const double *par;                     /* parameters, TA-Lib's order */
    double *out[FC_TA_MAX_OUTPUTS];        /* n values each */
    double *work;                          /* `work` * n doubles */
} fc_ta_call;

typedef void (*fc_ta_compute_fn)(const fc_ta_call *c);
typedef int (*fc_ta_lookback_fn)(const double *par);

typedef struct {
    const char *name;           /* TA-Lib's name, upper case */
    fc_ta_compute_fn compute;
    fc_ta_lookback_fn lookback;
    int work;                   /* doubles of scratch per bar */
    int id;                     /* kernels/ta/ta_all.h's fc_ta_id: fc_ta_dispatch's key */
} fc_ta_impl;

#define FC_TA_IMPL_ENTRY(NAME, name, work) {#NAME, fc_ta_##name, fc_ta_##name##_lookback, work, FC_TA_ID_##NAME},

/* TA-Lib's parameter as an int (parameters arrive as whole doubles). */
FC_HD_INLINE int fc_ta_int(double v) { return (int)v; }

/* out[from..to) = NaN. */
FC_HD_INLINE void fc_ta_nan(double *out, int from, int to) {
    for (int i = from; i < to; i++) out[i] = NAN;
}

/* TA-Lib's TA_IS_ZERO: |v| < 1e-14 (its test for a zero divisor). */
FC_HD_INLINE int fc_ta_is_zero(double v) { return -0.00000000000001 < v && v < 0.00000000000001; }

#endif
