/* Internal to the indicator library: how one spec is executed on one segment
 * (scalar, kernels/indicators.h seed + run) or on FC_IND_LANES segments side
 * by side in SIMD lanes (indicator_lanes.c). A segment is a stretch of one
 * series that starts on a non-NaN value (see indicators.c). The scalar body
 * is FC_HD: the CUDA backend runs it one segment per thread
 * (backend/cuda/cuda_quant.cu). The plan and segment types are tagged so
 * that backend.h can name them without including this header. */
#ifndef FC_QUANT_INDICATOR_EXEC_H
#define FC_QUANT_INDICATOR_EXEC_H

#include "kernels/indicators.h"
#include "quant/indicators.h"

#define FC_IND_LANES 8

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

/* Checks a spec filled by hand (kind and TA-Lib's parameter ranges). */
fc_status fc_ind_spec_check(const fc_ind_spec *spec);

void fc_ind_plan_make(const fc_ind_spec *spec, fc_ind_plan *plan);

/* Segment x[0..n) -> out[j][0..n) for j < n_out. Returns 1 if at least one
 * value was produced (n > lookback), 0 if the segment is all NaN. The body
 * is fc_ind_segment_run below; this checks the plan's kind first. */
int fc_ind_segment(const fc_ind_plan *plan, const double *x, long n, double *const *out);

/* The same for FC_IND_LANES segments at once; every n[l] must exceed the
 * lookback. streaming: write outputs with non-temporal stores. */
void fc_ind_segments_lanes(const fc_ind_plan *plan, const double *const x[FC_IND_LANES],
                           const long n[FC_IND_LANES], double *const out[FC_IND_LANES][FC_IND_MAX_OUTPUTS],
                           int streaming);

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
