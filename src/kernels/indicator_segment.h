/* One indicator over one segment of one series: the plan (a spec reduced
 * to what the arithmetic needs) and the scalar body, seed + run of
 * kernels/indicators.h. FC_HD: the CPU runs it per segment
 * (quant/indicator_segment.c) and the CUDA backend one segment per thread
 * (backend/cuda/cuda_quant.cu), so both give TA-Lib's bits. The plan and
 * segment types are tagged so that backend.h can name them without
 * including this header. */
#ifndef FC_KERNELS_INDICATOR_SEGMENT_H
#define FC_KERNELS_INDICATOR_SEGMENT_H

#include <stddef.h>
#include "kernels/indicators.h"

typedef struct fc_ind_plan {
    fc_ind_kind kind;
    fc_ind_kparams k;
    int lookback;
    int n_out;
    int copy;   /* EMA and WMA of period 1: TA-Lib copies the input */
    int trail;  /* how far back the step reads its trailing input (-1: none) */
} fc_ind_plan;

/* Rows [begin, begin + len) of the values, all of series `series`. */
typedef struct fc_ind_seg {
    size_t series;
    size_t begin;
    size_t len;
} fc_ind_seg;

FC_HD void fc_ind_fill_nan(double *const *out, int n_out, long from, long to) {
    for (int j = 0; j < n_out; j++)
        for (long t = from; t < to; t++) out[j][t] = NAN;
}

FC_HD void fc_ind_bands_segment(const fc_ind_plan *plan, const double *x, long n, double *const *out) {
    double st[5];
    const fc_ind_kparams *k = &plan->k;
    long start = fc_bands_seed(st, 1, x, k);
    fc_ind_fill_nan(out, plan->n_out, 0, start);
    if (plan->kind == FC_IND_BBANDS) fc_bbands_run(st, 1, x, start, n, k, out[0], out[1], out[2]);
    else fc_zscore_run(st, 1, x, start, n, k, out[0]);
}

/* fc_ind_segment's body (seed + run of kernels/indicators.h), on CPU and GPU
 * alike. A kind outside the enumeration (never made by fc_ind_plan_make)
 * gives NaN and 0. */
FC_HD int fc_ind_segment_run(const fc_ind_plan *plan, const double *x, long n, double *const *out) {
    if (n <= plan->lookback) {
        fc_ind_fill_nan(out, plan->n_out, 0, n);
        return 0;
    }
    if (plan->copy) {
        for (long t = 0; t < n; t++) out[0][t] = x[t];
        return 1;
    }
    const fc_ind_kparams *k = &plan->k;
    double st[5];
    long start;
    switch (plan->kind) {
    case FC_IND_SMA: start = fc_sma_seed(st, 1, x, k, out[0]); fc_sma_run(st, 1, x, start, n, k, out[0]); break;
    case FC_IND_EMA: start = fc_ema_seed(st, 1, x, k, out[0]); fc_ema_run(st, 1, x, start, n, k, out[0]); break;
    case FC_IND_WMA: start = fc_wma_seed(st, 1, x, k, out[0]); fc_wma_run(st, 1, x, start, n, k, out[0]); break;
    case FC_IND_STDDEV:
        start = fc_stddev_seed(st, 1, x, k, out[0]);
        fc_stddev_run(st, 1, x, start, n, k, out[0]);
        break;
    case FC_IND_BBANDS:
    case FC_IND_ZSCORE: fc_ind_bands_segment(plan, x, n, out); break;
    case FC_IND_RSI: start = fc_rsi_seed(st, 1, x, k, out[0]); fc_rsi_run(st, 1, x, start, n, k, out[0]); break;
    case FC_IND_MACD:
        start = fc_macd_seed(st, 1, x, k, out[0], out[1], out[2]);
        fc_macd_run(st, 1, x, start, n, k, out[0], out[1], out[2]);
        break;
    case FC_IND_MOM: start = fc_lagged_seed(k, out[0]); fc_mom_run(x, start, n, k, out[0]); break;
    case FC_IND_ROC: start = fc_lagged_seed(k, out[0]); fc_roc_run(x, start, n, k, out[0]); break;
    default: fc_ind_fill_nan(out, plan->n_out, 0, n); return 0;
    }
    return 1;
}

#endif
