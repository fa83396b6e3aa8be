/* The batched indicator API (quant/indicators.h): series -> segments (per NaN
 * policy) -> groups of FC_IND_LANES segments of similar length, computed in
 * parallel over groups (OpenMP), every spec of a group before the next group
 * so each series is read from memory once for all specs; or, on a backend
 * with an indicator entry (a GPU), one segment per thread. */
#include "quant/indicators.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "backend/backend.h"
#include "core/error.h"
#include "quant/indicator_exec.h"

/* Segments (fc_ind_seg, indicator_exec.h) are stretches of one series that
 * start on a non-NaN value: under POISON the series from its first value on
 * (TA-Lib's Python wrapper skips leading NaNs); under RESTART each run
 * between NaNs. */

typedef struct {
    const fc_ind_plan *plans;
    size_t n_specs;
    const double *x;                /* (n_rows) NaN where missing */
    double *const *const *outs;     /* outs[j][k] (n_rows) */
    int streaming;
} run_ctx;

/* Steps below which a lane group is not worth its gathers. */
#define MIN_LANE_STEPS 64
/* Fewer rows than this are not worth a team of threads. */
#define PARALLEL_MIN_ROWS 65536
/* Outputs above this many bytes are written with streaming stores. */
#define STREAMING_BYTES ((size_t)64 << 20)

fc_ind_options fc_ind_options_default(void) {
    fc_ind_options o = {FC_NAN_POISON, 0, -1, NULL};
    return o;
}

static fc_status check_args(const fc_ind_spec *specs, size_t n_specs, const double *y,
                            const size_t *offsets, size_t n_series, double *const *const *outs) {
    if (!specs || !n_specs || !offsets || !outs || (n_series && !y))
        return fc_error(FC_ERR_INVALID, "fc_ind_compute: NULL argument");
    for (size_t s = 0; s < n_series; s++)
        if (offsets[s + 1] < offsets[s])
            return fc_error(FC_ERR_INVALID, "fc_ind_compute: offsets decrease at series %zu", s);
    for (size_t j = 0; j < n_specs; j++) {
        FC_TRY(fc_ind_spec_check(&specs[j]));
        for (int k = 0; k < fc_ind_n_outputs(&specs[j]); k++)
            if (!outs[j] || !outs[j][k])
                return fc_error(FC_ERR_INVALID, "fc_ind_compute: output %d of '%s' is NULL", k, specs[j].label);
    }
    return FC_OK;
}

/* y with NaN at masked points, or y itself when nothing is masked. */
static fc_status masked_values(const double *y, const uint8_t *mask, size_t n_rows, int threads,
                               const double **x, double **owned) {
    *x = y;
    *owned = NULL;
    if (!mask || memchr(mask, 0, n_rows) == NULL) return FC_OK;
    double *v = fc_malloc(n_rows * sizeof *v, "indicator input");
    if (!v) return FC_ERR_MEMORY;
#pragma omp parallel for schedule(static) num_threads(threads) if (n_rows >= PARALLEL_MIN_ROWS)
    for (size_t i = 0; i < n_rows; i++) v[i] = mask[i] ? y[i] : NAN;
    *x = *owned = v;
    return FC_OK;
}

static void write_nan_rows(const run_ctx *c, size_t from, size_t to) {
    for (size_t j = 0; j < c->n_specs; j++)
        for (int k = 0; k < c->plans[j].n_out; k++)
            for (size_t i = from; i < to; i++) c->outs[j][k][i] = NAN;
}

/* Segments of rows [a, b) (one series); when `seg` is NULL only counts them.
 * Rows outside every segment get NaN outputs (when seg is given). */
static size_t split_series(const run_ctx *c, fc_nan_policy nan, size_t s, size_t a, size_t b, fc_ind_seg *seg) {
    const double *x = c->x;
    size_t count = 0, i = a;
    while (i < b) {
        size_t first = i;
        while (i < b && isnan(x[i])) i++;
        if (seg && i > first) write_nan_rows(c, first, i);
        if (i == b) break;
        size_t begin = i;
        if (nan == FC_NAN_POISON) i = b;
        else
            while (i < b && !isnan(x[i])) i++;
        if (seg) seg[count] = (fc_ind_seg){s, begin, i - begin};
        count++;
    }
    return count;
}

static fc_status build_segments(const run_ctx *c, fc_nan_policy nan, const size_t *offsets, size_t n_series,
                                int threads, fc_ind_seg **out, size_t *n_out) {
    int par = offsets[n_series] - offsets[0] >= PARALLEL_MIN_ROWS;
    size_t *first = fc_malloc((n_series + 1) * sizeof *first, "segment counts");
    if (!first) return FC_ERR_MEMORY;
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (par)
    for (size_t s = 0; s < n_series; s++) first[s + 1] = split_series(c, nan, s, offsets[s], offsets[s + 1], NULL);
    first[0] = 0;
    for (size_t s = 0; s < n_series; s++) first[s + 1] += first[s];
    fc_ind_seg *seg = fc_malloc((first[n_series] + 1) * sizeof *seg, "segments");
    if (!seg) {
        free(first);
        return FC_ERR_MEMORY;
    }
#pragma omp parallel for schedule(dynamic, 16) num_threads(threads) if (par)
    for (size_t s = 0; s < n_series; s++) split_series(c, nan, s, offsets[s], offsets[s + 1], seg + first[s]);
    *out = seg;
    *n_out = first[n_series];
    free(first);
    return FC_OK;
}

/* Longest first, so that a group of lanes holds segments of similar length. */
static int by_length_desc(const void *pa, const void *pb) {
    const fc_ind_seg *a = pa, *b = pb;
    if (a->len != b->len) return a->len < b->len ? 1 : -1;
    return a->begin < b->begin ? -1 : a->begin > b->begin;
}

static void segment_outputs(const run_ctx *c, size_t j, const fc_ind_seg *s, double **o) {
    for (int k = 0; k < c->plans[j].n_out; k++) o[k] = c->outs[j][k] + s->begin;
}

/* One spec on segments g[0..count): in lanes when all are long enough. */
static void run_group(const run_ctx *c, size_t j, const fc_ind_seg *g, size_t count, uint8_t *produced) {
    const fc_ind_plan *p = &c->plans[j];
    int lanes_ok = count == FC_IND_LANES && !p->copy && p->kind != FC_IND_MOM && p->kind != FC_IND_ROC &&
                   g[count - 1].len > (size_t)p->lookback + MIN_LANE_STEPS;
    if (lanes_ok) {
        const double *x[FC_IND_LANES];
        long n[FC_IND_LANES];
        double *o[FC_IND_LANES][FC_IND_MAX_OUTPUTS];
        for (int l = 0; l < FC_IND_LANES; l++) {
            x[l] = c->x + g[l].begin;
            n[l] = (long)g[l].len;
            segment_outputs(c, j, &g[l], o[l]);
            produced[l * c->n_specs + j] = 1;
        }
        fc_ind_segments_lanes(p, x, n, o, c->streaming);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        double *o[FC_IND_MAX_OUTPUTS];
        segment_outputs(c, j, &g[i], o);
        produced[i * c->n_specs + j] = (uint8_t)fc_ind_segment(p, c->x + g[i].begin, (long)g[i].len, o);
    }
}

static void run_all(const run_ctx *c, const fc_ind_seg *seg, size_t n_seg, int threads, uint8_t *produced) {
    size_t n_groups = (n_seg + FC_IND_LANES - 1) / FC_IND_LANES;
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (n_groups > 1)
    for (size_t g = 0; g < n_groups; g++) {
        size_t first = g * FC_IND_LANES, count = n_seg - first < FC_IND_LANES ? n_seg - first : FC_IND_LANES;
        for (size_t j = 0; j < c->n_specs; j++)
            run_group(c, j, seg + first, count, produced + first * c->n_specs);
    }
}

/* no_output[j][s] = 1 unless some segment of series s produced spec j. */
static void report_short(const fc_ind_seg *seg, size_t n_seg, const uint8_t *produced, size_t n_specs,
                         size_t n_series, uint8_t *no_output) {
    if (!no_output) return;
    memset(no_output, 1, n_specs * n_series);
    for (size_t i = 0; i < n_seg; i++)
        for (size_t j = 0; j < n_specs; j++)
            if (produced[i * n_specs + j]) no_output[j * n_series + seg[i].series] = 0;
}

/* The segments on a backend with an indicator entry (a GPU): the same
 * bodies one segment per thread, the same outputs. A segment produces a
 * value when it is longer than the lookback, as fc_ind_segment says. */
static fc_status run_on_backend(const run_ctx *c, fc_backend *be, const size_t *offsets, size_t n_series,
                                const fc_ind_seg *seg, size_t n_seg, uint8_t *produced) {
    FC_TRY(be->indicator_segments(be, c->plans, c->n_specs, c->x, offsets[0], offsets[n_series] - offsets[0],
                                  seg, n_seg, c->outs));
    for (size_t i = 0; i < n_seg; i++)
        for (size_t j = 0; j < c->n_specs; j++)
            produced[i * c->n_specs + j] = seg[i].len > (size_t)c->plans[j].lookback;
    return FC_OK;
}

static fc_status compute_segments(run_ctx *c, const fc_ind_options *o, const size_t *offsets,
                                  size_t n_series, uint8_t *no_output) {
    fc_ind_seg *seg = NULL;
    size_t n_seg = 0;
    int threads = o->threads > 0 ? o->threads : omp_get_max_threads();
    FC_TRY(build_segments(c, o->nan, offsets, n_series, threads, &seg, &n_seg));
    uint8_t *produced = fc_calloc(n_seg * c->n_specs + 1, 1, "indicator flags");
    if (!produced) {
        free(seg);
        return FC_ERR_MEMORY;
    }
    qsort(seg, n_seg, sizeof *seg, by_length_desc);   /* a GPU warp, too, likes segments of one length */
    fc_status st = FC_OK;
    if (o->backend && o->backend->indicator_segments)
        st = run_on_backend(c, o->backend, offsets, n_series, seg, n_seg, produced);
    else
        run_all(c, seg, n_seg, threads, produced);
    if (st == FC_OK) report_short(seg, n_seg, produced, c->n_specs, n_series, no_output);
    free(produced);
    free(seg);
    return st;
}

fc_status fc_ind_compute_many(const fc_ind_spec *specs, size_t n_specs, const double *y, const uint8_t *mask,
                              const size_t *offsets, size_t n_series, const fc_ind_options *opt,
                              double *const *const *outs, uint8_t *no_output) {
    FC_TRY(check_args(specs, n_specs, y, offsets, n_series, outs));
    fc_ind_options o = opt ? *opt : fc_ind_options_default();
    size_t n_rows = offsets[n_series] - offsets[0];
    fc_ind_plan *plans = fc_malloc(n_specs * sizeof *plans, "indicator plans");
    if (!plans) return FC_ERR_MEMORY;
    size_t n_out_total = 0;
    for (size_t j = 0; j < n_specs; j++) {
        fc_ind_plan_make(&specs[j], &plans[j]);
        n_out_total += (size_t)plans[j].n_out;
    }
    run_ctx c = {plans, n_specs, y, outs, o.streaming};
    if (o.streaming < 0) c.streaming = n_rows * n_out_total * sizeof(double) > STREAMING_BYTES;
    double *owned = NULL;
    fc_status st = masked_values(y, mask, offsets[n_series], o.threads > 0 ? o.threads : omp_get_max_threads(),
                                 &c.x, &owned);
    if (st == FC_OK) st = compute_segments(&c, &o, offsets, n_series, no_output);
    free(owned);
    free(plans);
    return st;
}

fc_status fc_ind_compute(const fc_ind_spec *spec, const double *y, const uint8_t *mask, const size_t *offsets,
                         size_t n_series, const fc_ind_options *opt, double *const *out, uint8_t *no_output) {
    double *const *outs[1] = {out};
    return fc_ind_compute_many(spec, 1, y, mask, offsets, n_series, opt, outs, no_output);
}
