/* One indicator on one segment, scalar: the kernels' seed followed by their
 * run loop (fc_ind_segment_run in indicator_exec.h, shared with the GPU).
 * This is the whole computation for short or odd segments, and the tail of
 * every SIMD lane block (indicator_lanes.c). */
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

int fc_ind_segment(const fc_ind_plan *plan, const double *x, long n, double *const *out) {
    FC_ASSERT((unsigned)plan->kind < FC_IND_KIND_COUNT);
    return fc_ind_segment_run(plan, x, n, out);
}
