/* Frequency grids inside the data layer: canonical names, inference and the
 * on-grid test used while filling gaps. The public part (fc_freq_parse,
 * fc_freq_advance) is declared in dataset.h. */
#ifndef FC_DATA_FREQ_H
#define FC_DATA_FREQ_H

#include <stddef.h>
#include <stdint.h>
#include "data/dataset.h"

/* The accepted aliases, for messages. */
#define FC_FREQ_ALIASES                                                        \
    "an integer step such as 1 or 2 (integer ds), or [n]D, [n]W, [n]h, [n]min, " \
    "[n]s, [n]B, [n]W-MON .. [n]W-SUN, [n]MS, [n]QS, [n]YS, [n]ME, [n]QE, [n]YE (also H, T, S, AS, M, Q, Y, A)"

/* What an anchor of f is, for messages: "a weekday (Monday to Friday)". */
const char *fc_freq_anchor_text(const fc_freq *f);

/* Room for any canonical alias: a 19-digit count and a unit ("min"). */
#define FC_FREQ_NAME_MAX 32

/* The canonical alias of (unit, step, month_end) for ds of `kind`: "1",
 * "D", "2h", "30min", "W", "MS", "QS", "YS", "ME", "6MS",
 * "1000000000000000" -- into buf (FC_FREQ_NAME_MAX always suffices). */
void fc_freq_format(const fc_freq *f, fc_ds_kind kind, char *buf, size_t cap);

/* Fills f->name with fc_freq_format's alias when it fits, else leaves it
 * empty (never a cut, and so different, alias): code that writes or shows
 * a frequency calls fc_freq_format. */
void fc_freq_set_name(fc_freq *f, fc_ds_kind kind);

/* ds advanced by k steps of f into *out: 1, or 0 when the result would
 * overflow int64 or, for dates, leave the years 0000..9999 that a ds text
 * holds -- a future ds that the loader could not read back. */
int fc_freq_advance_checked(const fc_freq *f, fc_ds_kind kind, int64_t ds, int64_t k, int64_t *out);

/* FC_OK if the next h ds of every series of d (its last ds advanced 1..h
 * steps of f) can be written and read back; else FC_ERR_INVALID naming the
 * series, its last ds, the step and the limit passed. For predict, before
 * it forecasts. */
fc_status fc_freq_check_future(const fc_dataset *d, const fc_freq *f, size_t h);

/* 1 if ds can start a grid of f: always for FIXED; the first (or, with
 * month_end, the last) day of a month for MONTHS; a weekday for BDAYS. */
int fc_freq_is_anchor(const fc_freq *f, int64_t ds);

/* 1 if b lies `*steps` >= 1 steps of f after a (b > a); 0 if b is off the
 * grid that a starts. */
int fc_freq_steps_between(const fc_freq *f, int64_t a, int64_t b, int64_t *steps);

/* The points of the grid of f that a starts, from a to b (a <= b) both
 * included, into *points: a series' length after gap filling, computed
 * from its first and last ds alone, before anything is allocated for it.
 * 1, or 0 when b is off that grid. A count past SIZE_MAX is kept at
 * SIZE_MAX. */
int fc_freq_grid_points(const fc_freq *f, int64_t a, int64_t b, size_t *points);

/* Frequency inference fed point by point (the streaming loader holds no
 * column of ds): every point through fc_freq_counter_point, every pair of
 * consecutive points of a series (prev < ds) through fc_freq_counter_step,
 * then fc_freq_counter_result gives the most common step over all series:
 * MONTHS when every date is a month start (or every one a month end) at
 * midnight; ties go to the smaller step, so that every point of the other
 * step stays on the grid when one step divides the other. */
typedef struct {
    int64_t *keys;   /* step, 0 = empty slot (steps are always > 0) */
    size_t *counts;
    size_t cap, used;
} fc_step_counter;

typedef struct {
    fc_ds_kind kind;
    size_t points;
    int month_start, month_end;   /* every point so far is a month start / end at midnight */
    fc_step_counter fixed;        /* steps in ds units */
    fc_step_counter months;       /* steps in calendar months, while a month grid is possible */
} fc_freq_counter;

void fc_freq_counter_init(fc_freq_counter *c, fc_ds_kind kind);
void fc_freq_counter_point(fc_freq_counter *c, int64_t ds);
fc_status fc_freq_counter_step(fc_freq_counter *c, int64_t prev, int64_t ds);
/* 1 and *out set when some series had two points; 0 otherwise. */
int fc_freq_counter_result(const fc_freq_counter *c, fc_freq *out);
void fc_freq_counter_free(fc_freq_counter *c);

#endif
