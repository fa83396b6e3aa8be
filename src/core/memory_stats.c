/* Resident-memory figures from /proc/self (see memory_stats.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/memory_stats.h"

/* The value of a "Key:   123 kB" line of a /proc file, in bytes. Read
 * with open/read into a stack buffer, not stdio: the run log reads it
 * every step, and fopen allocates (the step loop must not). */
static size_t proc_kb(const char *path, const char *key) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char text[8192];
    size_t len = 0;
    for (ssize_t r; len < sizeof text - 1 && (r = read(fd, text + len, sizeof text - 1 - len)) != 0;) {
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break;
        len += (size_t)r;
    }
    close(fd);
    text[len] = '\0';
    size_t kb = 0, n = strlen(key);
    for (const char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, key, n) == 0 && line[n] == ':') {
            sscanf(line + n + 1, "%zu", &kb);
            break;
        }
    return kb * 1024;
}

size_t fc_rss_current(void) { return proc_kb("/proc/self/status", "VmRSS"); }
size_t fc_rss_peak(void) { return proc_kb("/proc/self/status", "VmHWM"); }
size_t fc_memory_available(void) { return proc_kb("/proc/meminfo", "MemAvailable"); }

int fc_rss_reset_peak(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return -1;
    int ok = fputs("5", f) >= 0;
    return fclose(f) == 0 && ok ? 0 : -1;
}

const char *fc_bytes_text(size_t bytes, char *buf, size_t cap) {
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024.0 && u < 4) v /= 1024.0, u++;
    snprintf(buf, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
    return buf;
}
