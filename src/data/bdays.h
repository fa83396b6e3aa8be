/* Business days (pandas' B offset): Monday to Friday, numbered so that
 * stepping k business days is adding k to a number. A weekend is no day
 * of the grid at all, so Friday + 1 is Monday and a series of weekdays
 * has no gap over a weekend. No holidays (pandas' B has none either). */
#ifndef FC_DATA_BDAYS_H
#define FC_DATA_BDAYS_H

#include <stdint.h>

/* 1 if ds (seconds since 1970-01-01) falls on a Saturday or Sunday. */
int fc_bday_is_weekend(int64_t ds);

/* The business-day number of weekday ds (Monday 1970-01-05 is 0) and its
 * time of day in seconds. ds must not be a weekend. */
int64_t fc_bday_number(int64_t ds, int64_t *second_of_day);

/* The inverse: seconds of business day `number` at `second_of_day`; 0 and
 * nothing written when that passes int64. */
int fc_bday_seconds(int64_t number, int64_t second_of_day, int64_t *out);

#endif
