/* Frequency inference (see freq.h): the most common step over all series.
 * Counting uses a small open-addressing table keyed by the step, because a
 * dataset has millions of steps but usually a handful of distinct values. */
#include "data/freq.h"

#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "data/calendar.h"

static size_t slot_of(int64_t key, size_t cap) {
    uint64_t h = (uint64_t)key * UINT64_C(0x9E3779B97F4A7C15);  /* Fibonacci hashing */
    return (size_t)(h >> 20) & (cap - 1);
}

static fc_status counter_grow(fc_step_counter *c) {
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

static fc_status counter_add(fc_step_counter *c, int64_t key) {
    if (2 * (c->used + 1) > c->cap) FC_TRY(counter_grow(c));
    size_t j = slot_of(key, c->cap);
    while (c->keys[j] && c->keys[j] != key) j = (j + 1) & (c->cap - 1);
    if (!c->keys[j]) c->keys[j] = key, c->used++;
    c->counts[j]++;
    return FC_OK;
}

/* The most frequent key; the smaller one on ties, so that every point of
 * the other step stays on the grid when one step divides the other. */
static int64_t counter_mode(const fc_step_counter *c) {
    int64_t best = 0;
    size_t best_count = 0;
    for (size_t i = 0; i < c->cap; i++) {
        if (!c->keys[i]) continue;
        if (c->counts[i] > best_count || (c->counts[i] == best_count && c->keys[i] < best))
            best = c->keys[i], best_count = c->counts[i];
    }
    return best;
}

/* Month anchors are checked point by point (a ds stays a candidate for
 * MS while every point is a month start at midnight, for ME while every
 * one is a month end), and steps are counted both in ds units and in
 * months while a month grid is still possible: the choice is made once
 * every point has been seen, so a streaming loader can feed the points
 * without holding them. */
static int on_month_anchor(int64_t ds, int month_end) {
    fc_civil c = fc_civil_from_seconds(ds);
    int day = month_end ? fc_days_in_month(c.year, c.month) : 1;
    return c.second == 0 && c.day == day;
}

static int64_t months_between(int64_t a, int64_t b) {
    fc_civil ca = fc_civil_from_seconds(a), cb = fc_civil_from_seconds(b);
    return fc_civil_month_index(&cb) - fc_civil_month_index(&ca);
}

void fc_freq_counter_init(fc_freq_counter *c, fc_ds_kind kind) {
    memset(c, 0, sizeof *c);
    c->kind = kind;
    c->month_start = c->month_end = kind != FC_DS_INDEX;
}

void fc_freq_counter_point(fc_freq_counter *c, int64_t ds) {
    c->points++;
    if (c->month_start && !on_month_anchor(ds, 0)) c->month_start = 0;
    if (c->month_end && !on_month_anchor(ds, 1)) c->month_end = 0;
}

fc_status fc_freq_counter_step(fc_freq_counter *c, int64_t prev, int64_t ds) {
    /* A step past INT64_MAX (prev < 0 < ds) is no grid's step: not counted,
     * so it never becomes the frequency; the grid test then refuses it. */
    int64_t step;
    if (!__builtin_sub_overflow(ds, prev, &step)) FC_TRY(counter_add(&c->fixed, step));
    if (c->month_start || c->month_end) FC_TRY(counter_add(&c->months, months_between(prev, ds)));
    return FC_OK;
}

int fc_freq_counter_result(const fc_freq_counter *c, fc_freq *out) {
    fc_freq f = {FC_FREQ_FIXED, 0, 0, "", 0};
    int months = c->points > 0 && (c->month_start || c->month_end);
    if (months) f.unit = FC_FREQ_MONTHS, f.month_end = !c->month_start;
    f.step = counter_mode(months ? &c->months : &c->fixed);
    if (f.step <= 0) return 0;
    fc_freq_set_name(&f, c->kind);
    *out = f;
    return 1;
}

void fc_freq_counter_free(fc_freq_counter *c) {
    for (int i = 0; i < 2; i++) {
        fc_step_counter *k = i ? &c->months : &c->fixed;
        free(k->keys);
        free(k->counts);
    }
    memset(c, 0, sizeof *c);
}
