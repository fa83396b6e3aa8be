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
 * max(1, int(h * min_out)). Starts are in the series' own time axis, so
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
} fc_window_spec;

typedef struct {
    uint32_t series;
    int64_t start;            /* in the series' own time axis */
} fc_window;

typedef struct fc_window_sampler {
    const fc_dataset *ds;
    fc_window_spec spec;
    uint64_t seed;
    size_t batch_size, windows_batch_size;
    size_t T_max;             /* longest training part */
    size_t grid;              /* window starts per series on the padded grid */
    const uint32_t *observed; /* (n_rows + n_series) prefix counts of the mask, per series */
    uint32_t *own_observed;   /* the counts when the dataset has none (freed with the sampler) */
    uint32_t *perm;           /* (N) this epoch's series order */
    size_t epoch, cursor;
    fc_window *cand;          /* (batch_size * grid) candidates of one step */
    size_t total_valid;       /* valid training windows over all series */
} fc_window_sampler;

fc_status fc_window_sampler_init(fc_window_sampler *s, const fc_dataset *ds, const fc_window_spec *spec,
                                 size_t batch_size, size_t windows_batch_size, uint64_t seed);
void fc_window_sampler_free(fc_window_sampler *s);

/* Lists the valid training windows of series i in start order into out
 * (room for s->grid; may be NULL) and returns their count. */
size_t fc_window_sampler_list(const fc_window_sampler *s, size_t i, fc_window *out);

/* Where the sampler stands (epoch, cursor), and a return to such a place:
 * the series order of an epoch is a pure function of (seed, epoch), so this
 * is all a checkpoint needs to continue the same sequence of batches. */
void fc_window_sampler_position(const fc_window_sampler *s, size_t *epoch, size_t *cursor);
void fc_window_sampler_seek(fc_window_sampler *s, size_t epoch, size_t cursor);

/* Draws the windows of training step `step` into out (windows_batch_size). */
void fc_window_sampler_next(fc_window_sampler *s, uint64_t step, fc_window *out);

/* Checks that every series keeps training points after val_size and that
 * the longest is at least L long; sets the longest training length. */
fc_status fc_windows_check(const fc_dataset *ds, const fc_window_spec *spec, size_t *T_max);
/* Bytes a sampler allocates (prefix counts, series order, candidates), with
 * grid = (T_max - L) / step_size + 1 window starts per series. */
size_t fc_window_sampler_bytes(const fc_dataset *ds, size_t batch_size, size_t grid);

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
