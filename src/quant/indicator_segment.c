/* One indicator on one segment, scalar: the kernels' seed followed by their
 * run loop. This is the whole computation for short or odd segments, and the
 * tail of every SIMD lane block (indicator_lanes.c). */
#include "quant/indicator_exec.h"

#include <math.h>
#include <string.h>
#include "core/error.h"

void fc_ind_plan_make(const fc_ind_spec *spec, fc_ind_plan *plan) {
    memset(plan, 0, sizeof *plan);
    fc_ind_kparams *k = &plan->k;
    plan->kind = spec->kind;
    plan->lookback = fc_ind_lookback(spec);
    plan->n_out = fc_ind_n_outputs(spec);
    int p = spec->period;
    if (spec->kind == FC_IND_MACD) {
        /* TA-Lib swaps the periods when slow < fast. */
        int fast = spec->period < spec->slow ? spec->period : spec->slow;
        p = spec->period < spec->slow ? spec->slow : spec->period;
        k->p_fast = fast;
        k->p_signal = spec->signal;
        k->k_fast = 2.0 / (double)(fast + 1);
        k->k_signal = 2.0 / (double)(spec->signal + 1);
    }
    k->p = p;
    k->fp = (double)p;
    k->inv = 1.0 / (double)p;
    k->pm1 = (double)(p - 1);
    k->divider = (double)p * (p + 1) / 2.0;
    k->k_slow = 2.0 / (double)(p + 1);
    k->dev_up = spec->kind == FC_IND_STDDEV || spec->kind == FC_IND_BBANDS ? spec->dev_up : 1.0;
    k->dev_dn = spec->dev_dn;
    k->reseed = spec->kind == FC_IND_WMA ? 8 * p : 32 * p;
    plan->copy = (spec->kind == FC_IND_EMA || spec->kind == FC_IND_WMA) && p == 1;
    switch (spec->kind) {
    case FC_IND_SMA:
    case FC_IND_STDDEV:
    case FC_IND_BBANDS:
    case FC_IND_ZSCORE: plan->trail = p - 1; break;
    case FC_IND_WMA:
    case FC_IND_MOM:
    case FC_IND_ROC: plan->trail = p; break;
    case FC_IND_RSI: plan->trail = 1; break;
    default: plan->trail = -1; break;
    }
}

static void fill_nan(double *const *out, int n_out, long from, long to) {
    for (int j = 0; j < n_out; j++)
        for (long t = from; t < to; t++) out[j][t] = NAN;
}

static void bands_segment(const fc_ind_plan *plan, const double *x, long n, double *const *out) {
    double st[5];
    const fc_ind_kparams *k = &plan->k;
    long start = fc_bands_seed(st, 1, x, k);
    fill_nan(out, plan->n_out, 0, start);
    if (plan->kind == FC_IND_BBANDS) fc_bbands_run(st, 1, x, start, n, k, out[0], out[1], out[2]);
    else fc_zscore_run(st, 1, x, start, n, k, out[0]);
}

int fc_ind_segment(const fc_ind_plan *plan, const double *x, long n, double *const *out) {
    if (n <= plan->lookback) {
        fill_nan(out, plan->n_out, 0, n);
        return 0;
    }
    if (plan->copy) {
        memcpy(out[0], x, (size_t)n * sizeof *x);
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
    case FC_IND_ZSCORE: bands_segment(plan, x, n, out); break;
    case FC_IND_RSI: start = fc_rsi_seed(st, 1, x, k, out[0]); fc_rsi_run(st, 1, x, start, n, k, out[0]); break;
    case FC_IND_MACD:
        start = fc_macd_seed(st, 1, x, k, out[0], out[1], out[2]);
        fc_macd_run(st, 1, x, start, n, k, out[0], out[1], out[2]);
        break;
    case FC_IND_MOM: start = fc_lagged_seed(k, out[0]); fc_mom_run(x, start, n, k, out[0]); break;
    case FC_IND_ROC: start = fc_lagged_seed(k, out[0]); fc_roc_run(x, start, n, k, out[0]); break;
    default: FC_ASSERT(0);
    }
    return 1;
}
