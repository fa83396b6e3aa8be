/* A long-format dataset (unique_id, ds, y, exogenous columns...) held as
 * columns: one contiguous value array and per-series offsets, validated once.
 *
 * Series are sorted by unique_id (byte order, as pandas sorts strings) and
 * each series by ds. Missing timestamps inside a series (gaps on the
 * frequency grid) are filled with masked points; an empty or NaN y is a
 * masked point too (neuralforecast's available_mask = 0), stored as y = 0. */
#ifndef FC_DATA_DATASET_H
#define FC_DATA_DATASET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "fcast/status.h"

/* How ds is written in the file. DATE and DATETIME are stored as seconds
 * since 1970-01-01T00:00:00 (no time zone); INDEX as the integer itself. */
typedef enum { FC_DS_INDEX = 0, FC_DS_DATE, FC_DS_DATETIME } fc_ds_kind;

/* FIXED: a constant step in ds units (index steps, or seconds); with a
 * weekday (1 Monday .. 7 Sunday, pandas W-MON .. W-SUN), weeks anchored on
 * that day: every ds falls on it.
 * MONTHS: `step` calendar months, anchored at the month start (pandas MS,
 * QS, YS) or, with month_end, at the month's last day (ME, QE, YE).
 * BDAYS: `step` business days, Monday to Friday (pandas B): a weekend is
 * not a gap, and Friday + 1 is Monday. */
typedef enum { FC_FREQ_FIXED = 0, FC_FREQ_MONTHS, FC_FREQ_BDAYS } fc_freq_unit;

typedef struct {
    fc_freq_unit unit;
    int64_t step;
    int month_end;
    char name[32];       /* FC_FREQ_NAME_MAX (data/freq.h): a pandas-style alias, or an integer step of up to 19 digits */
    int weekday;         /* FIXED weeks: 1..7 the anchor day (W-MON .. W-SUN), 0 none (W, D, h, ...) */
} fc_freq;

typedef struct fc_dataset {
    char *source;        /* file name (or "<memory>"), for messages */
    size_t n_series;
    size_t n_rows;       /* total points, including filled gaps */
    char **ids;          /* (N) unique_id strings */
    size_t *offsets;     /* (N+1) series i holds rows [offsets[i], offsets[i+1]) */
    int64_t *ds;         /* (n_rows) */
    double *y;           /* (n_rows) 0 where masked */
    uint8_t *mask;       /* (n_rows) 1 observed, 0 missing */
    size_t n_exog;
    char **exog_names;   /* (n_exog) */
    double *exog;        /* (n_rows, n_exog) row-major; NaN where empty or filled */
    /* Static exogenous values (neuralforecast's static_df), attached from
     * their own file by fc_dataset_attach_static; 0 / NULL otherwise. */
    size_t n_static;
    char **static_names;     /* (n_static) */
    double *static_values;   /* (n_series, n_static) row-major, in series order */
    fc_ds_kind ds_kind;
    fc_freq freq;
    size_t n_filled;     /* gap points inserted while loading */
    /* Prefix counts of the mask per series, (n_rows + n_series): series i's
     * count before its point t is observed[offsets[i] + i + t]. Kept by a
     * streamed dataset; NULL otherwise (the window sampler counts). */
    uint32_t *observed;
    /* A streamed dataset's columns live in a mapped store file
     * (series_store.h), not on the heap: its mapping, else NULL. */
    void *map;
    size_t map_len;
    /* A shard of a streamed file (fc_load_options.shards > 1: each rank of
     * an MPI job keeps its own, docs/distributed.md). The file has
     * job_series series, sorted as always; this dataset holds those whose
     * index g in that order has g % shards == shard, in order, so its
     * series i is the file's series i * shards + shard. job_longest: the
     * file's longest series (points), which places every series' windows
     * on the training grid. 0 in all four for a whole dataset; a shard's
     * own view (below) has shards 1 and keeps job_longest. */
    size_t shard, shards, job_series, job_longest;
} fc_dataset;

/* The series of the whole file (n_series unless ds is a shard). */
static inline size_t fc_dataset_job_series(const fc_dataset *d) {
    return d->shards > 1 ? d->job_series : d->n_series;
}

/* d as data of its own: a shard's series alone, their windows still on
 * the file's grid (a shard's series may all be shorter than the input
 * size the file's longest allows), for work a rank does without the
 * others, such as timing trials. A shallow copy: it shares d's arrays,
 * and is never freed. */
static inline fc_dataset fc_dataset_own_view(const fc_dataset *d) {
    fc_dataset v = *d;
    v.shard = 0, v.shards = 1, v.job_series = d->n_series;
    return v;
}

/* This dataset's index of the file's series g, or -1 when another shard
 * holds it. */
static inline ptrdiff_t fc_dataset_local_series(const fc_dataset *d, size_t g) {
    if (d->shards <= 1) return (ptrdiff_t)g;
    return g % d->shards == d->shard ? (ptrdiff_t)(g / d->shards) : -1;
}

typedef struct {
    const char *freq;    /* NULL: infer (most common step over all series) */
    int drop_exog;       /* 1: ignore extra columns instead of keeping them */
    int keep_gaps;       /* 1: keep the rows as given, without filling gaps or checking
                          * the grid (prices on trading days indexed by calendar date) */
    int stream;          /* 1: fc_dataset_open streams (fc_dataset_stream_csv) */
    size_t max_heap;     /* streaming: bound on the loader's heap (0: none) */
    const char *store_dir;   /* streaming: where the store file goes (NULL: $TMPDIR, else /var/tmp) */
    int y_optional;      /* 1: a file without a y column loads with every y missing (mask 0); the future
                          * values of exogenous columns for `predict --futr-data` have no target */
    size_t shard, shards;    /* streaming, shards > 1: keep only shard `shard` of the file's series
                              * (fc_dataset.shard), or the whole file when it has fewer series than
                              * shards; the in-memory loader refuses it */
    /* Bounds on the points gap filling makes, which no count of the rows
     * foresees (two rows 57 years apart are a million half-hours). Both
     * loaders know every series' length after filling from its first and
     * last ds, and refuse data past a bound with FC_ERR_MEMORY naming the
     * series that fills the most and its count, before allocating the
     * columns or the store. 0: no bound (fc_fill_limit's ratio to the rows
     * still holds). */
    size_t max_points;       /* points after gap filling, all series together */
    size_t max_fill_bytes;   /* memory the points filling adds may take, at fc_dataset_point_bytes each */
    const char *bound_name;  /* what set the bound, for the message ("max_points", "--memory-limit ...") */
} fc_load_options;

/* Bytes a point of a dataset loaded whole takes: ds, y, mask and its
 * exogenous values (a streamed dataset's are in its store file). */
static inline size_t fc_dataset_point_bytes(size_t n_exog) {
    return sizeof(int64_t) + sizeof(double) + sizeof(uint8_t) + n_exog * sizeof(double);
}

/* Reads and validates a long-format CSV. Errors name the file, line and
 * column: missing column, non-numeric value, duplicate (unique_id, ds),
 * unparsable ds, empty file, ds off the frequency grid. */
fc_status fc_dataset_load_csv(const char *path, const fc_load_options *opt, fc_dataset **out);

/* The same from a buffer (HTTP bodies, tests); `name` stands for the file. */
fc_status fc_dataset_load_buffer(const char *name, const char *text, size_t len,
                                 const fc_load_options *opt, fc_dataset **out);

/* Streams a CSV into a dataset whose columns live in a memory-mapped file
 * (series_store.h) instead of the heap, for data larger than the memory
 * budget. Two passes over the file, each with bounded buffers; the heap
 * holds O(series) (names, offsets, per-series state), never O(rows). Each
 * series' rows must be in increasing ds order (series may interleave);
 * otherwise the error names the line and says how to sort. Gives the same
 * dataset as fc_dataset_load_csv, and the same errors for the same faults.
 * opt->max_heap (0: none) bounds the heap share, which grows with the
 * series: FC_ERR_MEMORY names the series count when it would pass. */
fc_status fc_dataset_stream_csv(const char *path, const fc_load_options *opt, fc_dataset **out);

/* The names in path's header other than unique_id, ds and y, joined with
 * ", " into buf (cut with "..." past cap bytes), and their count: what a
 * command loading with drop_exog leaves out. 0 when the header cannot be
 * read (the loader reports why). */
size_t fc_data_unused_columns(const char *path, char *buf, size_t cap);

/* Reads the static file at path (data/static_table.h) and attaches all
 * its columns to d, replacing any attached before: FC_ERR_INVALID or
 * FC_ERR_PARSE naming the file when it is malformed or lacks a series of d. */
fc_status fc_dataset_attach_static(fc_dataset *d, const char *path);

/* fc_dataset_stream_csv when opt->stream, else fc_dataset_load_csv. */
fc_status fc_dataset_open(const char *path, const fc_load_options *opt, fc_dataset **out);

/* The memory a streamed load of a text_len-byte file with n_series series,
 * whose names take id_bytes in all, keeps at its peak: per-series state,
 * the chunk of parsed rows, and the windows of text and store pages it
 * holds before handing them back. */
size_t fc_dataset_stream_heap(size_t n_series, size_t id_bytes, size_t n_exog, size_t text_len);

/* Hands the pages of a streamed dataset's store that reads have made
 * resident back to the kernel (they are read again from the page cache or
 * the file when touched). A no-op for a dataset on the heap. */
void fc_dataset_release_pages(const fc_dataset *d);

/* The pace of those hand-backs for code that walks a streamed dataset:
 * adds `points` read to *since and hands the pages back whenever `every`
 * have been read since the last time. Walks over whole series use
 * FC_RELEASE_POINTS; walks reading a few points of each series hand back
 * every FC_RELEASE_SERIES series (the memory plan counts both). */
#define FC_RELEASE_POINTS ((size_t)1 << 20)
#define FC_RELEASE_SERIES 256
void fc_dataset_release_every(const fc_dataset *d, size_t *since, size_t points, size_t every);

/* Per-series prefix counts of mask into out (n_rows + n_series), laid out
 * as fc_dataset.observed. */
void fc_mask_prefix_counts(const uint8_t *mask, const size_t *offsets, size_t n_series, uint32_t *out);

void fc_dataset_free(fc_dataset **ds);

/* An empty dataset with zeroed arrays of the given sizes (ids, exog_names
 * and source NULL), for code that builds one in memory. fc_dataset_free
 * frees every array, each ids[i] and exog_names[j], and source. */
fc_status fc_dataset_alloc(size_t n_series, size_t n_rows, size_t n_exog, fc_dataset **out);

/* Index of the series with this unique_id, or -1. */
ssize_t fc_dataset_find(const fc_dataset *ds, const char *id);
/* The same in n names sorted in byte order: a binary search. */
ssize_t fc_ids_find(char *const *ids, size_t n, const char *id);
/* The index of ds value `when` within series s (its points are sorted by
 * ds), or -1: a binary search. */
ssize_t fc_dataset_find_ds(const fc_dataset *d, size_t s, int64_t when);

static inline size_t fc_dataset_len(const fc_dataset *d, size_t s) {
    return d->offsets[s + 1] - d->offsets[s];
}

/* Parses a frequency alias for data whose ds is of `kind`. */
fc_status fc_freq_parse(const char *text, fc_ds_kind kind, fc_freq *out);

/* ds advanced by k steps of f (k may be negative). */
int64_t fc_freq_advance(const fc_freq *f, int64_t ds, int64_t k);

/* Writes ds as the file had it: "17", "2000-06-05", "2000-06-05 00:30:00". */
void fc_ds_format(fc_ds_kind kind, int64_t ds, char *buf, size_t cap);

/* Bytes the dataset's arrays and strings take on the heap (for memory
 * plans; a streamed dataset's columns are not on the heap). */
size_t fc_dataset_bytes(const fc_dataset *d);

/* Before loading: the data rows of a CSV file (its lines less the header)
 * and an estimate of the loader's peak memory for it, from per-row sizes
 * of the loader's stages (about 70 bytes a row; gap filling can add rows).
 * Reads the file once without keeping it resident. */
fc_status fc_csv_load_estimate(const char *path, const fc_load_options *opt, size_t *rows, size_t *bytes);

#endif
