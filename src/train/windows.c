/* Window enumeration, sampling and gathering (see windows.h). */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "core/rng.h"
#include "train/windows.h"

size_t fc_train_length(const fc_dataset *ds, const fc_window_spec *spec, size_t i) {
    size_t n = fc_dataset_len(ds, i);
    size_t held_out = spec->val_size + spec->test_size;
    return n > held_out ? n - held_out : 0;
}

/* Observed points of series i in [a, b), clipped to its training part. */
static uint32_t observed_in(const fc_window_sampler *s, size_t i, int64_t a, int64_t b) {
    int64_t T = (int64_t)fc_train_length(s->ds, &s->spec, i);
    if (a < 0) a = 0;
    if (b > T) b = T;
    if (b <= a) return 0;
    const uint32_t *P = s->observed + s->ds->offsets[i] + i;
    return P[b] - P[a];
}

static int window_valid(const fc_window_sampler *s, size_t i, int64_t start) {
    const fc_window_spec *w = &s->spec;
    uint32_t need_in = (uint32_t)(w->L * w->min_in_frac), need_out = (uint32_t)(w->H * w->min_out_frac);
    if (need_in < 1) need_in = 1;
    if (need_out < 1) need_out = 1;
    int64_t L = (int64_t)w->L, H = (int64_t)w->H;
    return observed_in(s, i, start, start + L) >= need_in &&
           observed_in(s, i, start + L, start + L + H) >= need_out;
}

size_t fc_window_target_points(const fc_window_sampler *s, const fc_window *w) {
    int64_t out = w->start + (int64_t)s->spec.L;
    return observed_in(s, w->series, out, out + (int64_t)s->spec.H);
}

/* Start of grid position g for series i (in the series' time axis). */
static int64_t grid_start(const fc_window_sampler *s, size_t i, size_t g) {
    int64_t pad = (int64_t)s->T_max - (int64_t)fc_train_length(s->ds, &s->spec, i) + (int64_t)s->spec.start_pad;
    return (int64_t)(g * s->spec.step_size) - pad;
}

size_t fc_window_grid(const fc_window_spec *spec, size_t T_max) {
    return (T_max + spec->start_pad - spec->L) / spec->step_size + 1;
}

size_t fc_window_sampler_list(const fc_window_sampler *s, size_t i, fc_window *out) {
    size_t n = 0;
    for (size_t g = 0; g < s->grid; g++) {
        int64_t start = grid_start(s, i, g);
        if (!window_valid(s, i, start)) continue;
        if (out) out[n] = (fc_window){(uint32_t)i, start};
        n++;
    }
    return n;
}

fc_status fc_windows_check(const fc_dataset *ds, const fc_window_spec *spec, size_t *T_max) {
    *T_max = 0;
    for (size_t i = 0; i < ds->n_series; i++) {
        size_t T = fc_train_length(ds, spec, i);
        /* cross-validation keeps a series too short to train on: its later
         * windows are still forecast (neuralforecast trains on the others) */
        if (T == 0 && !spec->test_size)
            return fc_error(FC_ERR_INVALID, "%s: series '%s' has %zu points and --val-size%s holds out %zu: "
                            "no training points left", ds->source, ds->ids[i], fc_dataset_len(ds, i),
                            spec->test_size ? " with the cross-validation windows" : "",
                            spec->val_size + spec->test_size);
        if (T > *T_max) *T_max = T;
    }
    if (ds->job_longest) {   /* the grid is the whole file's: a shard's windows start where one process's do */
        size_t held_out = spec->val_size + spec->test_size;
        *T_max = ds->job_longest > held_out ? ds->job_longest - held_out : 0;
    }
    if (*T_max + spec->start_pad < spec->L)
        return fc_error(FC_ERR_INVALID, "%s: the longest series has %zu training points, fewer than "
                        "--input-size %zu: use a smaller input size or --start-padding", ds->source, *T_max, spec->L);
    return FC_OK;
}

/* A streamed dataset keeps the prefix counts in its store; others get
 * them counted here. */
static size_t prefix_count_bytes(const fc_dataset *ds) {
    return ds->observed ? 0 : (ds->n_rows + ds->n_series) * sizeof(uint32_t);
}

size_t fc_window_sampler_bytes(const fc_dataset *ds, size_t batch_size, size_t grid) {
    size_t N = fc_dataset_job_series(ds), series = batch_size < N ? batch_size : N;
    size_t counts = ds->shards > 1 ? N * sizeof(uint32_t) : 0;
    return prefix_count_bytes(ds) + N * sizeof(uint32_t) + series * grid * (sizeof(fc_window) + sizeof(uint32_t)) +
           (2 * series + 1) * sizeof(size_t) + counts;
}

/* Valid windows over this dataset's series (a shard's counts get each).
 * The count reads every prefix count once: a streamed dataset's pages are
 * handed back as it goes. */
static void count_valid(fc_window_sampler *s) {
    size_t since = 0;
    for (size_t i = 0; i < s->ds->n_series; i++) {
        size_t n = fc_window_sampler_list(s, i, NULL);
        s->total_valid += n;
        if (s->counts) s->counts[i * s->ds->shards + s->ds->shard] = (uint32_t)n;
        fc_dataset_release_every(s->ds, &since, fc_dataset_len(s->ds, i), FC_RELEASE_POINTS);
    }
    fc_dataset_release_pages(s->ds);
}

static fc_status no_windows(const fc_window_sampler *s) {
    return fc_error(FC_ERR_INVALID, "%s: no training window has an observed point in both its %zu "
                    "input and %zu output points", s->ds->source, s->spec.L, s->spec.H);
}

/* Pages a span of n bytes can touch, wherever it starts. */
static size_t span_pages(size_t n, size_t page) {
    return n / page + 2;
}

size_t fc_window_touch_bytes(const fc_dataset *ds, size_t series_listed, size_t longest, size_t windows,
                             size_t window_len) {
    if (!ds->map) return 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t listing = series_listed * span_pages((longest + 1) * sizeof(uint32_t), page);
    size_t gather = windows * (span_pages(window_len * sizeof *ds->y, page) + span_pages(window_len, page));
    size_t first_count = span_pages((2 * FC_RELEASE_POINTS + 2 * longest) * sizeof(uint32_t), page);
    size_t pages = listing + gather > first_count ? listing + gather : first_count;
    return pages * page < ds->map_len ? pages * page : ds->map_len;   /* never more than the whole store */
}

fc_status fc_window_sampler_init(fc_window_sampler *s, const fc_dataset *ds, const fc_window_spec *spec,
                                 size_t batch_size, size_t windows_batch_size, uint64_t seed) {
    memset(s, 0, sizeof *s);
    size_t N = fc_dataset_job_series(ds);
    s->ds = ds;
    s->spec = *spec;
    s->seed = seed;
    s->batch_size = batch_size < N ? batch_size : N;
    s->windows_batch_size = windows_batch_size;
    if (spec->step_size < 1) return fc_error(FC_ERR_INVALID, "--step-size must be >= 1");
    FC_TRY(fc_windows_check(ds, spec, &s->T_max));
    s->grid = fc_window_grid(spec, s->T_max);
    s->own_observed = ds->observed ? NULL : fc_malloc(prefix_count_bytes(ds), "window availability counts");
    s->observed = ds->observed ? ds->observed : s->own_observed;
    s->perm = fc_malloc(N * sizeof(uint32_t), "series order");
    s->cand = fc_malloc(s->batch_size * s->grid * sizeof(fc_window), "window candidates");
    s->slot = fc_malloc(s->batch_size * s->grid * sizeof(uint32_t), "window candidates");
    s->first = fc_malloc((s->batch_size + 1) * sizeof(size_t), "window candidates");
    s->listed_at = fc_malloc(s->batch_size * sizeof(size_t), "window candidates");
    s->counts = ds->shards > 1 ? fc_calloc(N, sizeof(uint32_t), "window counts") : NULL;
    if (!s->observed || !s->perm || !s->cand || !s->slot || !s->first || !s->listed_at ||
        (ds->shards > 1 && !s->counts)) {
        fc_window_sampler_free(s);
        return FC_ERR_MEMORY;
    }
    if (s->own_observed) fc_mask_prefix_counts(ds->mask, ds->offsets, ds->n_series, s->own_observed);
    count_valid(s);
    s->cursor = N;   /* the first call starts epoch 0 */
    s->epoch = (size_t)-1;
    if (s->counts || s->total_valid) return FC_OK;   /* a shard's count is the job's after the join */
    fc_status st = no_windows(s);
    fc_window_sampler_free(s);
    return st;
}

fc_status fc_window_sampler_drop_last(fc_window_sampler *s, size_t batch_size) {
    size_t N = fc_dataset_job_series(s->ds);
    if (N < batch_size)
        return fc_error(FC_ERR_INVALID, "--drop-last with --batch-size %zu and %zu series: every epoch's one batch "
                        "is short and would be dropped, leaving nothing to train on (neuralforecast's loader yields "
                        "no batch); lower --batch-size to at most %zu or leave --drop-last off", batch_size, N, N);
    s->drop_last = 1;
    return FC_OK;
}

fc_status fc_window_sampler_join(fc_window_sampler *s) {
    s->total_valid = 0;
    for (size_t g = 0; g < fc_dataset_job_series(s->ds); g++) s->total_valid += s->counts[g];
    return s->total_valid ? FC_OK : no_windows(s);
}

void fc_window_sampler_free(fc_window_sampler *s) {
    free(s->own_observed);
    free(s->perm);
    free(s->cand);
    free(s->slot);
    free(s->first);
    free(s->listed_at);
    free(s->counts);
    memset(s, 0, sizeof *s);
}

/* A new random order of the series (Fisher-Yates on Philox numbers). */
static void shuffle_series(fc_window_sampler *s) {
    size_t N = fc_dataset_job_series(s->ds);
    s->epoch++;
    s->cursor = 0;
    for (size_t i = 0; i < N; i++) s->perm[i] = (uint32_t)i;
    for (size_t i = N - 1; i > 0; i--) {
        fc_philox_out r = fc_rng_block(s->seed, FC_RNG_STREAM_EPOCH, (uint64_t)s->epoch * N + i);
        size_t j = fc_u32_below(r.v[0], (uint32_t)(i + 1));
        uint32_t t = s->perm[i]; s->perm[i] = s->perm[j]; s->perm[j] = t;
    }
}

void fc_window_sampler_position(const fc_window_sampler *s, size_t *epoch, size_t *cursor) {
    *epoch = s->epoch;
    *cursor = s->cursor;
}

void fc_window_sampler_seek(fc_window_sampler *s, size_t epoch, size_t cursor) {
    if (epoch == (size_t)-1) {              /* before the first draw */
        s->epoch = epoch;
        s->cursor = fc_dataset_job_series(s->ds);
        return;
    }
    s->epoch = epoch - 1;
    shuffle_series(s);                      /* makes epoch `epoch`'s order */
    s->cursor = cursor;
}

/* The candidates of series at step position p: its own listed here, or a
 * shard's count of another's. Returns how many. */
static size_t candidates_of(fc_window_sampler *s, size_t p, uint32_t g, size_t *held) {
    ptrdiff_t i = fc_dataset_local_series(s->ds, g);
    if (i < 0) {
        s->listed_at[p] = SIZE_MAX;
        return s->counts[g];
    }
    size_t n = fc_window_sampler_list(s, (size_t)i, s->cand + *held);
    s->listed_at[p] = *held;
    *held += n;
    return n;
}

/* Valid windows of the next batch of series, numbered in series order;
 * skips batches without any. */
static size_t next_candidates(fc_window_sampler *s) {
    size_t N = fc_dataset_job_series(s->ds);
    for (;;) {
        /* with drop_last, a short last batch ends the epoch instead */
        if (s->cursor >= N || (s->drop_last && s->cursor + s->batch_size > N)) shuffle_series(s);
        size_t end = s->cursor + s->batch_size;
        if (end > N) end = N;   /* the last batch of an epoch is smaller */
        size_t n = 0, held = 0;
        s->step_series = end - s->cursor;
        for (size_t p = 0; p < s->step_series; p++) {
            s->first[p] = n;
            n += candidates_of(s, p, s->perm[s->cursor + p], &held);
        }
        s->first[s->step_series] = n;
        s->cursor = end;
        if (n) return n;
    }
}

/* Candidate j's window into *w when its series is held here. */
static int candidate(const fc_window_sampler *s, size_t j, fc_window *w) {
    size_t lo = 0, hi = s->step_series;   /* first[lo] <= j < first[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->first[mid] <= j) lo = mid;
        else hi = mid;
    }
    if (s->listed_at[lo] == SIZE_MAX) return 0;
    *w = s->cand[s->listed_at[lo] + (j - s->first[lo])];
    return 1;
}

size_t fc_window_sampler_next(fc_window_sampler *s, uint64_t step, fc_window *out) {
    size_t n = next_candidates(s), W = s->windows_batch_size, kept = 0;
    uint64_t base = step * (uint64_t)W;
    if (n >= W)
        for (size_t j = 0; j < n; j++) s->slot[j] = (uint32_t)j;
    for (size_t i = 0; i < W; i++) {
        fc_philox_out r = fc_rng_block(s->seed, FC_RNG_STREAM_WINDOWS, base + i);
        size_t j;
        if (n < W) {                    /* with replacement */
            j = fc_u32_below(r.v[0], (uint32_t)n);
        } else {                        /* partial Fisher-Yates */
            size_t k = i + fc_u32_below(r.v[0], (uint32_t)(n - i));
            uint32_t t = s->slot[i]; s->slot[i] = s->slot[k]; s->slot[k] = t;
            j = s->slot[i];
        }
        kept += candidate(s, j, out + kept);
    }
    return kept;
}

void fc_window_gather(const fc_dataset *ds, const fc_window *w, size_t L, size_t H, size_t limit,
                      float *y, float *mask) {
    size_t base = ds->offsets[w->series];
    for (size_t t = 0; t < L + H; t++) {
        int64_t pos = w->start + (int64_t)t;
        int inside = pos >= 0 && pos < (int64_t)limit;
        size_t r = base + (size_t)(inside ? pos : 0);
        y[t] = inside ? (float)ds->y[r] : 0.0f;
        mask[t] = inside && ds->mask[r] ? 1.0f : 0.0f;
    }
}

size_t fc_validation_windows(const fc_dataset *ds, const fc_window_spec *spec, fc_window *out) {
    if (spec->val_size < spec->H) return 0;
    size_t per = (spec->val_size - spec->H) / spec->step_size + 1, n = 0;
    for (size_t i = 0; i < ds->n_series; i++) {
        int64_t base = (int64_t)fc_dataset_len(ds, i) - (int64_t)(spec->L + spec->val_size + spec->test_size);
        for (size_t k = 0; k < per; k++, n++)
            if (out) out[n] = (fc_window){(uint32_t)i, base + (int64_t)(k * spec->step_size)};
    }
    return n;
}
