/* The process's resident memory, as the kernel counts it (/proc/self):
 * what `--memory-limit` is measured against and what the training log
 * reports. Linux only; elsewhere every figure is 0. */
#ifndef FC_CORE_MEMORY_STATS_H
#define FC_CORE_MEMORY_STATS_H

#include <stddef.h>

/* Resident bytes now (VmRSS) and at the peak since start or the last reset (VmHWM). */
size_t fc_rss_current(void);
size_t fc_rss_peak(void);
/* Starts a new peak from the current resident size (clear_refs 5); 0 on success. */
int fc_rss_reset_peak(void);

/* Memory the kernel could give this process now without swapping
 * (MemAvailable of /proc/meminfo); 0 when unknown. */
size_t fc_memory_available(void);

/* "512.0 MiB"-style text of a byte count into buf (at least 16 bytes). */
const char *fc_bytes_text(size_t bytes, char *buf, size_t cap);

#endif
