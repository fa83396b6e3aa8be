/* The one clock fcast times with: seconds from a monotonic clock, for
 * durations only (phase timings, rates, deadlines, the server's latencies). */
#ifndef FC_CORE_CLOCK_H
#define FC_CORE_CLOCK_H

double fc_now(void);

#endif
