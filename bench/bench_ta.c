/* Every TA-Lib function: fcast against TA-Lib (the ta-lib Python package) on
 * the same bars, measured side by side in one run; one row per function
 * with both throughputs and their ratio, then the ten slowest ratios.
 * bench_indicators times the batched close-price engine's five; this times
 * the whole set, each function at TA-Lib's defaults.
 *
 *   bench_ta [--series 1000] [--points 10000] [--reps 3] [--threads N]
 *            [--only ATR,ADX,...] [--no-talib] [--script python/bench_talib_all.py]
 *
 * Bars: per series a random walk close from a 64-bit LCG, open/high/low
 * around it, a positive volume and MAVP's periods; written to a temporary
 * file that the Python side reads, so both compute on identical inputs.
 * Each figure is the best of --reps runs, outputs kept (fcast writes into
 * arrays allocated and touched once; the Python loop keeps every array it
 * gets, as a user of TA-Lib does). TA-Lib runs one series per call on one
 * core, which is how its package runs; fcast runs the series on --threads
 * (default: all cores). The first lines say which CPU and threads ran. */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "quant/ta.h"

#define N_COLS 6   /* open, high, low, close, volume, periods */
static const char *const COLS[N_COLS] = {"open", "high", "low", "close", "volume", "periods"};

typedef struct {
    size_t series, points;
    int reps, talib, threads;
    const char *only, *script;
} options;

typedef struct {
    const char *name;
    double fcast_s, talib_s;
} row;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int parse(int argc, char **argv, options *o) {
    *o = (options){1000, 10000, 3, 1, 0, NULL, "python/bench_talib_all.py"};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-talib")) o->talib = 0;
        else if (v && !strcmp(a, "--series")) o->series = strtoul(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--points")) o->points = strtoul(v, NULL, 10), i++;
        else if (v && !strcmp(a, "--reps")) o->reps = atoi(v), i++;
        else if (v && !strcmp(a, "--threads")) o->threads = atoi(v), i++;
        else if (v && !strcmp(a, "--only")) o->only = v, i++;
        else if (v && !strcmp(a, "--script")) o->script = v, i++;
        else return fprintf(stderr, "bench_ta: unknown or incomplete argument %s\n", a), 0;
    }
    return o->series > 0 && o->points > 1 && o->reps > 0;
}

/* The bars, column-major: cols[c][s * points + t]. */
static void make_bars(const options *o, double **cols) {
    for (size_t s = 0; s < o->series; s++) {
        uint64_t x = 42 ^ ((s + 1) * 0x9E3779B97F4A7C15ULL);
        double close = 1000.0;
        for (size_t t = 0; t < o->points; t++) {
            size_t i = s * o->points + t;
            double u[4];
            for (int k = 0; k < 4; k++) {
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                u[k] = (double)(x >> 11) / 9007199254740992.0;
            }
            double open = close;
            close += u[0] - 0.5;
            cols[0][i] = open;
            cols[1][i] = fmax(open, close) + u[1];
            cols[2][i] = fmin(open, close) - u[2];
            cols[3][i] = close;
            cols[4][i] = 1000.0 + 9000.0 * u[3];
            cols[5][i] = (double)(2 + (t * 7) % 29);
        }
    }
}

static int wanted(const options *o, const char *name) {
    if (!o->only) return 1;
    size_t len = strlen(name);
    for (const char *p = o->only; *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n == len && !strncasecmp(p, name, n)) return 1;
        p += n + (c != NULL);
    }
    return 0;
}

static const double *column(double **cols, const char *name) {
    for (int c = 0; c < N_COLS; c++)
        if (!strcmp(COLS[c], name)) return cols[c];
    return cols[3];
}

/* Best of reps seconds for f over every series, outputs kept in outs. */
static double time_fcast(const options *o, const fc_ta_func *f, double **cols, double **outs, const size_t *off) {
    double par[FC_TA_MAX_PARAMS];
    if (fc_ta_params(f, NULL, 0, par) != FC_OK) return NAN;
    const double *in[FC_TA_MAX_INPUTS] = {0};
    for (int i = 0; i < f->desc.n_inputs; i++) in[i] = column(cols, f->desc.inputs[i].column);
    fc_ind_options opt = {FC_NAN_POISON, o->threads, -1, NULL};
    double best = INFINITY;
    for (int r = 0; r < o->reps; r++) {
        double t0 = now();
        if (fc_ta_compute(f, par, in, NULL, off, o->series, &opt, outs, NULL) != FC_OK) return NAN;
        double dt = now() - t0;
        if (dt < best) best = dt;
    }
    return best;
}

static int write_bars(const options *o, double **cols, char *path) {
    strcpy(path, "/tmp/bench_ta_XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0) return 0;
    FILE *f = fdopen(fd, "wb");
    size_t n = o->series * o->points;
    int ok = 1;
    for (int c = 0; c < N_COLS; c++) ok &= fwrite(cols[c], sizeof(double), n, f) == n;
    return (fclose(f) == 0) & ok;
}

/* TA-Lib's seconds per function, from the Python side's "talib NAME s" lines. */
static void time_talib(const options *o, double **cols, row *rows, size_t n_rows) {
    char path[64], cmd[1024], line[256];
    if (!write_bars(o, cols, path)) return;
    snprintf(cmd, sizeof cmd, "python3 %s --data %s --series %zu --points %zu --reps %d%s%s", o->script, path,
             o->series, o->points, o->reps, o->only ? " --only " : "", o->only ? o->only : "");
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p)) {
        char name[64];
        double s;
        if (sscanf(line, "talib %63s %lf", name, &s) != 2) continue;
        for (size_t i = 0; i < n_rows; i++)
            if (!strcmp(rows[i].name, name)) rows[i].talib_s = s;
    }
    if (p) pclose(p);
    unlink(path);
}

static void print_cpu(const options *o) {
    char line[512] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "model name", 10)) break;
    if (f) fclose(f);
    char *colon = strchr(line, ':');
    printf("cpu: %s", colon ? colon + 2 : line);
    printf("fcast: %d thread(s), scalar TA-Lib bodies (kernels/ta), one series per thread; TA-Lib: one core\n",
           o->threads > 0 ? o->threads : omp_get_max_threads());
    printf("data: %zu series x %zu bars, best of %d\n", o->series, o->points, o->reps);
}

static int by_ratio(const void *a, const void *b) {
    const row *x = a, *y = b;
    double rx = x->talib_s / x->fcast_s, ry = y->talib_s / y->fcast_s;
    return (rx > ry) - (rx < ry);
}

static void print_rows(const options *o, row *rows, size_t n) {
    double pts = (double)o->series * (double)o->points / 1e6;
    printf("\n%-20s %14s %14s %8s\n", "function", "fcast Mbar/s", "TA-Lib Mbar/s", "ratio");
    size_t timed = 0, below = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].talib_s > 0) timed++, below += rows[i].talib_s / rows[i].fcast_s < 3.0;
        if (rows[i].talib_s > 0)
            printf("%-20s %14.1f %14.1f %7.2fx\n", rows[i].name, pts / rows[i].fcast_s, pts / rows[i].talib_s,
                   rows[i].talib_s / rows[i].fcast_s);
        else printf("%-20s %14.1f %14s %8s\n", rows[i].name, pts / rows[i].fcast_s, "-", "-");
    }
    if (!timed) return;
    row *sorted = malloc(n * sizeof *sorted);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (rows[i].talib_s > 0) sorted[m++] = rows[i];
    qsort(sorted, m, sizeof *sorted, by_ratio);
    printf("\nslowest 10 against TA-Lib:");
    for (size_t i = 0; i < m && i < 10; i++) printf(" %s %.2fx%s", sorted[i].name, sorted[i].talib_s / sorted[i].fcast_s, i + 1 < m && i < 9 ? "," : "");
    printf("\n%zu of %zu functions at least 3x TA-Lib; median ratio %.2fx\n", timed - below, timed,
           sorted[m / 2].talib_s / sorted[m / 2].fcast_s);
    free(sorted);
}

int main(int argc, char **argv) {
    options o;
    if (!parse(argc, argv, &o)) return 2;
    size_t n = o.series * o.points;
    double *cols[N_COLS], *outs[FC_TA_MAX_OUTPUTS];
    for (int c = 0; c < N_COLS; c++)
        if (!(cols[c] = malloc(n * sizeof(double)))) return fprintf(stderr, "bench_ta: out of memory\n"), 1;
    for (int k = 0; k < FC_TA_MAX_OUTPUTS; k++) {
        if (!(outs[k] = malloc(n * sizeof(double)))) return fprintf(stderr, "bench_ta: out of memory\n"), 1;
        memset(outs[k], 0, n * sizeof(double));   /* touched once, before any timing */
    }
    size_t *off = malloc((o.series + 1) * sizeof *off);
    for (size_t s = 0; s <= o.series; s++) off[s] = s * o.points;
    make_bars(&o, cols);
    print_cpu(&o);
    row *rows = calloc(fc_ta_count(), sizeof *rows);
    size_t n_rows = 0;
    for (size_t i = 0; i < fc_ta_count(); i++) {
        const fc_ta_func *f = fc_ta_at(i);
        if (!f->impl || !wanted(&o, f->desc.name)) continue;
        rows[n_rows].name = f->desc.name;
        rows[n_rows++].fcast_s = time_fcast(&o, f, cols, outs, off);
    }
    if (o.talib && system("python3 -c 'import talib' >/dev/null 2>&1") == 0) time_talib(&o, cols, rows, n_rows);
    else if (o.talib) printf("TA-Lib: the ta-lib package is missing (pip install TA-Lib): fcast's figures only\n");
    print_rows(&o, rows, n_rows);
    return 0;
}
