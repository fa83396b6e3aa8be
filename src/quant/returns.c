/* Series alignment and simple returns (see returns.h). */
#include "quant/returns.h"

#include <math.h>
#include <string.h>
#include "core/error.h"

void fc_panel_free(fc_panel *p) {
    free(p->values);
    free(p->ds);
    memset(p, 0, sizeof *p);
}

void fc_panel_column(const fc_panel *p, size_t s, double *out) {
    for (size_t t = 0; t < p->n_rows; t++) out[t] = p->values[t * p->n_series + s];
}

/* Advances series s's cursor to the first observed row with ds >= target;
 * returns 0 when the series is exhausted. */
static int seek(const fc_dataset *d, size_t s, size_t *cur, int64_t target) {
    size_t end = d->offsets[s + 1];
    while (*cur < end && (d->ds[*cur] < target || !d->mask[*cur])) (*cur)++;
    return *cur < end;
}

/* A k-way merge over the series' sorted ds: move every cursor to the largest
 * ds among them; when all agree the row is common. Returns the rows found
 * (and writes them when `values` is given). */
static size_t merge(const fc_dataset *d, size_t *cur, double *values, int64_t *ds) {
    size_t N = d->n_series, rows = 0;
    for (size_t s = 0; s < N; s++) cur[s] = d->offsets[s];
    int64_t target = INT64_MIN;
    for (;;) {
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t s = 0; s < N; s++) {
            if (!seek(d, s, &cur[s], target)) return rows;
            int64_t v = d->ds[cur[s]];
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        if (lo != hi) {
            target = hi;
            continue;
        }
        if (values) {
            for (size_t s = 0; s < N; s++) values[rows * N + s] = d->y[cur[s]];
            ds[rows] = hi;
        }
        rows++;
        target = hi + 1; /* ds are integers (index or seconds) */
    }
}

fc_status fc_panel_align(const fc_dataset *d, size_t min_rows, fc_panel *out) {
    memset(out, 0, sizeof *out);
    if (d->n_series == 0) return fc_error(FC_ERR_INVALID, "%s: no series", d->source);
    size_t *cur = fc_malloc(d->n_series * sizeof *cur, "alignment cursors");
    if (!cur) return FC_ERR_MEMORY;
    size_t rows = merge(d, cur, NULL, NULL);
    if (rows < min_rows) {
        free(cur);
        return fc_error(FC_ERR_INVALID,
                        "%s: only %zu ds values are observed in all %zu series (need %zu); series are "
                        "aligned on ds (inner join): check that they share dates",
                        d->source, rows, d->n_series, min_rows);
    }
    out->values = fc_malloc(rows * d->n_series * sizeof(double), "aligned values");
    out->ds = fc_malloc(rows * sizeof(int64_t), "aligned ds");
    if (!out->values || !out->ds) {
        free(cur);
        fc_panel_free(out);
        return FC_ERR_MEMORY;
    }
    merge(d, cur, out->values, out->ds);
    free(cur);
    out->n_rows = rows;
    out->n_series = d->n_series;
    out->source = d;
    return FC_OK;
}

static fc_status bad_value(const fc_panel *p, size_t t, size_t s, const char *what) {
    char when[64];
    fc_ds_format(p->source->ds_kind, p->ds[t], when, sizeof when);
    return fc_error(FC_ERR_INVALID, "%s: series %s at ds %s: %s %.17g", p->source->source,
                    p->source->ids[s], when, what, p->values[t * p->n_series + s]);
}

fc_status fc_panel_to_returns(fc_panel *p) {
    const size_t T = p->n_rows, N = p->n_series;
    for (size_t t = 0; t < T; t++)
        for (size_t s = 0; s < N; s++)
            if (!(p->values[t * N + s] > 0.0) || !isfinite(p->values[t * N + s]))
                return bad_value(p, t, s,
                                 "returns need positive prices (pass --returns if the file holds returns); got");
    if (T < 2) return fc_error(FC_ERR_INVALID, "%s: returns need at least 2 prices", p->source->source);
    for (size_t t = 0; t + 1 < T; t++) /* in place, forward: row t+1 is read before row t+1 is written */
        for (size_t s = 0; s < N; s++)
            p->values[t * N + s] = p->values[(t + 1) * N + s] / p->values[t * N + s] - 1.0;
    memmove(p->ds, p->ds + 1, (T - 1) * sizeof(int64_t));
    p->n_rows = T - 1;
    return FC_OK;
}

fc_status fc_panel_check_returns(const fc_panel *p) {
    for (size_t t = 0; t < p->n_rows; t++)
        for (size_t s = 0; s < p->n_series; s++) {
            double r = p->values[t * p->n_series + s];
            if (!isfinite(r) || r <= -1.0) return bad_value(p, t, s, "a return must be finite and > -1, got");
        }
    return FC_OK;
}
