/* The streaming loader (fc_dataset_stream_csv, see dataset.h): the same
 * dataset as the in-memory loader, with the heap holding O(series).
 *
 * Pass 1 parses the file in chunks and keeps, per series, its row count
 * and its first and last points, checks that each series' rows come in
 * increasing ds order, and feeds the frequency inference. Between the
 * passes: the frequency, the series order, every series' length after gap
 * filling, and the store file sized for them. Pass 2 parses the file again
 * and writes each row, and the missing points before it, at its series'
 * cursor in the store. As in the in-memory loader, the mapped text is
 * handed back as it is parsed; the store's written pages are handed back
 * every STORE_RELEASE_ROWS points, so neither stays resident. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "data/raw_table.h"
#include "data/series_store.h"
#include "data/text_map.h"

#define CHUNK_ROWS 16384
#define STORE_RELEASE_ROWS 1024
#define TEXT_WINDOW ((size_t)16 << 20)   /* dataset_parse.c's release step */

typedef struct {
    fc_grid_point first, last;
    size_t rows;
} series_scan;

typedef struct {
    size_t next;          /* points written */
    fc_grid_point prev;   /* the last row written */
} series_cursor;

typedef struct {
    const char *text;
    size_t len;
    fc_load_options opt;
    const char *source;
    size_t max_heap;
    fc_raw_table t;             /* the pass's table: chunks of rows, and the interned ids */
    fc_freq_counter counter;    /* started on the first row, when ds's kind is known */
    int counting;
    series_scan *scan;          /* (ids) pass 1, by interned id */
    size_t scan_cap;
    uint32_t *series_of_id, *id_of_series;
    series_cursor *cursor;      /* (N) pass 2, by the dataset's series */
    char **job_ids;             /* (the file's series) sorted names: pass 2 places a row by its name;
                                 * the dataset's ids, or a shard's copies of all */
    size_t since_release;
    struct timespec mtime;      /* the file's, when it was mapped */
    fc_dataset *d;
} stream_state;

size_t fc_dataset_stream_heap(size_t n_series, size_t id_bytes, size_t n_exog, size_t text_len) {
    /* Per series: interned id (offset, length, hash, two hash slots), its
     * scan (in an array that doubles), its order both ways, its cursor,
     * the dataset's name pointer and offset; the names twice (interned and
     * the dataset's copy). Per chunk
     * row: series 4, ds 8, y 8, mask 1, line 8 and the exogenous values.
     * The text keeps at most a window resident, and so does the store (a
     * store row takes at most 4x the bytes of the shortest CSV row). */
    size_t per_series = 8 + 4 + 8 + 8 + 2 * sizeof(series_scan) + 8 + sizeof(series_cursor) + 8 + 8;
    size_t chunk = CHUNK_ROWS * (29 + 8 * n_exog);
    size_t text = text_len < TEXT_WINDOW ? text_len : TEXT_WINDOW;
    size_t store = STORE_RELEASE_ROWS * (3 + n_exog) * (size_t)sysconf(_SC_PAGESIZE);
    store = store < 4 * text_len ? store : 4 * text_len;
    return n_series * per_series + 2 * (id_bytes + n_series) + chunk + text + store;
}

static const char *id_name(const stream_state *s, uint32_t id) {
    return fc_id_table_str(&s->t.ids, id);
}

/* The heap grows with the series, found as pass 1 goes: it stops once
 * they alone would pass max_heap. */
static fc_status check_heap(const stream_state *s) {
    size_t need = fc_dataset_stream_heap(s->t.ids.n, s->t.ids.chars_len, s->t.n_exog, s->len);
    if (!s->max_heap || need <= s->max_heap) return FC_OK;
    size_t buffers = fc_dataset_stream_heap(0, 0, s->t.n_exog, s->len);
    return fc_error(FC_ERR_MEMORY, "%s: streaming needs about %.1f MiB: %.1f MiB of buffers and %.1f MiB for the "
                    "names and state of the %zu series found so far; the memory limit leaves %.1f MiB for loading",
                    s->source, need / 1048576.0, buffers / 1048576.0, (need - buffers) / 1048576.0, s->t.ids.n,
                    s->max_heap / 1048576.0);
}

/* Streaming cannot sort: a row earlier in time than its series' previous
 * row is an error that says how to fix the file. */
static fc_status order_error(const stream_state *s, uint32_t id, const fc_grid_point *at) {
    char name[64], when[40], before[40];
    const char *text = id_name(s, id);
    fc_quote_field(text, strlen(text), name, sizeof name);
    fc_ds_format(s->t.kind, at->ds, when, sizeof when);
    fc_ds_format(s->t.kind, s->scan[id].last.ds, before, sizeof before);
    return fc_raw_error(&s->t, FC_ERR_PARSE, at->line, s->t.col_ds,
                        "%s comes after %s (line %zu) in series %s: loading in a stream (data larger than "
                        "the memory limit) needs each series' rows in increasing ds order; sort the file "
                        "by unique_id and ds, or raise the memory limit to load it whole",
                        when, before, s->scan[id].last.line, name);
}

static fc_status scan_row(stream_state *s, size_t r, size_t *n_seen) {
    const fc_raw_table *t = &s->t;
    uint32_t id = t->series[r];
    fc_grid_point at = {t->ds[r], t->line[r]};
    if (!s->counting) {
        fc_freq_counter_init(&s->counter, t->kind);
        s->counting = 1;
    }
    fc_freq_counter_point(&s->counter, at.ds);
    if (id == *n_seen) {   /* ids are numbered in order of first appearance */
        if (id == s->scan_cap) {
            size_t cap = s->scan_cap ? 2 * s->scan_cap : 1024;
            series_scan *grown = fc_realloc(s->scan, cap * sizeof *grown, "series state");
            if (!grown) return FC_ERR_MEMORY;
            s->scan = grown;
            s->scan_cap = cap;
        }
        s->scan[id] = (series_scan){at, at, 1};
        (*n_seen)++;
        return FC_OK;
    }
    series_scan *sc = &s->scan[id];
    if (at.ds == sc->last.ds) return fc_raw_duplicate_error(t, id_name(s, id), at.ds, at.line, sc->last.line);
    if (at.ds < sc->last.ds) return order_error(s, id, &at);
    FC_TRY(fc_freq_counter_step(&s->counter, sc->last.ds, at.ds));
    sc->last = at;
    sc->rows++;
    return FC_OK;
}

/* Runs one pass over the text: `row` for every parsed row. */
static fc_status each_row(stream_state *s, fc_status (*row)(stream_state *, size_t, size_t *), size_t *arg) {
    fc_csv_reader r;
    int end = 0;
    memset(&s->t, 0, sizeof s->t);
    s->t.source = s->source;
    s->t.opt = s->opt;
    s->t.file_map = s->len ? s->text : NULL;
    fc_status st = fc_raw_table_begin(&s->t, &r, s->text, s->len);
    while (st == FC_OK && !end) {
        s->t.n_rows = 0;
        st = fc_raw_table_read(&s->t, &r, CHUNK_ROWS, &end);
        for (size_t i = 0; i < s->t.n_rows && st == FC_OK; i++) st = row(s, i, arg);
        if (st == FC_OK) st = check_heap(s);
    }
    fc_csv_free(&r);
    fc_text_map_release(s->text, s->len);   /* the parser hands back only whole 16 MiB steps */
    return st;
}

/* Points of a series after gap filling; 0 when its last point is off the
 * grid of its first (pass 2 then finds the first row that is off). */
static size_t grid_length(const stream_state *s, const fc_freq *f, const series_scan *sc) {
    size_t points;
    if (s->opt.keep_gaps || sc->rows == 1) return sc->rows;
    return fc_freq_grid_points(f, sc->first.ds, sc->last.ds, &points) ? points : 0;
}

/* Series id as pass 1 saw it; off its grid, it counts its rows (pass 2
 * reports it). */
static fc_series_span series_span(const stream_state *s, const fc_freq *f, uint32_t id) {
    const series_scan *sc = &s->scan[id];
    size_t len = grid_length(s, f, sc);
    return (fc_series_span){id_name(s, id), sc->first, sc->last, sc->rows, len > sc->rows ? len : sc->rows};
}

/* The caller's bounds on the points after gap filling (fc_load_options),
 * before the ratio to the rows and before the store is made, as the
 * in-memory loader checks them. */
static fc_status check_bounds(const stream_state *s, const fc_freq *f) {
    if ((!s->opt.max_points && !s->opt.max_fill_bytes) || s->t.ids.n == 0) return FC_OK;
    size_t total = 0;
    fc_series_span widest = series_span(s, f, 0);
    for (uint32_t id = 0; id < s->t.ids.n; id++) {
        fc_series_span sp = series_span(s, f, id);
        total = total > SIZE_MAX - sp.points ? SIZE_MAX : total + sp.points;
        if (sp.points - sp.rows > widest.points - widest.rows) widest = sp;
    }
    return fc_fill_bounds_check(&s->t, f, s->t.rows_read, total, &widest);
}

/* Gap filling past fc_fill_limit is refused before the store is made; the
 * message names the series with the most points to fill. */
static fc_status fill_error(const stream_state *s, const fc_freq *f) {
    size_t worst = 0, most = 0;
    for (uint32_t id = 0; id < s->t.ids.n; id++) {
        size_t n = grid_length(s, f, &s->scan[id]), fill = n > s->scan[id].rows ? n - s->scan[id].rows : 0;
        if (fill > most) most = fill, worst = id;
    }
    const series_scan *sc = &s->scan[worst];
    char name[64], a[40], b[40], freq[FC_FREQ_NAME_MAX];
    fc_freq_format(f, s->t.kind, freq, sizeof freq);
    fc_quote_field(id_name(s, (uint32_t)worst), strlen(id_name(s, (uint32_t)worst)), name, sizeof name);
    fc_ds_format(s->t.kind, sc->first.ds, a, sizeof a);
    fc_ds_format(s->t.kind, sc->last.ds, b, sizeof b);
    return fc_raw_error(&s->t, FC_ERR_PARSE, sc->last.line, s->t.col_ds,
                        "series %s runs from %s (line %zu) to %s on the %s grid with %zu rows: its %zu missing "
                        "points are too many to fill; check the timestamps or pass a coarser frequency",
                        name, a, sc->first.line, b, freq, sc->rows, most);
}

static char *copy_string(const char *text) {
    size_t n = strlen(text) + 1;
    char *p = fc_malloc(n, "dataset strings");
    if (p) memcpy(p, text, n);
    return p;
}

/* Of a file with N series: the shard's names (a shard copies them all for
 * pass 2's lookup), its longest series, and its series count. A file with
 * fewer series than shards stays whole: every shard would not get one. */
static fc_status make_shard(stream_state *s, const fc_freq *f, size_t N) {
    fc_dataset *d = s->d;
    size_t shards = s->opt.shards;
    if (s->opt.shard >= shards)
        return fc_error(FC_ERR_INVALID, "%s: shard %zu of %zu does not exist", s->source, s->opt.shard, shards);
    if (N < shards) return FC_OK;
    d->shard = s->opt.shard, d->shards = shards, d->job_series = N;
    if (!(s->job_ids = fc_calloc(N, sizeof *s->job_ids, "series ids"))) return FC_ERR_MEMORY;
    for (size_t g = 0; g < N; g++) {
        const series_scan *sc = &s->scan[s->id_of_series[g]];
        size_t len = grid_length(s, f, sc);
        d->job_longest = len > d->job_longest ? len : d->job_longest;
        if (!(s->job_ids[g] = copy_string(id_name(s, s->id_of_series[g])))) return FC_ERR_MEMORY;
    }
    d->n_series = (N - d->shard + shards - 1) / shards;
    return FC_OK;
}

/* The dataset's heap part: names, offsets, frequency; columns in the store. */
static fc_status make_dataset(stream_state *s, const fc_freq *f) {
    const fc_raw_table *t = &s->t;
    fc_dataset *d = fc_calloc(1, sizeof *d, "dataset");
    if (!d) return FC_ERR_MEMORY;
    s->d = d;
    d->n_series = t->ids.n;
    if (s->opt.shards > 1) FC_TRY(make_shard(s, f, t->ids.n));
    size_t N = d->n_series, step = d->shards > 1 ? d->shards : 1;
    d->n_exog = t->n_exog;
    d->ds_kind = t->kind;
    d->freq = *f;
    if (!(d->source = copy_string(s->source))) return FC_ERR_MEMORY;
    d->ids = fc_calloc(N, sizeof *d->ids, "series ids");
    d->offsets = fc_calloc(N + 1, sizeof *d->offsets, "series offsets");
    d->exog_names = fc_calloc(t->n_exog, sizeof *d->exog_names, "exogenous names");
    if (!d->ids || !d->offsets || !d->exog_names) return FC_ERR_MEMORY;
    for (size_t j = 0; j < t->n_exog; j++)
        if (!(d->exog_names[j] = copy_string(t->col_names[t->exog_cols[j]]))) return FC_ERR_MEMORY;
    for (size_t i = 0; i < N; i++) {
        uint32_t id = s->id_of_series[i * step + d->shard];
        if (!(d->ids[i] = copy_string(id_name(s, id)))) return FC_ERR_MEMORY;
        d->offsets[i + 1] = d->offsets[i] + grid_length(s, f, &s->scan[id]);
    }
    d->n_rows = d->offsets[N];
    if (!s->job_ids) s->job_ids = d->ids;
    return FC_OK;
}

/* Between the passes: frequency, order, lengths, and the store. */
static fc_status plan_store(stream_state *s) {
    fc_freq f = {0};
    size_t N = s->t.ids.n, total = 0;
    FC_TRY(fc_raw_table_freq(&s->t, &s->counter, &f));
    s->series_of_id = fc_malloc(N * sizeof *s->series_of_id, "series order");
    s->id_of_series = fc_malloc(N * sizeof *s->id_of_series, "series order");
    if (!s->series_of_id || !s->id_of_series) return FC_ERR_MEMORY;
    FC_TRY(fc_id_table_order(&s->t.ids, s->series_of_id, s->id_of_series));
    FC_TRY(check_bounds(s, &f));
    size_t limit = fc_fill_limit(s->t.rows_read, s->t.n_exog);
    for (uint32_t id = 0; id < N; id++) {
        size_t len = grid_length(s, &f, &s->scan[id]);
        if (len > limit || total > limit - len) return fill_error(s, &f);   /* no sum that can wrap */
        total += len;
    }
    FC_TRY(make_dataset(s, &f));
    if (!(s->cursor = fc_calloc(s->d->n_series, sizeof *s->cursor, "series cursors"))) return FC_ERR_MEMORY;
    return fc_series_store_create(s->d, s->opt.store_dir);
}

static fc_status changed_error(const stream_state *s) {
    return fc_error(FC_ERR_IO, "%s: the file changed while it was read", s->source);
}

#define OTHER_SHARD UINT32_MAX   /* series_of_id in pass 2: a series another shard keeps */

/* Pass 2 numbers the ids afresh, in its own order of first appearance: a
 * new id is placed by its name, so a file that changed between the passes
 * is an error, never one series' rows written into another's place. */
static fc_status map_pass2_id(stream_state *s, uint32_t id, size_t *n_seen) {
    if (id < *n_seen) return FC_OK;
    size_t N = fc_dataset_job_series(s->d);
    ssize_t g = id < N ? fc_ids_find(s->job_ids, N, id_name(s, id)) : -1;
    if (g < 0) return changed_error(s);
    ptrdiff_t local = fc_dataset_local_series(s->d, (size_t)g);
    s->series_of_id[id] = local < 0 ? OTHER_SHARD : (uint32_t)local;
    (*n_seen)++;
    return FC_OK;
}

/* Counts a written point, handing the store's written pages back every
 * STORE_RELEASE_ROWS points. */
static void count_written(stream_state *s) {
    fc_dataset_release_every(s->d, &s->since_release, 1, STORE_RELEASE_ROWS);
}

/* Missing points between the cursor's last row and the next, `steps` away.
 * A series with no room (off the grid, see grid_length) is only checked. */
static void place_missing(stream_state *s, series_cursor *c, size_t base, size_t room, int64_t steps) {
    fc_dataset *d = s->d;
    if (steps <= 1) return;
    if (room == 0) {   /* an off-grid series is only checked: count its gap, do not walk it */
        c->next += (size_t)(steps - 1);
        return;
    }
    for (int64_t k = 1; k < steps && c->next < room; k++, c->next++, d->n_filled++) {
        fc_dataset_put_missing(d, base + c->next, fc_freq_advance(&d->freq, c->prev.ds, k));
        count_written(s);
    }
}

static fc_status place_row(stream_state *s, size_t r, size_t *n_seen) {
    const fc_raw_table *t = &s->t;
    fc_dataset *d = s->d;
    if (t->n_exog != d->n_exog) return changed_error(s);
    FC_TRY(map_pass2_id(s, t->series[r], n_seen));
    if (s->series_of_id[t->series[r]] == OTHER_SHARD) return FC_OK;   /* its shard checks and keeps it */
    size_t series = s->series_of_id[t->series[r]], base = d->offsets[series];
    size_t room = d->offsets[series + 1] - base;   /* 0 for a series pass 1 found off the grid */
    series_cursor *c = &s->cursor[series];
    fc_grid_point at = {t->ds[r], t->line[r]};
    int64_t steps = 1;
    if (!s->opt.keep_gaps && c->next == 0 && !fc_freq_is_anchor(&d->freq, at.ds))
        return fc_raw_off_grid_error(t, &d->freq, d->ids[series], &at, NULL, "", "");
    if (!s->opt.keep_gaps && c->next > 0 && !fc_freq_steps_between(&d->freq, c->prev.ds, at.ds, &steps))
        return fc_raw_off_grid_error(t, &d->freq, d->ids[series], &at, &c->prev, "off",
                                     "fix the timestamp or pass a finer frequency");
    place_missing(s, c, base, room, steps);
    if (c->next < room) {
        fc_dataset_put_row(d, base + c->next, t, r);
        count_written(s);
    }
    c->next++;
    c->prev = at;
    return FC_OK;
}

/* After pass 2: every series filled exactly, and the mask's prefix counts
 * for the window sampler, a series at a time. */
static fc_status finish_store(stream_state *s) {
    fc_dataset *d = s->d;
    for (size_t i = 0; i < d->n_series; i++) {
        size_t len = fc_dataset_len(d, i);
        if (s->cursor[i].next != len)
            return fc_error(FC_ERR_IO, "%s: series '%s' has %zu points on the second reading, %zu on the "
                            "first: the file changed while it was read",
                            s->source, d->ids[i], s->cursor[i].next, len);
        fc_mask_prefix_counts(d->mask, d->offsets + i, 1, d->observed + i);
        fc_dataset_release_every(d, &s->since_release, len, FC_RELEASE_POINTS);
    }
    fc_series_store_seal(d);
    return FC_OK;
}

/* The file as pass 1 found it (size and modification time); pass 2 reads
 * it only if it is still so. */
static fc_status unchanged(const stream_state *s) {
    struct stat now;
    if (stat(s->source, &now) != 0 || (size_t)now.st_size != s->len || now.st_mtim.tv_sec != s->mtime.tv_sec ||
        now.st_mtim.tv_nsec != s->mtime.tv_nsec)
        return changed_error(s);
    return FC_OK;
}

static fc_status stream_text(stream_state *s) {
    size_t n_seen = 0;
    FC_TRY(each_row(s, scan_row, &n_seen));
    FC_TRY(plan_store(s));
    free(s->scan);
    s->scan = NULL;
    size_t n_cols = s->t.n_cols;
    fc_raw_table_free(&s->t);
    n_seen = 0;
    FC_TRY(unchanged(s));
    FC_TRY(each_row(s, place_row, &n_seen));
    if (s->t.n_cols != n_cols || s->t.n_exog != s->d->n_exog || s->t.ids.n != fc_dataset_job_series(s->d))
        return changed_error(s);
    return finish_store(s);
}

fc_status fc_dataset_stream_csv(const char *path, const fc_load_options *opt, fc_dataset **out) {
    stream_state s = {.source = path};
    if (opt) s.opt = *opt;
    s.max_heap = s.opt.max_heap;
    *out = NULL;
    struct stat before;
    fc_status st = stat(path, &before) == 0 ? FC_OK : fc_error(FC_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    s.mtime = before.st_mtim;
    if (st == FC_OK) st = fc_text_map_open(path, &s.text, &s.len);
    if (st == FC_OK && s.len != (size_t)before.st_size) st = changed_error(&s);
    if (st == FC_OK) st = stream_text(&s);
    fc_text_map_close(s.text, s.len);
    fc_raw_table_free(&s.t);
    fc_freq_counter_free(&s.counter);
    free(s.scan);
    free(s.series_of_id);
    free(s.id_of_series);
    free(s.cursor);
    if (s.job_ids && (!s.d || s.job_ids != s.d->ids)) {
        for (size_t g = 0; s.d && g < s.d->job_series; g++) free(s.job_ids[g]);
        free(s.job_ids);
    }
    if (st == FC_OK) *out = s.d;
    else fc_dataset_free(&s.d);
    return st;
}
