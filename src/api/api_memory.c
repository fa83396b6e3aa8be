/* The process's memory as fcast measures it (core/memory_stats.h), for
 * callers that report it beside a run's plan (fcast.h). */
#include "api/api.h"
#include "core/memory_stats.h"

size_t fcast_resident_bytes(void) { return fc_rss_current(); }
size_t fcast_resident_peak_bytes(void) { return fc_rss_peak(); }
const char *fcast_bytes_text(size_t bytes, char *buf, size_t cap) { return fc_bytes_text(bytes, buf, cap); }
