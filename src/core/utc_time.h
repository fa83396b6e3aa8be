/* Wall-clock time as logs write it: ISO 8601 in UTC with milliseconds
 * ("2024-05-01T12:34:56.789Z"), the form common access logs and log
 * collectors parse without a format given. For when something happened;
 * durations use the monotonic clock (core/clock.h). */
#ifndef FC_CORE_UTC_TIME_H
#define FC_CORE_UTC_TIME_H

/* "YYYY-MM-DDTHH:MM:SS.mmmZ" and its NUL. */
#define FC_UTC_TIMESTAMP_LEN 25

/* The current time into buf. */
void fc_utc_timestamp(char buf[FC_UTC_TIMESTAMP_LEN]);

#endif
