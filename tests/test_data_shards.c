/* Shards of a streamed file (data/dataset.h), as the ranks of an MPI job
 * keep them, played in one process: shard s of N holds exactly the whole
 * file's series s, s + N, s + 2N, ... with the same values, bit for bit;
 * and the window samplers of the N shards, once their counts are OR-ed
 * together (what fc_dist_merge does across ranks), draw between them
 * exactly the windows one process draws from the whole file, each shard
 * the ones of its own series in draw order: with and without replacement,
 * across epochs, with a validation tail, and after a seek (a resume). A
 * shard training alone (a rank's timing trials) trains on its own series
 * as one process on a file of only those series does, weight for weight. */
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
    fc_window_spec spec = {6, 3, 1, val, 0.2, 0.2, 0};
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

/* The weights of 3 steps of a small MLP trained alone on d. */
static float *train_alone(fc_backend *be, const fc_dataset *d, size_t *n) {
    fc_forecaster f = {.scaler = FC_SCALER_IDENTITY, .loss = {.kind = FC_LOSS_MAE}};
    fc_model_config cfg;
    fc_model_config_default(&cfg, FC_MODEL_MLP, 3, 6);
    cfg.hidden_size = 8;
    fc_train_options o;
    fc_train_options_default(&o);
    o.max_steps = 3, o.windows_batch_size = 16, o.batch_size = 4, o.alone = 1, o.verbose = 0;
    fc_train_summary sum;
    float *w = NULL;
    CHECK(fc_model_create(&cfg, be, &f.model) == FC_OK && fc_model_init_params(f.model, 5) == FC_OK);
    fc_status st = fc_train(&f, d, &o, &sum);
    CHECK_MSG(st == FC_OK, "%s", fc_last_error());
    *n = f.model->n_state;
    if (st == FC_OK && (w = malloc(*n * sizeof *w))) memcpy(w, f.model->params, *n * sizeof *w);
    fc_forecaster_free(&f);
    return w;
}

/* Shard 1 of 3 alone against a file of its series, loaded whole. */
static void alone_is_own_data(const char *path, const fc_dataset *whole) {
    fc_dataset *part = load(path, 1, 3), *own = NULL;
    char own_path[160];
    snprintf(own_path, sizeof own_path, "%s/own.csv", dir);
    FILE *f = fopen(own_path, "w");
    CHECK(part && f);
    if (!part || !f) return;
    fprintf(f, "unique_id,ds,y\n");
    for (size_t g = 1; g < whole->n_series; g += 3)
        for (size_t r = whole->offsets[g]; r < whole->offsets[g + 1]; r++)
            if (whole->mask[r]) fprintf(f, "%s,%ld,%.17g\n", whole->ids[g], (long)whole->ds[r], whole->y[r]);
            else fprintf(f, "%s,%ld,\n", whole->ids[g], (long)whole->ds[r]);
    fclose(f);
    CHECK(fc_dataset_load_csv(own_path, &(fc_load_options){.freq = "1"}, &own) == FC_OK);
    fc_backend *be = NULL;
    CHECK(fc_backend_cpu_create(1, &be) == FC_OK);
    size_t n1 = 0, n2 = 0;
    float *a = own && be ? train_alone(be, part, &n1) : NULL, *b = own && be ? train_alone(be, own, &n2) : NULL;
    CHECK_MSG(a && b && n1 == n2 && memcmp(a, b, n1 * sizeof *a) == 0, "a shard alone: not its own data's weights");
    free(a);
    free(b);
    fc_backend_destroy(&be);
    fc_dataset_free(&own);
    fc_dataset_free(&part);
    unlink(own_path);
}

/* A shard needs a streamed load and a series per shard; each refusal says why. */
static void refusals(const char *path) {
    fc_dataset *d = NULL;
    fc_load_options whole_load = {.shard = 0, .shards = 2};
    CHECK(fc_dataset_open(path, &whole_load, &d) == FC_ERR_INVALID && d == NULL);
    CHECK_MSG(strstr(fc_last_error(), "only a streamed load keeps a shard"), "%s", fc_last_error());
    fc_load_options many = {.stream = 1, .store_dir = dir, .shard = 0, .shards = SERIES + 1};
    CHECK(fc_dataset_open(path, &many, &d) == FC_ERR_INVALID && d == NULL);
    CHECK_MSG(strstr(fc_last_error(), "23 series cannot be shared by 24 ranks") &&
              strstr(fc_last_error(), "run at most 23"), "%s", fc_last_error());
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
    refusals(path);
    if (whole) alone_is_own_data(path, whole);
    fc_dataset_free(&whole);
    unlink(path);
    rmdir(dir);
    return CHECK_DONE();
}
