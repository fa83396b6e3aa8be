/* One TA-Lib function over the segments of many series: the job the CPU
 * driver (quant/ta_compute.c) runs segment by segment on its threads and a
 * GPU backend's ta_segments entry (backend/cuda/cuda_ta.cu) runs one
 * segment per GPU thread, through the same fc_ta_segment_run. */
#ifndef FC_KERNELS_TA_SEGMENT_H
#define FC_KERNELS_TA_SEGMENT_H

#include <stddef.h>
#include "kernels/ta/ta_all.h"

/* A run of bars [begin, begin + len) (absolute rows) the function sees as
 * one series: a series after its leading missing bars, or (RESTART) a run
 * between missing bars. */
typedef struct fc_ta_seg {
    size_t begin, len;
    size_t base;   /* the first row of its series: index outputs count from there */
} fc_ta_seg;

typedef struct fc_ta_job {
    int id;                                /* fc_ta_id */
    int work;                              /* scratch doubles per bar */
    int n_inputs, n_outputs, lookback;
    int unstable;                          /* TA-Lib's unstable period: the first values dropped */
    unsigned index_outputs;                /* bit k: output k is a bar index (MAXINDEX, ...) */
    double par[FC_TA_MAX_PARAMS];
    const double *in[FC_TA_MAX_INPUTS];    /* host rows; each holds row0 + n_rows values at least */
    double *out[FC_TA_MAX_OUTPUTS];        /* host rows, as in */
    size_t row0, n_rows;                   /* the span of rows the segments lie in */
    const fc_ta_seg *seg;
    size_t n_seg;
} fc_ta_job;

/* Segment s of the job, over in/out arrays indexed by absolute row (the
 * host's, or a device's copy shifted so), with work holding job->work *
 * s->len doubles. Segments no longer than the lookback are left alone
 * (their rows stay NaN). Returns whether it produced values. */
FC_HD int fc_ta_segment_run(const fc_ta_job *job, const double *const *in, double *const *out,
                            const fc_ta_seg *s, double *work) {
    if (s->len <= (size_t)(job->lookback + job->unstable)) return 0;
    fc_ta_call c;
    c.n = (int)s->len;
    c.par = job->par;
    c.work = work;
    for (int i = 0; i < FC_TA_MAX_INPUTS; i++) c.in[i] = i < job->n_inputs ? in[i] + s->begin : NULL;
    for (int k = 0; k < FC_TA_MAX_OUTPUTS; k++) c.out[k] = k < job->n_outputs ? out[k] + s->begin : NULL;
    if (!fc_ta_dispatch(job->id, &c)) return 0;
    /* TA-Lib's unstable period: the values the warm-up leaves rough, dropped
     * (its outputs then start that many bars later; the rest are the same). */
    for (int k = 0; k < job->n_outputs; k++) fc_ta_nan(c.out[k], job->lookback, job->lookback + job->unstable);
    /* A body counts bars from the segment's start; TA-Lib's Python package
     * from the array's, leading NaNs included: the series' start. */
    double shift = (double)(s->begin - s->base);
    for (int k = 0; k < job->n_outputs; k++)
        if ((job->index_outputs >> k) & 1u)
            for (int t = 0; t < c.n; t++) c.out[k][t] += shift;   /* NaN stays NaN */
    return 1;
}

#endif
