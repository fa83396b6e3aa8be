/* Training and validation windows with neuralforecast's semantics
 * (BaseModel._create_windows), gathered lazily from (series, start) pairs
 * into a staging buffer: no window is materialised ahead of time.
 *
 * Training: each series' training part (all but its last val_size points)
 * is padded with h zeros on the right and aligned on the right of the
 * longest training series (left padding, as neuralforecast's loader pads a
 * batch). Windows of L + h start every step_size points of that padded
 * grid; a window is valid when its insample has at least
 * max(1, int(L * min_in)) observed points and its outsample at least
 * max(1, int(h * min_out)). With start padding (neuralforecast's
 * start_padding_enabled) the padded grid also has L - 1 zeros on the left,
 * so windows start up to L - 1 points before the longest series' start
 * and a series shorter than L trains. Starts are in the series' own time axis, so
 * they may be negative (left padding) and the outsample may run past the
 * end (right padding); padded points are 0 with mask 0.
 *
 * Each step draws batch_size series from a per-epoch permutation, then
 * windows_batch_size windows among the valid windows of those series:
 * without replacement when enough exist, uniformly with replacement
 * otherwise (torch.randperm / torch.randint in training_step). */
#ifndef FC_TRAIN_WINDOWS_H
#define FC_TRAIN_WINDOWS_H

#include <stddef.h>
#include <stdint.h>
#include "data/dataset.h"

typedef struct {
    size_t L, H;
    size_t step_size;
    size_t val_size;          /* points held out at the end of every series */
    double min_in_frac, min_out_frac;  /* training_data_availability_threshold */
    size_t test_size;         /* cross-validation: points after the validation part, seen by
                               * neither training nor validation (neuralforecast's test_size) */
    size_t start_pad;         /* zeros padded before every training part: L - 1 with
                               * neuralforecast's start_padding_enabled, else 0 */
} fc_window_spec;

typedef struct {
    uint32_t series;
    int64_t start;            /* in the series' own time axis */
} fc_window;

/* The draws are made over the file's series (fc_dataset_job_series), so
 * the ranks of a job whose datasets are shards (dataset.h) draw the same
 * windows as one process with the whole file would: each step's
 * candidates are numbered over the step's series, the partial
 * Fisher-Yates runs on those numbers, and each rank keeps the windows
 * whose series it holds. A shard lists the windows of its own series; it
 * knows how many every other series has from `counts`, shared once at the
 * start (fc_window_sampler_join). */
typedef struct fc_window_sampler {
    const fc_dataset *ds;
    fc_window_spec spec;
    uint64_t seed;
    size_t batch_size, windows_batch_size;
    int drop_last;            /* 1: an epoch ends before a last batch of fewer than batch_size series */
    size_t T_max;             /* longest training part (of the whole file) */
    size_t grid;              /* window starts per series on the padded grid */
    const uint32_t *observed; /* (n_rows + n_series) prefix counts of the mask, per series */
    uint32_t *own_observed;   /* the counts when the dataset has none (freed with the sampler) */
    uint32_t *perm;           /* (the file's series) this epoch's series order */
    size_t epoch, cursor;
    fc_window *cand;          /* (batch_size * grid) this step's windows of the series held here */
    uint32_t *slot;           /* (batch_size * grid) the draw's candidate numbers */
    size_t *first;            /* (batch_size + 1) number of each step series' first candidate */
    size_t *listed_at;        /* (batch_size) where its windows are in cand, SIZE_MAX if not held here */
    size_t step_series;       /* series in this step's batch */
    uint32_t *counts;         /* a shard's: (the file's series) valid windows of each; NULL whole */
    size_t total_valid;       /* valid training windows over all series (of a shard: after the join) */
} fc_window_sampler;

/* A sampler of ds's windows. For a shard (ds->shards > 1) its counts hold
 * its own series' numbers and zero for the others' until the ranks' are
 * OR-ed together (every series is one rank's) and fc_window_sampler_join
 * is called; it draws nothing before. */
fc_status fc_window_sampler_init(fc_window_sampler *s, const fc_dataset *ds, const fc_window_spec *spec,
                                 size_t batch_size, size_t windows_batch_size, uint64_t seed);
/* neuralforecast's drop_last_loader: every epoch's last batch of series,
 * when it has fewer than batch_size (the series' count is not a multiple
 * of it), is skipped, as torch's DataLoader(drop_last=True) drops it.
 * FC_ERR_INVALID when there are fewer series than batch_size: that
 * loader would yield no batch at all, and Lightning would train nothing. */
fc_status fc_window_sampler_drop_last(fc_window_sampler *s, size_t batch_size);
/* A shard's sampler with every rank's counts in s->counts: their total, and
 * FC_ERR_INVALID when no series has a training window. */
fc_status fc_window_sampler_join(fc_window_sampler *s);
void fc_window_sampler_free(fc_window_sampler *s);

/* Lists the valid training windows of series i in start order into out
 * (room for s->grid; may be NULL) and returns their count. */
size_t fc_window_sampler_list(const fc_window_sampler *s, size_t i, fc_window *out);

/* Where the sampler stands (epoch, cursor), and a return to such a place:
 * the series order of an epoch is a pure function of (seed, epoch), so this
 * is all a checkpoint needs to continue the same sequence of batches. */
void fc_window_sampler_position(const fc_window_sampler *s, size_t *epoch, size_t *cursor);
void fc_window_sampler_seek(fc_window_sampler *s, size_t epoch, size_t cursor);

/* Draws the windows of training step `step`, windows_batch_size over the
 * whole file, and writes those of series held here into out (room for
 * windows_batch_size) in draw order, with this dataset's series indices:
 * returns how many (all of them for a whole dataset). */
size_t fc_window_sampler_next(fc_window_sampler *s, uint64_t step, fc_window *out);

/* Observed points of w's output part within its series' training part:
 * what the training loss's mask sums over for it. */
size_t fc_window_target_points(const fc_window_sampler *s, const fc_window *w);

/* Checks that every series keeps training points after val_size and that
 * the longest is at least L long; sets the longest training length (of
 * the whole file for a shard or its own view, whose own series alone are
 * checked). */
fc_status fc_windows_check(const fc_dataset *ds, const fc_window_spec *spec, size_t *T_max);
/* Bytes a sampler allocates (prefix counts, series order, candidates and
 * their numbers, a shard's counts), with grid = (T_max - L) / step_size + 1
 * window starts per series. */
size_t fc_window_sampler_bytes(const fc_dataset *ds, size_t batch_size, size_t grid);
/* Window starts per series on the padded grid of spec, for a longest
 * training part of T_max points. */
size_t fc_window_grid(const fc_window_spec *spec, size_t T_max);

/* Bytes of a streamed dataset's store that can be resident at once (0
 * for a dataset on the heap). The store's pages are handed back after
 * every batch is gathered, so what coexists is: the sampler's listing of
 * `series_listed` series of at most `longest` points (their prefix
 * counts), and the gathering of `windows` windows of window_len points (y
 * and mask); or the sampler's first count over all series, which hands
 * pages back every 2^20 points. Page-granular, so an upper bound. */
size_t fc_window_touch_bytes(const fc_dataset *ds, size_t series_listed, size_t longest, size_t windows,
                             size_t window_len);

/* Training length of series i (without its validation tail). */
size_t fc_train_length(const fc_dataset *ds, const fc_window_spec *spec, size_t i);

/* Copies the window's L + H values and masks into y and mask (0 outside
 * [0, limit) of the series, where limit is its training or full length). */
void fc_window_gather(const fc_dataset *ds, const fc_window *w, size_t L, size_t H, size_t limit,
                      float *y, float *mask);

/* Validation windows (BaseModel._create_windows, step "val"): from the last
 * L + val_size points of every series, windows every step_size points:
 * floor((val_size - H) / step_size) + 1 per series. Fills out (may be NULL)
 * and returns the count. */
size_t fc_validation_windows(const fc_dataset *ds, const fc_window_spec *spec, fc_window *out);

#endif
