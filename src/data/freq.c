/* Frequency aliases, calendar stepping and grid membership (see freq.h).
 * Aliases follow pandas offset aliases; calendar months are stepped on the
 * civil calendar, so "MS" and "ME" grids follow month lengths and leap years
 * exactly instead of approximating a month by 30 days. */
#include "data/freq.h"

#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "data/bdays.h"
#include "data/calendar.h"

typedef struct {
    const char *alias;
    fc_freq_unit unit;
    int64_t step;   /* seconds for FIXED, months for MONTHS */
    int month_end;
} alias_entry;

static const alias_entry aliases[] = {
    {"D", FC_FREQ_FIXED, 86400, 0},   {"W", FC_FREQ_FIXED, 604800, 0},
    {"h", FC_FREQ_FIXED, 3600, 0},    {"H", FC_FREQ_FIXED, 3600, 0},
    {"min", FC_FREQ_FIXED, 60, 0},    {"T", FC_FREQ_FIXED, 60, 0},
    {"s", FC_FREQ_FIXED, 1, 0},       {"S", FC_FREQ_FIXED, 1, 0},
    {"MS", FC_FREQ_MONTHS, 1, 0},     {"QS", FC_FREQ_MONTHS, 3, 0},
    {"YS", FC_FREQ_MONTHS, 12, 0},    {"AS", FC_FREQ_MONTHS, 12, 0},
    {"ME", FC_FREQ_MONTHS, 1, 1},     {"M", FC_FREQ_MONTHS, 1, 1},
    {"QE", FC_FREQ_MONTHS, 3, 1},     {"Q", FC_FREQ_MONTHS, 3, 1},
    {"YE", FC_FREQ_MONTHS, 12, 1},    {"Y", FC_FREQ_MONTHS, 12, 1},
    {"A", FC_FREQ_MONTHS, 12, 1},     {"B", FC_FREQ_BDAYS, 1, 0},
};

/* pandas' anchored weeks, W-MON .. W-SUN: weekday 1 .. 7. */
static const char *const WEEKDAYS[7] = {"MON", "TUE", "WED", "THU", "FRI", "SAT", "SUN"};
static const char *const WEEKDAY_NAMES[7] = {"a Monday", "a Tuesday", "a Wednesday", "a Thursday", "a Friday",
                                             "a Saturday", "a Sunday"};

/* "W-SUN" (any count before it is split off already): its weekday, else 0. */
static int anchored_week(const char *suffix) {
    if (strncmp(suffix, "W-", 2) != 0) return 0;
    for (int d = 0; d < 7; d++)
        if (!strcmp(suffix + 2, WEEKDAYS[d])) return d + 1;
    return 0;
}

/* The weekday of ds (seconds since 1970-01-01, a Thursday): 1 Monday .. 7 Sunday. */
static int weekday_of(int64_t ds) {
    int64_t days = ds / 86400 - (ds % 86400 < 0);
    int64_t r = (days + 3) % 7;
    return (int)(r < 0 ? r + 7 : r) + 1;
}

/* Largest unit that divides the step, so 3600 s is "h" and 5400 s "90min". */
static void name_with_unit(const fc_freq *f, const char *const *units, const int64_t *sizes, int n,
                           char *buf, size_t cap) {
    for (int i = 0; i < n; i++) {
        if (f->step % sizes[i] != 0) continue;
        int64_t count = f->step / sizes[i];
        if (count == 1) snprintf(buf, cap, "%s", units[i]);
        else snprintf(buf, cap, "%lld%s", (long long)count, units[i]);
        return;
    }
}

void fc_freq_format(const fc_freq *f, fc_ds_kind kind, char *buf, size_t cap) {
    static const char *const second_units[] = {"W", "D", "h", "min", "s"};
    static const int64_t second_sizes[] = {604800, 86400, 3600, 60, 1};
    static const char *const start_units[] = {"YS", "QS", "MS"};
    static const char *const end_units[] = {"YE", "QE", "ME"};
    static const int64_t month_sizes[] = {12, 3, 1};
    static const char *const bday_units[] = {"B"};
    static const int64_t bday_sizes[] = {1};
    if (cap) *buf = '\0';
    if (f->unit == FC_FREQ_BDAYS)
        name_with_unit(f, bday_units, bday_sizes, 1, buf, cap);
    else if (f->unit == FC_FREQ_MONTHS)
        name_with_unit(f, f->month_end ? end_units : start_units, month_sizes, 3, buf, cap);
    else if (kind == FC_DS_INDEX)
        snprintf(buf, cap, "%lld", (long long)f->step);
    else if (f->weekday >= 1 && f->weekday <= 7 && f->step % 604800 == 0) {
        long long weeks = (long long)(f->step / 604800);
        if (weeks == 1) snprintf(buf, cap, "W-%s", WEEKDAYS[f->weekday - 1]);
        else snprintf(buf, cap, "%lldW-%s", weeks, WEEKDAYS[f->weekday - 1]);
    } else
        name_with_unit(f, second_units, second_sizes, 5, buf, cap);
}

/* A name that does not fit fc_freq.name is left empty rather than cut: a
 * cut integer step ("1234567890123456" kept as "123456789012345") would be
 * another, valid, frequency, and a model saved with it would refuse its
 * own data. Writers format the name afresh with fc_freq_format. */
void fc_freq_set_name(fc_freq *f, fc_ds_kind kind) {
    char name[FC_FREQ_NAME_MAX];
    fc_freq_format(f, kind, name, sizeof name);
    if (strlen(name) < sizeof f->name) memcpy(f->name, name, strlen(name) + 1);
    else f->name[0] = '\0';
}

/* Splits "30min" into 30 and "min"; the count defaults to 1. Any count
 * up to INT64_MAX is taken (an integer ds may step by 10^15 or more). */
static int split_count(const char *text, int64_t *count, const char **suffix) {
    const char *p = text;
    int64_t n = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        if (__builtin_mul_overflow(n, 10, &n) || __builtin_add_overflow(n, *p - '0', &n)) return 0;
    if (digits && n == 0) return 0;
    *count = digits ? n : 1;
    *suffix = p;
    return 1;
}

static fc_status unknown_alias(const char *text, fc_ds_kind kind) {
    return fc_error(FC_ERR_INVALID, "unknown frequency '%.40s' for %s ds: expected %s", text,
                    kind == FC_DS_INDEX ? "integer-index" : "date", FC_FREQ_ALIASES);
}

fc_status fc_freq_parse(const char *text, fc_ds_kind kind, fc_freq *out) {
    int64_t count;
    const char *suffix;
    if (!text || !*text || !split_count(text, &count, &suffix)) return unknown_alias(text ? text : "", kind);
    fc_freq f = {FC_FREQ_FIXED, count, 0, "", anchored_week(suffix)};
    if (f.weekday) {   /* W-MON .. W-SUN: weeks on that day */
        if (kind == FC_DS_INDEX)
            return fc_error(FC_ERR_INVALID, "frequency '%s' needs dates, but ds is an integer index: use an "
                            "integer step such as 1", text);
        if (__builtin_mul_overflow(count, (int64_t)604800, &f.step))
            return fc_error(FC_ERR_INVALID, "frequency '%.40s' is too long a step", text);
    } else if (*suffix == '\0') {
        if (kind != FC_DS_INDEX)
            return fc_error(FC_ERR_INVALID,
                            "frequency '%s' is an integer step, but ds holds dates: use an alias "
                            "such as D, h, 30min or MS", text);
    } else {
        size_t i = 0, n = sizeof aliases / sizeof aliases[0];
        while (i < n && strcmp(aliases[i].alias, suffix) != 0) i++;
        if (i == n) return unknown_alias(text, kind);
        if (kind == FC_DS_INDEX)
            return fc_error(FC_ERR_INVALID,
                            "frequency '%s' needs dates, but ds is an integer index: use an "
                            "integer step such as 1", text);
        f.unit = aliases[i].unit;
        if (__builtin_mul_overflow(count, aliases[i].step, &f.step))
            return fc_error(FC_ERR_INVALID, "frequency '%.40s' is too long a step: it passes the "
                            "largest ds (%lld seconds)", text, (long long)INT64_MAX);
        f.month_end = aliases[i].month_end;
    }
    fc_freq_set_name(&f, kind);
    *out = f;
    return FC_OK;
}

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Month grids beyond a million years are refused before the calendar
 * arithmetic, whose seconds would overflow far later (ds text holds four
 * digits of year anyway). */
#define MONTHS_LIMIT ((int64_t)1000000 * 12)

/* ds advanced by k months-steps of f into *out; 0 past MONTHS_LIMIT. */
static int advance_months(const fc_freq *f, int64_t ds, int64_t k, int64_t *out) {
    fc_civil c = fc_civil_from_seconds(ds);
    int64_t month, delta;
    if (__builtin_mul_overflow(k, f->step, &delta) ||
        __builtin_add_overflow(fc_civil_month_index(&c), delta, &month) ||
        month > MONTHS_LIMIT || month < -MONTHS_LIMIT)
        return 0;
    c.year = floor_div(month, 12);
    c.month = (int)(month - c.year * 12) + 1;
    int last = fc_days_in_month(c.year, c.month);
    /* Month starts stay on day 1; other days are clamped to the month's
     * length, as pandas DateOffset(months=k) does. */
    c.day = f->month_end || c.day > last ? last : c.day;
    *out = fc_seconds_from_civil(&c);
    return 1;
}

/* ds advanced by k business-day steps of f; 0 from a weekend, which no
 * B grid holds (loading refuses it first). */
static int advance_bdays(const fc_freq *f, int64_t ds, int64_t k, int64_t *out) {
    if (fc_bday_is_weekend(ds)) return 0;
    int64_t second, delta, number = fc_bday_number(ds, &second);
    return !__builtin_mul_overflow(k, f->step, &delta) && !__builtin_add_overflow(number, delta, &number) &&
           fc_bday_seconds(number, second, out);
}

static int advance(const fc_freq *f, int64_t ds, int64_t k, int64_t *out) {
    if (f->unit == FC_FREQ_MONTHS) return advance_months(f, ds, k, out);
    if (f->unit == FC_FREQ_BDAYS) return advance_bdays(f, ds, k, out);
    int64_t delta;
    return !__builtin_mul_overflow(k, f->step, &delta) && !__builtin_add_overflow(ds, delta, out);
}

/* Callers pass steps that stay between two points of the data (gap
 * filling, the grid test); the result saturates rather than wrap if one
 * does not. Future ds go through fc_freq_advance_checked. */
int64_t fc_freq_advance(const fc_freq *f, int64_t ds, int64_t k) {
    int64_t out;
    if (advance(f, ds, k, &out)) return out;
    return k > 0 ? INT64_MAX : INT64_MIN;
}

/* The years a ds text holds: "YYYY-MM-DD" has four digits. */
static int in_date_range(int64_t ds) {
    fc_civil first = {.year = 0, .month = 1, .day = 1, .second = 0};
    fc_civil last = {.year = 9999, .month = 12, .day = 31, .second = FC_SECONDS_PER_DAY - 1};
    return ds >= fc_seconds_from_civil(&first) && ds <= fc_seconds_from_civil(&last);
}

int fc_freq_advance_checked(const fc_freq *f, fc_ds_kind kind, int64_t ds, int64_t k, int64_t *out) {
    if (!advance(f, ds, k, out)) return 0;
    return kind == FC_DS_INDEX || in_date_range(*out);
}

int fc_freq_is_anchor(const fc_freq *f, int64_t ds) {
    if (f->unit == FC_FREQ_FIXED) return !f->weekday || weekday_of(ds) == f->weekday;
    if (f->unit == FC_FREQ_BDAYS) return !fc_bday_is_weekend(ds);
    fc_civil c = fc_civil_from_seconds(ds);
    return f->month_end ? c.day == fc_days_in_month(c.year, c.month) : c.day == 1;
}

const char *fc_freq_anchor_text(const fc_freq *f) {
    if (f->unit == FC_FREQ_BDAYS) return "a weekday (Monday to Friday)";
    if (f->unit == FC_FREQ_MONTHS) return f->month_end ? "the last day of a month" : "the first day of a month";
    if (f->weekday >= 1 && f->weekday <= 7) return WEEKDAY_NAMES[f->weekday - 1];
    return "on the grid";
}

/* Both weekdays at the same time of day, a whole number of steps apart. */
static int bday_steps_between(const fc_freq *f, int64_t a, int64_t b, int64_t *steps) {
    if (fc_bday_is_weekend(a) || fc_bday_is_weekend(b)) return 0;
    int64_t second_a, second_b, days = fc_bday_number(b, &second_b) - fc_bday_number(a, &second_a);
    if (second_a != second_b || days % f->step != 0) return 0;
    *steps = days / f->step;
    return 1;
}

int fc_freq_steps_between(const fc_freq *f, int64_t a, int64_t b, int64_t *steps) {
    if (b <= a) return 0;
    if (f->unit == FC_FREQ_BDAYS) return bday_steps_between(f, a, b, steps);
    if (f->unit == FC_FREQ_FIXED) {
        /* b - a in unsigned arithmetic: it may pass INT64_MAX (a < 0 < b).
         * A count of steps beyond INT64_MAX is kept at INT64_MAX, which
         * gap filling refuses as too far. */
        uint64_t diff = (uint64_t)b - (uint64_t)a;
        if (diff % (uint64_t)f->step != 0) return 0;
        uint64_t n = diff / (uint64_t)f->step;
        *steps = n > INT64_MAX ? INT64_MAX : (int64_t)n;
        return 1;
    }
    fc_civil ca = fc_civil_from_seconds(a), cb = fc_civil_from_seconds(b);
    int64_t months = fc_civil_month_index(&cb) - fc_civil_month_index(&ca);
    if (months <= 0 || months % f->step != 0) return 0;
    *steps = months / f->step;
    return fc_freq_advance(f, a, *steps) == b;
}

int fc_freq_grid_points(const fc_freq *f, int64_t a, int64_t b, size_t *points) {
    int64_t steps = 0;
    if (b != a && !fc_freq_steps_between(f, a, b, &steps)) return 0;
    *points = (uint64_t)steps >= SIZE_MAX ? SIZE_MAX : (size_t)steps + 1;
    return 1;
}

/* Steps are positive, so the h-th future ds is the largest: checking it
 * checks them all. Reads one ds a series, handing a streamed dataset's
 * pages back as fc_dataset_release_every paces it. */
fc_status fc_freq_check_future(const fc_dataset *d, const fc_freq *f, size_t h) {
    size_t since = 0;
    fc_status st = FC_OK;
    for (size_t i = 0; st == FC_OK && h > 0 && i < d->n_series; i++) {
        if (fc_dataset_len(d, i) == 0) continue;
        int64_t last = d->ds[d->offsets[i + 1] - 1], out;
        if (h > INT64_MAX || !fc_freq_advance_checked(f, d->ds_kind, last, (int64_t)h, &out)) {
            char when[40], name[FC_FREQ_NAME_MAX];
            fc_ds_format(d->ds_kind, last, when, sizeof when);
            fc_freq_format(f, d->ds_kind, name, sizeof name);
            st = fc_error(FC_ERR_INVALID, "%s: series '%.64s' ends at %s: %zu steps of %s after it "
                          "pass the largest ds fcast can write and read back (%s): shift or "
                          "rescale ds, or use a shorter horizon", d->source ? d->source : "data",
                          d->ids[i], when, h, name,
                          d->ds_kind == FC_DS_INDEX ? "9223372036854775807" : "9999-12-31 23:59:59");
        }
        fc_dataset_release_every(d, &since, 1, FC_RELEASE_SERIES);
    }
    fc_dataset_release_pages(d);
    return st;
}
