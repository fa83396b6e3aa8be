/* Frequency inference (see freq.h): the most common step over all series.
 * Counting uses a small open-addressing table keyed by the step, because a
 * dataset has millions of steps but usually a handful of distinct values. */
#include "data/freq.h"

#include <stdlib.h>
#include "core/error.h"
#include "data/calendar.h"

typedef struct {
    int64_t *keys;   /* step, 0 = empty slot (steps are always > 0) */
    size_t *counts;
    size_t cap, used;
} step_counter;

static size_t slot_of(int64_t key, size_t cap) {
    uint64_t h = (uint64_t)key * UINT64_C(0x9E3779B97F4A7C15);  /* Fibonacci hashing */
    return (size_t)(h >> 20) & (cap - 1);
}

static fc_status counter_grow(step_counter *c) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    int64_t *keys = fc_calloc(cap, sizeof *keys, "frequency inference");
    size_t *counts = fc_calloc(cap, sizeof *counts, "frequency inference");
    if (!keys || !counts) {
        free(keys);
        free(counts);
        return FC_ERR_MEMORY;
    }
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->keys[i]) continue;
        size_t j = slot_of(c->keys[i], cap);
        while (keys[j]) j = (j + 1) & (cap - 1);
        keys[j] = c->keys[i];
        counts[j] = c->counts[i];
    }
    free(c->keys);
    free(c->counts);
    c->keys = keys;
    c->counts = counts;
    c->cap = cap;
    return FC_OK;
}

static fc_status counter_add(step_counter *c, int64_t key) {
    if (2 * (c->used + 1) > c->cap) FC_TRY(counter_grow(c));
    size_t j = slot_of(key, c->cap);
    while (c->keys[j] && c->keys[j] != key) j = (j + 1) & (c->cap - 1);
    if (!c->keys[j]) c->keys[j] = key, c->used++;
    c->counts[j]++;
    return FC_OK;
}

/* The most frequent key; the smaller one on ties, so that every point of
 * the other step stays on the grid when one step divides the other. */
static int64_t counter_mode(const step_counter *c) {
    int64_t best = 0;
    size_t best_count = 0;
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->keys[i]) continue;
        if (c->counts[i] > best_count || (c->counts[i] == best_count && c->keys[i] < best))
            best = c->keys[i], best_count = c->counts[i];
    }
    return best;
}

/* 1 if every ds is a month start (month_end = 0) or month end (1) at midnight. */
static int all_on_month_anchor(const int64_t *ds, size_t n, int month_end) {
    for (size_t i = 0; i < n; i++) {
        fc_civil c = fc_civil_from_seconds(ds[i]);
        int day = month_end ? fc_days_in_month(c.year, c.month) : 1;
        if (c.second != 0 || c.day != day) return 0;
    }
    return n > 0;
}

static int64_t step_between(const fc_freq *f, int64_t a, int64_t b) {
    if (f->unit == FC_FREQ_FIXED) return b - a;
    fc_civil ca = fc_civil_from_seconds(a), cb = fc_civil_from_seconds(b);
    return fc_civil_month_index(&cb) - fc_civil_month_index(&ca);
}

fc_status fc_freq_infer(fc_ds_kind kind, const int64_t *ds, const size_t *offsets,
                        size_t n_series, fc_freq *out, int *found) {
    fc_freq f = {FC_FREQ_FIXED, 0, 0, ""};
    size_t n = offsets[n_series];
    if (kind != FC_DS_INDEX) {
        if (all_on_month_anchor(ds, n, 0)) f.unit = FC_FREQ_MONTHS;
        else if (all_on_month_anchor(ds, n, 1)) f.unit = FC_FREQ_MONTHS, f.month_end = 1;
    }
    step_counter counter = {0};
    fc_status st = FC_OK;
    for (size_t s = 0; s < n_series && st == FC_OK; s++)
        for (size_t i = offsets[s] + 1; i < offsets[s + 1] && st == FC_OK; i++)
            st = counter_add(&counter, step_between(&f, ds[i - 1], ds[i]));
    f.step = counter_mode(&counter);
    free(counter.keys);
    free(counter.counts);
    *found = st == FC_OK && f.step > 0;
    if (*found) {
        fc_freq_set_name(&f, kind);
        *out = f;
    }
    return st;
}
