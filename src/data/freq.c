/* Frequency aliases, calendar stepping and grid membership (see freq.h).
 * Aliases follow pandas offset aliases; calendar months are stepped on the
 * civil calendar, so "MS" and "ME" grids follow month lengths and leap years
 * exactly instead of approximating a month by 30 days. */
#include "data/freq.h"

#include <stdio.h>
#include <string.h>
#include "core/error.h"
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
    {"A", FC_FREQ_MONTHS, 12, 1},
};

/* Largest unit that divides the step, so 3600 s is "h" and 5400 s "90min". */
static void name_with_unit(fc_freq *f, const char *const *units, const int64_t *sizes, int n) {
    for (int i = 0; i < n; i++) {
        if (f->step % sizes[i] != 0) continue;
        int64_t count = f->step / sizes[i];
        if (count == 1) snprintf(f->name, sizeof f->name, "%s", units[i]);
        else snprintf(f->name, sizeof f->name, "%lld%s", (long long)count, units[i]);
        return;
    }
}

void fc_freq_set_name(fc_freq *f, fc_ds_kind kind) {
    static const char *const second_units[] = {"W", "D", "h", "min", "s"};
    static const int64_t second_sizes[] = {604800, 86400, 3600, 60, 1};
    static const char *const start_units[] = {"YS", "QS", "MS"};
    static const char *const end_units[] = {"YE", "QE", "ME"};
    static const int64_t month_sizes[] = {12, 3, 1};
    if (f->unit == FC_FREQ_MONTHS)
        name_with_unit(f, f->month_end ? end_units : start_units, month_sizes, 3);
    else if (kind == FC_DS_INDEX)
        snprintf(f->name, sizeof f->name, "%lld", (long long)f->step);
    else
        name_with_unit(f, second_units, second_sizes, 5);
}

/* Splits "30min" into 30 and "min"; the count defaults to 1. */
static int split_count(const char *text, int64_t *count, const char **suffix) {
    const char *p = text;
    int64_t n = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        if (digits < 12) n = n * 10 + (*p - '0');
    if (digits > 12 || (digits && n == 0)) return 0;
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
    fc_freq f = {FC_FREQ_FIXED, count, 0, ""};
    if (*suffix == '\0') {
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
        f.step = count * aliases[i].step;
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

int64_t fc_freq_advance(const fc_freq *f, int64_t ds, int64_t k) {
    if (f->unit == FC_FREQ_FIXED) return ds + k * f->step;
    fc_civil c = fc_civil_from_seconds(ds);
    int64_t month = fc_civil_month_index(&c) + k * f->step;
    c.year = floor_div(month, 12);
    c.month = (int)(month - c.year * 12) + 1;
    int last = fc_days_in_month(c.year, c.month);
    /* Month starts stay on day 1; other days are clamped to the month's
     * length, as pandas DateOffset(months=k) does. */
    c.day = f->month_end || c.day > last ? last : c.day;
    return fc_seconds_from_civil(&c);
}

int fc_freq_is_anchor(const fc_freq *f, int64_t ds) {
    if (f->unit == FC_FREQ_FIXED) return 1;
    fc_civil c = fc_civil_from_seconds(ds);
    return f->month_end ? c.day == fc_days_in_month(c.year, c.month) : c.day == 1;
}

int fc_freq_steps_between(const fc_freq *f, int64_t a, int64_t b, int64_t *steps) {
    if (b <= a) return 0;
    if (f->unit == FC_FREQ_FIXED) {
        if ((b - a) % f->step != 0) return 0;
        *steps = (b - a) / f->step;
        return 1;
    }
    fc_civil ca = fc_civil_from_seconds(a), cb = fc_civil_from_seconds(b);
    int64_t months = fc_civil_month_index(&cb) - fc_civil_month_index(&ca);
    if (months <= 0 || months % f->step != 0) return 0;
    *steps = months / f->step;
    return fc_freq_advance(f, a, *steps) == b;
}
