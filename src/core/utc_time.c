/* ISO 8601 UTC timestamps (see utc_time.h). */
#include <stdio.h>
#include <time.h>

#include "core/utc_time.h"

/* "YYYY-MM-DDTHH:MM:SS": the part strftime writes, for years 0 to 9999. */
#define SECONDS_LEN 19

void fc_utc_timestamp(char buf[FC_UTC_TIMESTAMP_LEN]) {
    struct timespec now;
    struct tm utc;
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &utc);
    /* strftime writes nothing (0) when a year past 9999 does not fit */
    if (strftime(buf, SECONDS_LEN + 1, "%Y-%m-%dT%H:%M:%S", &utc) != SECONDS_LEN) {
        snprintf(buf, FC_UTC_TIMESTAMP_LEN, "%s", "0000-00-00T00:00:00.000Z");
        return;
    }
    unsigned ms = (unsigned)(now.tv_nsec / 1000000) % 1000u;
    snprintf(buf + SECONDS_LEN, FC_UTC_TIMESTAMP_LEN - SECONDS_LEN, ".%03uZ", ms);
}
