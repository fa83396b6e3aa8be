/* Shards of a streamed file (data/dataset.h), as the ranks of an MPI job
 * keep them, played in one process: shard s of N holds exactly the whole
 * file's series s, s + N, s + 2N, ... with the same values, bit for bit;
 * and the window samplers of the N shards, once their counts are OR-ed
 * together (what fc_dist_merge does across ranks), draw between them
 * exactly the windows one process draws from the whole file, each shard
 * the ones of its own series in draw order: with and without replacement,
 * across epochs, with a validation tail, and after a seek (a resume). A
 * shard training alone (a rank's timing trials) trains on its own series
 * on the file's grid. A file with fewer series than shards is kept whole. */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "backend/cpu/cpu_backend.h"
#include "core/error.h"
#include "data/dataset.h"
#include "train/forecaster.h"
#include "train/windows.h"

#define SERIES 23
#define MAX_SHARDS 5

static char dir[] = "/tmp/fcast-shards-test-XXXXXX";

/* SERIES series written in an order that is not their sorted one, of
 * lengths 20 to 59, each with a gap (a missing ds) and an empty y. */
static void write_panel(const char *path) {
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "unique_id,ds,y\n");
    for (int k = 0; k < SERIES; k++) {
        int s = (k * 7) % SERIES, len = 20 + (s * 13) % 40;
        for (int t = 0; t < len; t++) {
            if (t == 5 + s % 4) continue;   /* a gap: filled as a masked point */
            if (t == 9 + s % 3) fprintf(f, "s%02d,%d,\n", s, t);
            else fprintf(f, "s%02d,%d,%.6f\n", s, t, 10.0 + s + 0.37 * t + ((t * s) % 7) * 0.1);
        }
    }
    fclose(f);
}

static fc_dataset *load(const char *path, size_t shard, size_t shards) {
    fc_load_options o = {.stream = 1, .store_dir = dir, .shard = shard, .shards = shards};
    fc_dataset *d = NULL;
    fc_status st = fc_dataset_open(path, &o, &d);
    CHECK_MSG(st == FC_OK, "shard %zu of %zu: %s", shard, shards, fc_last_error());
    return d;
}

/* Series i of the shard against series i * N + s of the whole. */
static void compare_shard(const fc_dataset *whole, const fc_dataset *part, size_t s, size_t N) {
    CHECK(part->shard == s && part->shards == N && part->job_series == SERIES);
    CHECK_MSG(part->n_series == (SERIES - s + N - 1) / N, "shard %zu of %zu: %zu series", s, N, part->n_series);
    size_t longest = 0;
    for (size_t g = 0; g < whole->n_series; g++)
        longest = fc_dataset_len(whole, g) > longest ? fc_dataset_len(whole, g) : longest;
    CHECK_MSG(part->job_longest == longest, "job_longest %zu, the file's %zu", part->job_longest, longest);
    for (size_t i = 0; i < part->n_series; i++) {
        size_t g = i * N + s, n = fc_dataset_len(part, i), a = whole->offsets[g], b = part->offsets[i];
        CHECK(fc_dataset_local_series(part, g) == (ptrdiff_t)i);
        CHECK(fc_dataset_local_series(part, g + 1) == -1);
        CHECK_MSG(strcmp(part->ids[i], whole->ids[g]) == 0, "shard %zu of %zu, series %zu: %s, not %s", s, N, i,
                  part->ids[i], whole->ids[g]);
        CHECK(n == fc_dataset_len(whole, g));
        CHECK(memcmp(part->ds + b, whole->ds + a, n * sizeof *part->ds) == 0);
        CHECK(memcmp(part->y + b, whole->y + a, n * sizeof *part->y) == 0);
        CHECK(memcmp(part->mask + b, whole->mask + a, n) == 0);
        CHECK(memcmp(part->observed + b + i, whole->observed + a + g, (n + 1) * sizeof *part->observed) == 0);
    }
}

/* The step's draws of the whole, split by owner, against each shard's. */
static void compare_draws(fc_window_sampler *whole, fc_window_sampler *part, size_t N, uint64_t step,
                          const char *what) {
    fc_window w[512], own[512];
    size_t n = fc_window_sampler_next(whole, step, w);
    CHECK(n == whole->windows_batch_size);
    for (size_t s = 0; s < N; s++) {
        size_t kept = fc_window_sampler_next(&part[s], step, own), j = 0, mismatches = 0;
        for (size_t i = 0; i < n; i++) {
            if (w[i].series % N != s) continue;
            int same = j < kept && own[j].series * N + s == w[i].series && own[j].start == w[i].start;
            mismatches += !same;
            j++;
        }
        CHECK_MSG(j == kept && mismatches == 0, "%s: step %lu, shard %zu of %zu: %zu windows (the whole's %zu), "
                  "%zu differ", what, (unsigned long)step, s, N, kept, j, mismatches);
    }
}

static void check_sampler(fc_dataset *whole, fc_dataset **parts, size_t N, size_t val, size_t W, const char *what) {
    fc_window_spec spec = {6, 3, 1, val, 0.2, 0.2, 0, 0};
    fc_window_sampler ref, s[MAX_SHARDS];
    CHECK_MSG(fc_window_sampler_init(&ref, whole, &spec, 5, W, 42) == FC_OK, "%s", fc_last_error());
    uint32_t counts[SERIES] = {0};
    for (size_t r = 0; r < N; r++) {
        CHECK_MSG(fc_window_sampler_init(&s[r], parts[r], &spec, 5, W, 42) == FC_OK, "%s", fc_last_error());
        CHECK(s[r].T_max == ref.T_max && s[r].grid == ref.grid);
        for (size_t g = 0; g < SERIES; g++) counts[g] |= s[r].counts[g];   /* fc_dist_merge across ranks */
    }
    for (size_t r = 0; r < N; r++) {
        memcpy(s[r].counts, counts, sizeof counts);
        CHECK(fc_window_sampler_join(&s[r]) == FC_OK);
        CHECK_MSG(s[r].total_valid == ref.total_valid, "%s: %zu valid windows, the whole's %zu", what,
                  s[r].total_valid, ref.total_valid);
    }
    for (uint64_t step = 0; step < 30; step++) compare_draws(&ref, s, N, step, what);   /* six epochs */
    size_t epoch, cursor;                    /* a resume: every sampler seeks the same place */
    fc_window_sampler_position(&ref, &epoch, &cursor);
    size_t back = cursor > 0 ? cursor - 1 : 0;
    fc_window_sampler_seek(&ref, epoch, back);
    for (size_t r = 0; r < N; r++) fc_window_sampler_seek(&s[r], epoch, back);
    for (uint64_t step = 30; step < 36; step++) compare_draws(&ref, s, N, step, what);
    for (size_t r = 0; r < N; r++) fc_window_sampler_free(&s[r]);
    fc_window_sampler_free(&ref);
}

static void check_shards(const char *path, fc_dataset *whole, size_t N) {
    fc_dataset *parts[MAX_SHARDS] = {0};
    for (size_t s = 0; s < N; s++) {
        parts[s] = load(path, s, N);
        if (parts[s]) compare_shard(whole, parts[s], s, N);
    }
    for (size_t s = 0; s < N; s++)
        if (!parts[s]) return;
    char what[64];
    snprintf(what, sizeof what, "%zu shards, W 16", N);
    check_sampler(whole, parts, N, 0, 16, what);             /* without replacement */
    snprintf(what, sizeof what, "%zu shards, W 400", N);
    check_sampler(whole, parts, N, 0, 400, what);            /* more windows than the step's series have */
    snprintf(what, sizeof what, "%zu shards, val 4", N);
    check_sampler(whole, parts, N, 4, 32, what);
    for (size_t s = 0; s < N; s++) fc_dataset_free(&parts[s]);
}

/* 3 steps of a small MLP (input 12, h 6) trained alone on d. */
static fc_status train_alone(const fc_dataset *d) {
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    fc_forecaster f = {.scaler = FC_SCALER_IDENTITY, .loss = {.kind = FC_LOSS_MAE}};
    fc_model_config cfg;
    fc_model_config_default(&cfg, FC_MODEL_MLP, 6, 12);
    cfg.hidden_size = 8;
    fc_train_options o;
    fc_train_options_default(&o);
    o.max_steps = 3, o.windows_batch_size = 16, o.batch_size = 4, o.alone = 1, o.verbose = 0;
    fc_train_summary sum;
    fc_status st = fc_model_create(&cfg, be, &f.model);
    if (st == FC_OK) st = fc_model_init_params(f.model, 5);
    if (st == FC_OK) st = fc_train(&f, d, &o, &sum);
    fc_forecaster_free(&f);
    fc_backend_destroy(&be);
    return st;
}

/* A shard alone (a rank's timing trials) trains on its own series on the
 * file's grid: its sampler lists the windows the shard's job sampler lists,
 * and a shard whose series are all shorter than the input size trains,
 * where a file of only those series is refused. */
static void alone_on_the_files_grid(const char *path) {
    fc_dataset *part = load(path, 1, 3);
    if (!part) return;
    fc_dataset own = fc_dataset_own_view(part);
    fc_window_spec spec = {6, 3, 1, 0, 0, 0, 0, 0};
    fc_window_sampler job, alone;
    CHECK(fc_window_sampler_init(&job, part, &spec, 5, 16, 1) == FC_OK);
    CHECK(fc_window_sampler_init(&alone, &own, &spec, 5, 16, 1) == FC_OK);
    CHECK(job.grid == alone.grid && alone.counts == NULL);
    fc_window a[64], b[64];
    for (size_t i = 0; i < part->n_series; i++) {
        size_t n = fc_window_sampler_list(&job, i, a), same = n == fc_window_sampler_list(&alone, i, b);
        for (size_t k = 0; k < n && same; k++) same = a[k].series == b[k].series && a[k].start == b[k].start;
        CHECK_MSG(same, "series %zu: the shard alone lists other windows", i);
    }
    fc_window_sampler_free(&job);
    fc_window_sampler_free(&alone);
    fc_dataset_free(&part);
    char short_path[160];   /* a and c (10 points) on shard 0 of 2, b and d (40) on shard 1 */
    snprintf(short_path, sizeof short_path, "%s/short.csv", dir);
    FILE *f = fopen(short_path, "w");
    CHECK(f != NULL);
    if (!f) return;
    char a_and_c[512];   /* shard 0's series alone, as a file of their own */
    size_t used = (size_t)snprintf(a_and_c, sizeof a_and_c, "unique_id,ds,y\n");
    fprintf(f, "unique_id,ds,y\n");
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < (s % 2 ? 40 : 10); t++) {
            fprintf(f, "%c,%d,%d\n", 'a' + s, t, (t * (s + 3)) % 17);
            if (s % 2 == 0) used += (size_t)snprintf(a_and_c + used, sizeof a_and_c - used, "%c,%d,%d\n", 'a' + s, t,
                                                     (t * (s + 3)) % 17);
        }
    fclose(f);
    fc_dataset *shard = load(short_path, 0, 2), *only = NULL;
    CHECK(shard && shard->n_series == 2 && fc_dataset_len(shard, 0) == 10 && fc_dataset_len(shard, 1) == 10);
    if (shard) {
        fc_dataset alone_view = fc_dataset_own_view(shard);
        CHECK_MSG(train_alone(&alone_view) == FC_OK, "%s", fc_last_error());
        CHECK(used < sizeof a_and_c && fc_dataset_load_buffer("a_and_c", a_and_c, used, NULL, &only) == FC_OK);
        CHECK(only && train_alone(only) == FC_ERR_INVALID && strstr(fc_last_error(), "fewer than --input-size"));
    }
    fc_dataset_free(&only);
    fc_dataset_free(&shard);
    unlink(short_path);
}

/* A shard needs a streamed load (refused otherwise, saying why); a file
 * with fewer series than shards is kept whole by each. */
static void refusals(const char *path, const fc_dataset *whole) {
    fc_dataset *d = NULL;
    fc_load_options whole_load = {.shard = 0, .shards = 2};
    CHECK(fc_dataset_open(path, &whole_load, &d) == FC_ERR_INVALID && d == NULL);
    CHECK_MSG(strstr(fc_last_error(), "only a streamed load keeps a shard"), "%s", fc_last_error());
    for (size_t s = 0; s < SERIES + 1; s += SERIES) {
        d = load(path, s, SERIES + 1);
        CHECK(d && d->shards == 0 && d->n_series == SERIES && d->n_rows == whole->n_rows);
        if (d) CHECK(memcmp(d->y, whole->y, d->n_rows * sizeof *d->y) == 0);
        fc_dataset_free(&d);
    }
}

int main(void) {
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/panel.csv", dir);
    write_panel(path);
    fc_dataset *whole = load(path, 0, 1);
    CHECK(whole && whole->n_series == SERIES && whole->shards == 0 && whole->n_filled == SERIES);
    if (whole) {
        for (size_t N = 2; N <= MAX_SHARDS; N++) check_shards(path, whole, N);
        fc_dataset *last = load(path, SERIES - 1, SERIES);   /* one series each */
        CHECK(last && last->n_series == 1 && strcmp(last->ids[0], whole->ids[SERIES - 1]) == 0);
        fc_dataset_free(&last);
    }
    if (whole) refusals(path, whole);
    alone_on_the_files_grid(path);
    fc_dataset_free(&whole);
    unlink(path);
    rmdir(dir);
    return CHECK_DONE();
}
