/* The CPU's description (see cpu_info.h). */
#include "monitor/cpu_info.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core/memory_stats.h"

/* The value after "key<tabs>: " on a /proc/cpuinfo line, or NULL. */
static const char *field(const char *line, const char *key) {
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0) return NULL;
    line += n;
    while (*line == ' ' || *line == '\t') line++;
    return *line == ':' ? line + 1 + (line[1] == ' ') : NULL;
}

static long strtol_or_zero(const char *s) {
    long v = 0;
    return sscanf(s, "%ld", &v) == 1 ? v : 0;
}

/* A whole word of the flags list: "avx512f" must not match "avx512fp16". */
static int has_flag(const char *flags, const char *name) {
    size_t n = strlen(name);
    for (const char *p = flags; (p = strstr(p, name)) != NULL; p += n)
        if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0')) return 1;
    return 0;
}

static void read_flags(fc_cpu_info *info, const char *flags) {
    info->avx512f = has_flag(flags, "avx512f");
    info->avx512_bf16 = has_flag(flags, "avx512_bf16");
    info->amx_tile = has_flag(flags, "amx_tile");
    info->amx_bf16 = has_flag(flags, "amx_bf16");
}

/* Cores are counted as distinct (physical id, core id) pairs: hyper-threads
 * share a pair. Up to 4096 pairs are remembered; beyond, 0 (unknown). */
static void read_cpuinfo(fc_cpu_info *info) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[8192];   /* a flags line is about 1.5 kB today */
    long pairs[4096];
    int n_pairs = 0, overflow = 0;
    long phys = 0;
    const char *v;
    while (fgets(line, sizeof line, f)) {
        if (!info->model[0] && (v = field(line, "model name"))) {
            snprintf(info->model, sizeof info->model, "%s", v);
            info->model[strcspn(info->model, "\n")] = '\0';
        } else if ((v = field(line, "flags")) && !info->avx512f && !info->amx_tile) {
            read_flags(info, v);
        } else if ((v = field(line, "physical id"))) {
            phys = strtol_or_zero(v);
        } else if ((v = field(line, "core id"))) {
            long key = phys * 1000000 + strtol_or_zero(v), i = 0;
            while (i < n_pairs && pairs[i] != key) i++;
            if (i == n_pairs && n_pairs < 4096) pairs[n_pairs++] = key;
            else if (i == n_pairs) overflow = 1;
        }
    }
    fclose(f);
    info->physical_cores = overflow ? 0 : n_pairs;
}

static size_t meminfo_bytes(const char *key) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f) return 0;
    char line[256];
    size_t kib = 0, n = strlen(key);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n) && line[n] == ':' && sscanf(line + n + 1, "%zu", &kib) == 1) break;
    fclose(f);
    return kib * 1024;
}

void fc_cpu_info_read(fc_cpu_info *info) {
    memset(info, 0, sizeof *info);
    read_cpuinfo(info);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    info->logical_cpus = online > 0 ? (int)online : 0;
    info->mem_total = meminfo_bytes("MemTotal");
    info->mem_available = fc_memory_available();
}
