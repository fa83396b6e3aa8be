/* fc_ta_compute (quant/ta.h): each series split into segments (after its
 * leading missing bars; under RESTART, between missing bars), each segment
 * longer than the lookback run through the function's body, in parallel
 * over series. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "quant/ta.h"

/* A bar is missing when the mask says so or any input is NaN there. */
static int missing(const fc_ta_func *f, const double *const *in, const uint8_t *mask, size_t r) {
    if (mask && !mask[r]) return 1;
    for (int i = 0; i < f->desc.n_inputs; i++)
        if (isnan(in[i][r])) return 1;
    return 0;
}

typedef struct {
    const fc_ta_func *f;
    const double *par;
    const double *const *in;
    const uint8_t *mask;
    double *const *out;
    int lookback;
    fc_nan_policy nan;
} ta_job;

/* Runs the body on rows [from, to) of the arrays; the inputs are the
 * callers' rows, or (with a mask) copies in `masked` with NaN at masked rows. */
static int run_segment(const ta_job *j, size_t from, size_t to, double *work, double *masked) {
    int n = (int)(to - from);
    if (n <= j->lookback) return 0;
    fc_ta_call c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.par = j->par;
    c.work = work;
    for (int i = 0; i < j->f->desc.n_inputs; i++) {
        if (j->mask) {
            double *copy = masked + (size_t)i * (size_t)n;
            for (int t = 0; t < n; t++) copy[t] = j->mask[from + t] ? j->in[i][from + t] : NAN;
            c.in[i] = copy;
        } else {
            c.in[i] = j->in[i] + from;
        }
    }
    for (int k = 0; k < j->f->desc.n_outputs; k++) c.out[k] = j->out[k] + from;
    j->f->impl->compute(&c);
    return 1;
}

static void fill_nan(const ta_job *j, size_t from, size_t to) {
    for (int k = 0; k < j->f->desc.n_outputs; k++)
        for (size_t r = from; r < to; r++) j->out[k][r] = NAN;
}

/* One series, rows [lo, hi); returns whether any value came out. */
static int run_series(const ta_job *j, size_t lo, size_t hi, double *work, double *masked) {
    fill_nan(j, lo, hi);
    size_t r = lo;
    while (r < hi && missing(j->f, j->in, j->mask, r)) r++;
    if (j->nan == FC_NAN_POISON) return run_segment(j, r, hi, work, masked);
    int any = 0;
    while (r < hi) {
        size_t end = r;
        while (end < hi && !missing(j->f, j->in, j->mask, end)) end++;
        any |= run_segment(j, r, end, work, masked);
        r = end;
        while (r < hi && missing(j->f, j->in, j->mask, r)) r++;
    }
    return any;
}

static fc_status check_call(const fc_ta_func *f, const double *const *in, const size_t *offsets,
                            size_t n_series, double *const *out) {
    if (!f->impl)
        return fc_error(FC_ERR_INVALID, "%s: TA-Lib has it, fcast does not compute it yet", f->desc.name);
    if (n_series && !offsets) return fc_error(FC_ERR_INVALID, "%s: offsets is NULL", f->desc.name);
    for (int i = 0; i < f->desc.n_inputs; i++)
        if (!in[i] && n_series)
            return fc_error(FC_ERR_INVALID, "%s: input '%s' is missing", f->desc.name, f->desc.inputs[i].role);
    for (int k = 0; k < f->desc.n_outputs; k++)
        if (!out[k] && n_series)
            return fc_error(FC_ERR_INVALID, "%s: output '%s' has no array", f->desc.name, f->desc.outputs[k]);
    return FC_OK;
}

fc_status fc_ta_compute(const fc_ta_func *f, const double *par, const double *const *in,
                        const uint8_t *mask, const size_t *offsets, size_t n_series,
                        const fc_ind_options *opt, double *const *out, uint8_t *no_output) {
    FC_TRY(check_call(f, in, offsets, n_series, out));
    fc_ind_options o = {FC_NAN_POISON, 0, -1, NULL};   /* fc_ind_options_default() */
    if (opt) o = *opt;
    ta_job j = {f, par, in, mask, out, f->impl->lookback(par), o.nan};
    size_t longest = 0;
    for (size_t s = 0; s < n_series; s++)
        if (offsets[s + 1] - offsets[s] > longest) longest = offsets[s + 1] - offsets[s];
    size_t per_thread = longest * ((size_t)f->impl->work + (mask ? FC_TA_MAX_INPUTS : 0)) + 1;
    int failed = 0;
#pragma omp parallel num_threads(o.threads > 0 ? o.threads : omp_get_max_threads()) if (n_series > 1)
    {
        double *scratch = malloc(per_thread * sizeof *scratch);
        if (!scratch) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (size_t s = 0; s < n_series; s++) {
            if (!scratch) continue;
            int any = run_series(&j, offsets[s], offsets[s + 1], scratch,
                                 scratch + longest * (size_t)f->impl->work);
            if (no_output) no_output[s] = (uint8_t)!any;
        }
        free(scratch);
    }
    if (failed) return fc_error(FC_ERR_MEMORY, "%s: out of memory for %zu bars of scratch", f->desc.name, per_thread);
    return FC_OK;
}
