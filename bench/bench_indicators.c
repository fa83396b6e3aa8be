/* Indicator throughput: fcast against TA-Lib (the ta-lib Python package) on
 * the same data, measured in the same run.
 *
 *   bench_indicators [--series 1000] [--points 10000] [--reps 5] [--no-talib]
 *                    [--script python/bench_talib.py] [--threads 1,2]
 *
 * Data: one random walk per series from a 64-bit LCG (bench_talib.py has the
 * same generator); the exact values are also written to a temporary file that
 * the Python side reads, so both compute on identical inputs. Every figure is
 * the best of --reps runs; outputs go to buffers allocated (and touched) once.
 * Points per second = series x points / seconds, per indicator; the "set" row
 * counts each point once per indicator. TA-Lib keeps its outputs too (a list
 * of arrays), which is what a user of it does. fcast runs on each thread
 * count of --threads (default 1 and 2, one column each; bench/threads.sh
 * reads them for its scaling table); the TA-Lib ratios take the first and
 * the last. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "quant/indicators.h"

#define N_SPECS 5
#define MAX_COUNTS 32
static const char *const SPECS[N_SPECS] = {"sma:20", "ema:20", "rsi:14", "bbands:20:2", "macd:12:26:9"};

typedef struct {
    size_t series, points;
    int reps, talib;
    const char *script;
    int threads[MAX_COUNTS], n_threads;   /* the thread counts fcast runs on */
} bench_args;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Series s: y0 = 1000, y_t = y_{t-1} + (u_t - 0.5), u from an LCG seeded per
 * series; python/bench_talib.py generates the same values. */
static void generate(double *y, size_t series, size_t points) {
    for (size_t s = 0; s < series; s++) {
        uint64_t state = 42u ^ ((uint64_t)(s + 1) * 0x9E3779B97F4A7C15ull);
        double v = 1000.0;
        for (size_t t = 0; t < points; t++) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            v += (double)(state >> 11) * (1.0 / 9007199254740992.0) - 0.5;
            y[s * points + t] = v;
        }
    }
}

/* --threads: a comma list of 1 to MAX_COUNTS counts, each 1 to 1024; 0 when bad. */
static int parse_threads(const char *v, bench_args *a) {
    a->n_threads = 0;
    for (const char *p = v;; p++) {
        char *end;
        long t = strtol(p, &end, 10);
        if (end == p || t < 1 || t > 1024 || a->n_threads == MAX_COUNTS || (*end && *end != ',')) return 0;
        a->threads[a->n_threads++] = (int)t;
        if (!*end) return 1;
        p = end;
    }
}

static int parse_args(int argc, char **argv, bench_args *a) {
    *a = (bench_args){1000, 10000, 5, 1, "python/bench_talib.py", {1, omp_get_num_procs() < 2 ? 1 : 2}, 2};
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(argv[i], "--no-talib")) a->talib = 0;
        else if (!strcmp(argv[i], "--series") && v) a->series = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--points") && v) a->points = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--reps") && v) a->reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--script") && v) a->script = argv[++i];
        else if (!strcmp(argv[i], "--threads") && v && parse_threads(argv[++i], a)) continue;
        else {
            fprintf(stderr, "usage: %s [--series N] [--points T] [--reps R] [--no-talib] [--script PATH] "
                    "[--threads N,N,...]\n", argv[0]);
            return 2;
        }
    }
    if (!a->series || a->points < 100 || a->reps < 1) {
        fprintf(stderr, "%s: need --series >= 1, --points >= 100, --reps >= 1\n", argv[0]);
        return 2;
    }
    return 0;
}

typedef struct {
    fc_ind_spec specs[N_SPECS];
    double *out[N_SPECS][FC_IND_MAX_OUTPUTS];
    double *const *outs[N_SPECS];
    const double *y;
    size_t offsets_n;
    size_t *offsets;
} bench_data;

/* Best time of `reps` runs of specs[first..first+count) with `threads` threads. */
static double time_specs(const bench_data *d, size_t first, size_t count, int threads, int reps) {
    fc_ind_options opt = fc_ind_options_default();
    opt.threads = threads;
    double best = INFINITY;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        fc_status st = fc_ind_compute_many(d->specs + first, count, d->y, NULL, d->offsets, d->offsets_n, &opt,
                                           d->outs + first, NULL);
        double dt = now() - t0;
        if (st != FC_OK) {
            fprintf(stderr, "bench_indicators: %s\n", fc_last_error());
            exit(1);
        }
        if (dt < best) best = dt;
    }
    return best;
}

/* TA-Lib's seconds per row of the table: kept outputs and discarded ones. */
typedef struct {
    double kept[N_SPECS + 1], dropped[N_SPECS + 1];
    char version[160];
} talib_times;

static void parse_talib_line(const char *line, talib_times *tt, int *got) {
    char kind[32], name[64];
    double sec;
    if (!strncmp(line, "talib version ", 14)) {
        snprintf(tt->version, sizeof tt->version, "%.150s", line + 14);
        tt->version[strcspn(tt->version, "\n")] = '\0';
        return;
    }
    if (sscanf(line, "%31s %63s %lf", kind, name, &sec) != 3) return;
    double *row = !strcmp(kind, "talib") ? tt->kept : !strcmp(kind, "talib-discarding") ? tt->dropped : NULL;
    if (!row) return;
    for (int i = 0; i <= N_SPECS; i++)
        if (!strcmp(name, i < N_SPECS ? SPECS[i] : "set")) row[i] = sec, (*got)++;
}

/* Runs python/bench_talib.py on the same values; 1 on success, else `why`. */
static int run_talib(const bench_args *a, const double *y, talib_times *tt, char *why, size_t cap) {
    if (access(a->script, R_OK) != 0) {
        snprintf(why, cap, "%s not found (run from the repository root or pass --script)", a->script);
        return 0;
    }
    if (system("python3 -c 'import talib' >/dev/null 2>&1") != 0) {
        snprintf(why, cap, "python3 cannot import talib (pip install ta-lib)");
        return 0;
    }
    char path[] = "/tmp/fcast_bench_XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    size_t n = a->series * a->points;
    if (!f || fwrite(y, sizeof *y, n, f) != n || fclose(f) != 0) {
        snprintf(why, cap, "cannot write the data file %s", path);
        return 0;
    }
    char cmd[400];
    snprintf(cmd, sizeof cmd, "python3 %s --data %s --series %zu --points %zu --reps %d", a->script, path,
             a->series, a->points, a->reps);
    FILE *p = popen(cmd, "r");
    char line[256];
    int got = 0;
    while (p && fgets(line, sizeof line, p)) parse_talib_line(line, tt, &got);
    int rc = p ? pclose(p) : -1;
    unlink(path);
    if (rc != 0 || got != 2 * (N_SPECS + 1)) {
        snprintf(why, cap, "'%.200s' failed (status %d)", cmd, rc);
        return 0;
    }
    return 1;
}

/* s: seconds on each of the n thread counts. */
static void print_row(const char *name, double pts, const double *s, int n, const talib_times *tt, int i) {
    printf("%-14s", name);
    for (int k = 0; k < n; k++) printf(" %9.1f", pts / s[k] / 1e6);
    if (tt)
        printf(" %9.1f %9.1f %7.2fx %7.2fx %7.2fx", pts / tt->kept[i] / 1e6, pts / tt->dropped[i] / 1e6,
               tt->kept[i] / s[0], tt->kept[i] / s[n - 1], tt->dropped[i] / s[n - 1]);
    printf("\n");
}

static int setup(bench_data *d, const bench_args *a, double **y_out) {
    size_t n = a->series * a->points;
    double *y = aligned_alloc(64, n * sizeof *y);
    d->offsets = malloc((a->series + 1) * sizeof *d->offsets);
    if (!y || !d->offsets) return 1;
    generate(y, a->series, a->points);
    for (size_t s = 0; s <= a->series; s++) d->offsets[s] = s * a->points;
    d->offsets_n = a->series;
    d->y = y;
    for (int i = 0; i < N_SPECS; i++) {
        if (fc_ind_parse(SPECS[i], &d->specs[i]) != FC_OK) return 1;
        for (int k = 0; k < fc_ind_n_outputs(&d->specs[i]); k++) {
            d->out[i][k] = aligned_alloc(64, n * sizeof(double));
            if (!d->out[i][k]) return 1;
            memset(d->out[i][k], 0, n * sizeof(double)); /* page faults outside the timings */
        }
        d->outs[i] = d->out[i];
    }
    *y_out = y;
    return 0;
}

int main(int argc, char **argv) {
    bench_args a;
    int rc = parse_args(argc, argv, &a);
    if (rc) return rc;
    bench_data d;
    double *y = NULL;
    if (setup(&d, &a, &y)) {
        fprintf(stderr, "bench_indicators: out of memory\n");
        return 1;
    }
    double pts = (double)a.series * (double)a.points;
    double fc[N_SPECS + 1][MAX_COUNTS];
    const int n = a.n_threads, first = a.threads[0], last = a.threads[n - 1];
    for (int th = 0; th < n; th++) {
        for (int i = 0; i < N_SPECS; i++) fc[i][th] = time_specs(&d, (size_t)i, 1, a.threads[th], a.reps);
        fc[N_SPECS][th] = time_specs(&d, 0, N_SPECS, a.threads[th], a.reps);
    }
    talib_times tt;
    memset(&tt, 0, sizeof tt);
    char why[512] = "";
    int have_talib = a.talib && run_talib(&a, y, &tt, why, sizeof why);
    printf("indicators: %zu series x %zu points, best of %d runs, million points per second\n", a.series,
           a.points, a.reps);
    printf("%-14s", "indicator");
    for (int k = 0; k < n; k++) {
        char head[24];
        snprintf(head, sizeof head, "fcast %dT", a.threads[k]);
        printf(" %9s", head);
    }
    if (have_talib) {
        char r1[16], r2[16], r3[16];
        snprintf(r1, sizeof r1, "%dT/TA", first);
        snprintf(r2, sizeof r2, "%dT/TA", last);
        snprintf(r3, sizeof r3, "%dT/TA*", last);
        printf(" %9s %9s %8s %8s %8s", "TA-Lib", "TA-Lib*", r1, r2, r3);
    }
    printf("\n");
    for (int i = 0; i < N_SPECS; i++) print_row(SPECS[i], pts, fc[i], n, have_talib ? &tt : NULL, i);
    print_row("set (5 specs)", pts * N_SPECS, fc[N_SPECS], n, have_talib ? &tt : NULL, N_SPECS);
    if (have_talib)
        printf("TA-Lib: %s, one call per series keeping the outputs; TA-Lib*: dropping each output "
               "at once (cache-resident, its best case)\n", tt.version);
    else printf("TA-Lib not measured: %s\n", a.talib ? why : "--no-talib");
    return 0;
}
