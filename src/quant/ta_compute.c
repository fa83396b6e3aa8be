/* fc_ta_compute (quant/ta.h): each series split into segments (after its
 * leading missing bars; under RESTART, between missing bars), each segment
 * longer than the lookback run through the function's body
 * (kernels/ta/ta_segment.h): on the CPU's threads, or one per GPU thread on
 * a backend with a ta_segments entry. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/error.h"
#include "kernels/ta/ta_segment.h"
#include "quant/ta.h"

/* A bar is missing when any input is NaN there (a mask has been turned
 * into NaNs by apply_mask before). */
static int missing(const fc_ta_job *j, size_t r) {
    for (int i = 0; i < j->n_inputs; i++)
        if (isnan(j->in[i][r])) return 1;
    return 0;
}

static void fill_rows_nan(const fc_ta_job *j, size_t from, size_t to) {
    for (int k = 0; k < j->n_outputs; k++)
        for (size_t r = from; r < to; r++) j->out[k][r] = NAN;
}

/* The segments of series [lo, hi), appended to seg when it is not NULL;
 * returns how many. Rows outside them get NaN here (the bodies write
 * every row of a segment they run). */
static size_t series_segments(const fc_ta_job *j, fc_nan_policy nan, size_t lo, size_t hi, fc_ta_seg *seg) {
    size_t n = 0, r = lo;
    while (r < hi) {
        size_t gap = r;
        while (r < hi && missing(j, r)) r++;
        if (seg) fill_rows_nan(j, gap, r);
        if (r == hi) break;
        size_t end = r + 1;
        if (nan == FC_NAN_POISON) end = hi;   /* a later NaN runs through TA-Lib's arithmetic */
        while (end < hi && !missing(j, end)) end++;
        if (seg) seg[n] = (fc_ta_seg){r, end - r, lo};
        n++;
        r = end;
    }
    return n;
}

/* With a mask, the inputs as copies holding NaN at masked rows, so that the
 * bodies (and a GPU) see one kind of missing value. */
static fc_status apply_mask(fc_ta_job *j, const uint8_t *mask, double **copies) {
    for (int i = 0; i < j->n_inputs; i++) {
        copies[i] = fc_malloc((j->row0 + j->n_rows + 1) * sizeof(double), "masked indicator input");
        if (!copies[i]) return FC_ERR_MEMORY;
        for (size_t r = j->row0; r < j->row0 + j->n_rows; r++) copies[i][r] = mask[r] ? j->in[i][r] : NAN;
        j->in[i] = copies[i];
    }
    return FC_OK;
}

/* The CPU: segments over the threads, longest first, scratch per thread. */
static fc_status run_on_cpu(const fc_ta_job *j, int threads) {
    size_t longest = 0;
    for (size_t s = 0; s < j->n_seg; s++)
        if (j->seg[s].len > longest) longest = j->seg[s].len;
    size_t scratch_len = longest * (size_t)j->work + 1;
    int failed = 0;
#pragma omp parallel num_threads(threads) if (j->n_seg > 1)
    {
        double *work = malloc(scratch_len * sizeof *work);
        if (!work) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (size_t s = 0; s < j->n_seg; s++)
            if (work && !fc_ta_segment_run(j, j->in, j->out, &j->seg[s], work))
                fill_rows_nan(j, j->seg[s].begin, j->seg[s].begin + j->seg[s].len);   /* too short */
        free(work);
    }
    return failed ? fc_error(FC_ERR_MEMORY, "out of memory for %zu doubles of scratch", scratch_len) : FC_OK;
}

static int by_length_desc(const void *a, const void *b) {
    size_t x = ((const fc_ta_seg *)a)->len, y = ((const fc_ta_seg *)b)->len;
    return x < y ? 1 : x > y ? -1 : 0;
}

static fc_status check_call(const fc_ta_func *f, const double *const *in, const size_t *offsets,
                            size_t n_series, double *const *out) {
    if (!f->impl)
        return fc_error(FC_ERR_INVALID, "%s: TA-Lib has it, fcast does not compute it yet", f->desc.name);
    /* TA-Lib feeds EMA's, RSI's, ... unstable periods into the functions
     * that call them (MACD, STOCHRSI, any matype): not reproduced, refused. */
    if (f->desc.unstable_affected && fc_ta_any_unstable_period())
        return fc_error(FC_ERR_INVALID, "%s: an unstable period is set, and TA-Lib applies those of the functions %s "
                        "calls inside it; fcast computes %s only with them all 0 (set_unstable_period('ALL', 0))",
                        f->desc.name, f->desc.name, f->desc.name);
    if (n_series && !offsets) return fc_error(FC_ERR_INVALID, "%s: offsets is NULL", f->desc.name);
    for (int i = 0; i < f->desc.n_inputs; i++)
        if (!in[i] && n_series)
            return fc_error(FC_ERR_INVALID, "%s: input '%s' is missing", f->desc.name, f->desc.inputs[i].role);
    for (int k = 0; k < f->desc.n_outputs; k++)
        if (!out[k] && n_series)
            return fc_error(FC_ERR_INVALID, "%s: output '%s' has no array", f->desc.name, f->desc.outputs[k]);
    return FC_OK;
}

static fc_ta_job make_job(const fc_ta_func *f, const double *par, const double *const *in, double *const *out,
                          const size_t *offsets, size_t n_series) {
    fc_ta_job j;
    memset(&j, 0, sizeof j);
    j.id = f->impl->id;
    j.work = f->impl->work;
    j.n_inputs = f->desc.n_inputs;
    j.n_outputs = f->desc.n_outputs;
    j.lookback = f->impl->lookback(par);
    j.unstable = fc_ta_unstable_period(f);
    j.index_outputs = fc_ta_index_outputs(f);
    for (int i = 0; i < f->desc.n_params; i++) j.par[i] = par[i];
    for (int i = 0; i < j.n_inputs; i++) j.in[i] = in[i];
    for (int k = 0; k < j.n_outputs; k++) j.out[k] = out[k];
    j.row0 = n_series ? offsets[0] : 0;
    j.n_rows = n_series ? offsets[n_series] - offsets[0] : 0;
    return j;
}

/* no_output[s]: no segment of series s longer than the lookback. */
static void report_outputs(const fc_ta_job *j, const size_t *offsets, size_t n_series, uint8_t *no_output) {
    if (!no_output) return;
    for (size_t s = 0; s < n_series; s++) no_output[s] = 1;
    for (size_t i = 0, s = 0; i < j->n_seg; i++) {
        while (s + 1 < n_series && j->seg[i].begin >= offsets[s + 1]) s++;
        if (j->seg[i].len > (size_t)(j->lookback + j->unstable)) no_output[s] = 0;
    }
}

fc_status fc_ta_compute(const fc_ta_func *f, const double *par, const double *const *in,
                        const uint8_t *mask, const size_t *offsets, size_t n_series,
                        const fc_ind_options *opt, double *const *out, uint8_t *no_output) {
    FC_TRY(check_call(f, in, offsets, n_series, out));
    fc_ind_options o = {FC_NAN_POISON, 0, -1, NULL};   /* fc_ind_options_default() */
    if (opt) o = *opt;
    fc_ta_job j = make_job(f, par, in, out, offsets, n_series);
    double *copies[FC_TA_MAX_INPUTS] = {0};
    fc_ta_seg *seg = NULL;
    fc_status st = mask ? apply_mask(&j, mask, copies) : FC_OK;
    size_t count = 0;
    for (size_t s = 0; st == FC_OK && s < n_series; s++) count += series_segments(&j, o.nan, offsets[s], offsets[s + 1], NULL);
    if (st == FC_OK && !(seg = fc_malloc((count + 1) * sizeof *seg, "indicator segments"))) st = FC_ERR_MEMORY;
    if (st == FC_OK) {
        for (size_t s = 0; s < n_series; s++)
            j.n_seg += series_segments(&j, o.nan, offsets[s], offsets[s + 1], seg + j.n_seg);
        j.seg = seg;
        report_outputs(&j, offsets, n_series, no_output);   /* segments still in series order */
        qsort(seg, j.n_seg, sizeof *seg, by_length_desc);    /* long ones first: threads end together */
        if (o.backend && o.backend->ta_segments) st = o.backend->ta_segments(o.backend, &j);
        else st = run_on_cpu(&j, o.threads > 0 ? o.threads : omp_get_max_threads());
    }
    for (int i = 0; i < FC_TA_MAX_INPUTS; i++) free(copies[i]);
    free(seg);
    return st == FC_OK ? FC_OK : fc_error_wrap(st, "%s: ", f->desc.name);
}
