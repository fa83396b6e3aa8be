/* Proleptic Gregorian calendar arithmetic on int64 seconds since
 * 1970-01-01T00:00:00, with no time zone.
 *
 * Written by hand (Howard Hinnant's days_from_civil / civil_from_days)
 * because mktime/timegm depend on the process time zone or are not in C11,
 * and the loader converts a million dates per second. */
#ifndef FC_DATA_CALENDAR_H
#define FC_DATA_CALENDAR_H

#include <stdint.h>

#define FC_SECONDS_PER_DAY 86400

typedef struct {
    int64_t year;
    int month;      /* 1..12 */
    int day;        /* 1..31 */
    int64_t second; /* seconds since midnight, 0..86399 */
} fc_civil;

/* Days since 1970-01-01 of year-month-day (month 1..12, day 1..31). */
int64_t fc_days_from_civil(int64_t year, int month, int day);

/* The inverse: the date of day `days` since 1970-01-01. */
void fc_civil_from_days(int64_t days, int64_t *year, int *month, int *day);

int fc_is_leap_year(int64_t year);
int fc_days_in_month(int64_t year, int month);

/* Splits seconds since the epoch into date and time of day (floor, so
 * instants before 1970 keep a time of day in 0..86399). */
fc_civil fc_civil_from_seconds(int64_t seconds);
int64_t fc_seconds_from_civil(const fc_civil *c);

/* Months since year 0 (year * 12 + month - 1): the unit of MONTHS grids. */
static inline int64_t fc_civil_month_index(const fc_civil *c) {
    return c->year * 12 + (c->month - 1);
}

#endif
