/* Loading speed of the long-format CSV reader.
 *
 * Writes a 1,000,000-row file (1000 series x 1000 daily points, y a random
 * walk with 3 decimals) to /tmp, once in (unique_id, ds) order and once with
 * the rows shuffled, loads each 3 times with fc_dataset_load_csv and prints
 * MB/s and rows/s (best and median). The reference, measured in the same
 * run, is a bare memchr pass counting newlines over the mapped file: the
 * speed of touching the bytes at all, which no parser can beat.
 *
 *   bench_csv [series] [points]      (defaults 1000 1000) */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "core/rng.h"
#include "data/dataset.h"

#define REPEATS 3

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One row per line into `text`; line i starts at starts[i]. */
static size_t format_rows(size_t n_series, size_t n_points, char *text, size_t *starts) {
    size_t o = 0, i = 0;
    for (size_t s = 0; s < n_series; s++) {
        double level = 1000.0 + (double)s;
        for (size_t t = 0; t < n_points; t++, i++) {
            fc_philox_out r = fc_rng_block(42, 0, i);
            level += fc_u32x2_to_open_double(r.v[0], r.v[1]) - 0.5;
            /* Day t after 2000-01-01 through gmtime_r (UTC), so the file
             * does not depend on the loader's own calendar code. */
            time_t day = (time_t)(946684800 + 86400 * (long long)t);
            struct tm tm;
            gmtime_r(&day, &tm);
            starts[i] = o;
            o += (size_t)sprintf(text + o, "series_%04zu,%04d-%02d-%02d,%.3f\n", s,
                                 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, level);
        }
    }
    starts[i] = o;
    return o;
}

static int write_file(const char *path, const char *text, const size_t *starts,
                      const size_t *order, size_t n_rows) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fputs("unique_id,ds,y\n", f);
    for (size_t k = 0; k < n_rows; k++) {
        size_t i = order[k];
        fwrite(text + starts[i], 1, starts[i + 1] - starts[i], f);
    }
    return fclose(f) == 0;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The reference: count newlines over the mapped file with memchr. */
static double newline_pass_seconds(const char *path, size_t *lines) {
    int fd = open(path, O_RDONLY);
    struct stat st;
    fstat(fd, &st);
    const char *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    double t0 = now_seconds();
    const char *q = p, *end = p + st.st_size;
    *lines = 0;
    while ((q = memchr(q, '\n', (size_t)(end - q)))) q++, (*lines)++;
    double t = now_seconds() - t0;
    munmap((void *)p, (size_t)st.st_size);
    return t;
}

static int bench_file(const char *label, const char *path, size_t n_rows) {
    struct stat st;
    if (stat(path, &st) != 0) return 1;
    double mb = (double)st.st_size / 1e6, secs[REPEATS];
    for (int k = 0; k < REPEATS; k++) {
        fc_dataset *d = NULL;
        double t0 = now_seconds();
        if (fc_dataset_load_csv(path, NULL, &d) != FC_OK) {
            fprintf(stderr, "bench_csv: %s\n", fc_last_error());
            return 1;
        }
        secs[k] = now_seconds() - t0;
        if (d->n_rows != n_rows) fprintf(stderr, "bench_csv: %zu rows, expected %zu\n", d->n_rows, n_rows);
        fc_dataset_free(&d);
    }
    qsort(secs, REPEATS, sizeof secs[0], compare_double);
    size_t lines;
    double ref = newline_pass_seconds(path, &lines);
    printf("%-9s %7.1f MB  best %7.1f MB/s %6.2f Mrows/s | median %7.1f MB/s %6.2f Mrows/s | "
           "newline pass %7.0f MB/s (parser at %.0f%% of it)\n",
           label, mb, mb / secs[0], n_rows / secs[0] / 1e6, mb / secs[REPEATS / 2],
           n_rows / secs[REPEATS / 2] / 1e6, mb / ref, 100.0 * ref / secs[0]);
    return 0;
}

int main(int argc, char **argv) {
    size_t n_series = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
    size_t n_points = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000;
    size_t n_rows = n_series * n_points;
    char *text = malloc(n_rows * 48 + 64);
    size_t *starts = malloc((n_rows + 1) * sizeof *starts);
    size_t *order = malloc(n_rows * sizeof *order);
    if (!text || !starts || !order || n_rows == 0) return 1;
    format_rows(n_series, n_points, text, starts);
    for (size_t i = 0; i < n_rows; i++) order[i] = i;
    const char *sorted = "/tmp/fcast_bench_sorted.csv", *shuffled = "/tmp/fcast_bench_shuffled.csv";
    int bad = !write_file(sorted, text, starts, order, n_rows);
    for (size_t i = n_rows - 1; i > 0; i--) {  /* Fisher-Yates with Philox draws */
        fc_philox_out r = fc_rng_block(7, 1, i);
        size_t j = (size_t)((((uint64_t)r.v[0] << 32) | r.v[1]) % (i + 1));
        size_t tmp = order[i]; order[i] = order[j]; order[j] = tmp;
    }
    bad |= !write_file(shuffled, text, starts, order, n_rows);
    free(text); free(starts); free(order);
    if (bad) { fprintf(stderr, "bench_csv: cannot write the files in /tmp\n"); return 1; }
    printf("fc_dataset_load_csv: %zu series x %zu daily points (%zu rows), %d loads each\n",
           n_series, n_points, n_rows, REPEATS);
    bad |= bench_file("sorted", sorted, n_rows);
    bad |= bench_file("shuffled", shuffled, n_rows);
    unlink(sorted);
    unlink(shuffled);
    return bad;
}
