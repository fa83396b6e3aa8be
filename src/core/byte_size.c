/* Parsing of byte sizes (see byte_size.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

#include "core/byte_size.h"

static const struct {
    const char *unit;
    double factor;
} units[] = {
    {"", 1},           {"b", 1},
    {"k", 1024.0},     {"kib", 1024.0},     {"kb", 1e3},
    {"m", 1048576.0},  {"mib", 1048576.0},  {"mb", 1e6},
    {"g", 1073741824.0}, {"gib", 1073741824.0}, {"gb", 1e9},
    {"t", 1099511627776.0}, {"tib", 1099511627776.0}, {"tb", 1e12},
};

int fc_parse_byte_size(const char *s, size_t *out) {
    char *end;
    if (!s || !*s || *s == '-' || *s == '+') return -1;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0) return -1;
    while (*end == ' ') end++;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcasecmp(end, units[i].unit) == 0) {
            double bytes = floor(v * units[i].factor);
            if (bytes >= 18446744073709551615.0 || bytes > (double)SIZE_MAX) return -1;
            *out = (size_t)bytes;
            return 0;
        }
    return -1;
}
