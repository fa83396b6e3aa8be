/* Business-day numbering (see bdays.h): a week holds five numbers, and
 * days are counted from Monday 1970-01-05 (the epoch is a Thursday), so
 * weekday w (0 = Monday) of week n is number 5n + w. */
#include "data/bdays.h"

#include <stddef.h>
#include "data/calendar.h"

#define EPOCH_TO_MONDAY 3   /* 1970-01-01 + 3 days would be counted from Monday 1969-12-29 */

static int64_t floor_div(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

/* Days since Monday 1969-12-29, and the time of day. */
static int64_t days_from_monday(int64_t ds, int64_t *second_of_day) {
    int64_t day = floor_div(ds, FC_SECONDS_PER_DAY);
    if (second_of_day) *second_of_day = ds - day * FC_SECONDS_PER_DAY;
    return day + EPOCH_TO_MONDAY;
}

int fc_bday_is_weekend(int64_t ds) {
    int64_t d = days_from_monday(ds, NULL);
    return d - floor_div(d, 7) * 7 >= 5;
}

int64_t fc_bday_number(int64_t ds, int64_t *second_of_day) {
    int64_t d = days_from_monday(ds, second_of_day), week = floor_div(d, 7);
    return week * 5 + (d - week * 7) - 5;   /* week 0 starts on 1969-12-29, number -5 */
}

/* Numbers past this are days beyond int64 seconds anyway; refusing them
 * first keeps the week arithmetic below from overflowing. */
#define NUMBER_LIMIT (INT64_MAX / FC_SECONDS_PER_DAY)

int fc_bday_seconds(int64_t number, int64_t second_of_day, int64_t *out) {
    if (number > NUMBER_LIMIT || number < -NUMBER_LIMIT) return 0;
    int64_t n = number + 5, week = floor_div(n, 5), day, seconds;
    day = week * 7 + (n - week * 5) - EPOCH_TO_MONDAY;
    if (__builtin_mul_overflow(day, (int64_t)FC_SECONDS_PER_DAY, &seconds)) return 0;
    return !__builtin_add_overflow(seconds, second_of_day, out);
}
