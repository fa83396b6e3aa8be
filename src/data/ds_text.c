/* Parsing and formatting of ds values (see ds_text.h and dataset.h). The
 * formats are fixed-width, so they are read digit by digit rather than with
 * sscanf, which would accept "2000-1-5" or " +3" and is slow. */
#include "data/ds_text.h"

#include <stdio.h>
#include "data/calendar.h"

/* Reads exactly `width` digits at p; -1 if any is not a digit. */
static int64_t fixed_digits(const char *p, int width) {
    int64_t v = 0;
    for (int i = 0; i < width; i++) {
        if ((unsigned)(p[i] - '0') > 9) return -1;
        v = v * 10 + (p[i] - '0');
    }
    return v;
}

/* Any int64, "-9223372036854775808" to "9223372036854775807": a future ds
 * that predict writes must read back. Digits are summed in uint64 (19 of
 * them cannot overflow it), then checked against the signed range. */
static int parse_index(const char *p, size_t n, int64_t *value) {
    int negative = 0;
    if (n && (*p == '+' || *p == '-')) negative = *p == '-', p++, n--;
    if (n == 0 || n > 19) return 0;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if ((unsigned)(p[i] - '0') > 9) return 0;
        v = v * 10 + (uint64_t)(p[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX + negative) return 0;
    *value = negative ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

static int parse_date(const char *p, int64_t *days) {
    if (p[4] != '-' || p[7] != '-') return 0;
    int64_t year = fixed_digits(p, 4), month = fixed_digits(p + 5, 2), day = fixed_digits(p + 8, 2);
    if (year < 0 || month < 1 || month > 12 || day < 1) return 0;
    if (day > fc_days_in_month(year, (int)month)) return 0;
    *days = fc_days_from_civil(year, (int)month, (int)day);
    return 1;
}

/* "HH:MM" or "HH:MM:SS" (n = 5 or 8) to seconds since midnight. */
static int parse_time(const char *p, size_t n, int64_t *seconds) {
    if (n != 5 && n != 8) return 0;
    if (p[2] != ':' || (n == 8 && p[5] != ':')) return 0;
    int64_t h = fixed_digits(p, 2), m = fixed_digits(p + 3, 2);
    int64_t s = n == 8 ? fixed_digits(p + 6, 2) : 0;
    if (h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59) return 0;
    *seconds = h * 3600 + m * 60 + s;
    return 1;
}

int fc_ds_parse(const char *text, size_t len, fc_ds_kind *kind, int64_t *value) {
    const char *p = text, *end = text + len;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
    size_t n = (size_t)(end - p);
    if (n < 10 || p[4] != '-') {
        *kind = FC_DS_INDEX;
        return parse_index(p, n, value);
    }
    int64_t days, seconds = 0;
    if (!parse_date(p, &days)) return 0;
    if (n == 10) {
        *kind = FC_DS_DATE;
    } else {
        if (p[10] != ' ' && p[10] != 'T') return 0;
        if (!parse_time(p + 11, n - 11, &seconds)) return 0;
        *kind = FC_DS_DATETIME;
    }
    *value = days * FC_SECONDS_PER_DAY + seconds;
    return 1;
}

const char *fc_ds_kind_name(fc_ds_kind kind) {
    switch (kind) {
    case FC_DS_INDEX: return "integer index";
    case FC_DS_DATE: return "date";
    case FC_DS_DATETIME: return "datetime";
    }
    return "?";
}

void fc_ds_format(fc_ds_kind kind, int64_t ds, char *buf, size_t cap) {
    if (kind == FC_DS_INDEX) {
        snprintf(buf, cap, "%lld", (long long)ds);
        return;
    }
    fc_civil c = fc_civil_from_seconds(ds);
    if (kind == FC_DS_DATE) {
        snprintf(buf, cap, "%04lld-%02d-%02d", (long long)c.year, c.month, c.day);
        return;
    }
    int h = (int)(c.second / 3600), m = (int)(c.second / 60 % 60), s = (int)(c.second % 60);
    snprintf(buf, cap, "%04lld-%02d-%02d %02d:%02d:%02d", (long long)c.year, c.month, c.day, h,
             m, s);
}
