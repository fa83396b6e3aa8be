/* The memory of a training run, planned from its configuration before
 * anything is allocated: every buffer fcast itself allocates, by purpose,
 * with the part that grows with the windows batch, plus a fixed allowance
 * for what is not fcast's: code, the libraries' own state and thread
 * stacks (docs/memory.md). */
#ifndef FC_TRAIN_MEMORY_PLAN_H
#define FC_TRAIN_MEMORY_PLAN_H

#include <stdio.h>

#include "train/forecaster.h"

#define FC_PLAN_MAX_ITEMS 24
/* Code, libraries (oneDNN's generated kernels and primitive objects, the
 * OpenMP runtime, libc) and thread stacks are not fcast's buffers, but a
 * limit must leave room for them: an allowance, measured at 5-12 MiB on the
 * development machine over a run's lifetime (docs/memory.md). */
#define FC_PLAN_ALLOWANCE ((size_t)16 << 20)
#define FC_PLAN_ALLOWANCE_NAME "code and libraries (allowance)"
/* The backend's own memory outside its buffers (fc_backend.context_bytes). */
#define FC_PLAN_CONTEXT_NAME "GPU context and libraries (allowance)"

/* A streamed dataset's store pages that can be resident at once
 * (fc_window_touch_bytes): not allocated, but counted in resident memory. */
#define FC_PLAN_STREAMED_NAME "data pages in use (streamed)"

typedef struct {
    const char *name;
    size_t bytes;
    size_t per_window;        /* share of bytes per window of the batch; 0: fixed */
    int on_backend;           /* allocated through the backend: inside the run's arena */
} fc_plan_item;

typedef struct {
    fc_plan_item items[FC_PLAN_MAX_ITEMS];
    int n;
    size_t windows_batch;     /* the windows_batch_size planned for */
    size_t total;
    size_t per_window;        /* bytes per window over all items */
    size_t backend_bytes;     /* items on the backend: the arena's content */
} fc_memory_plan;

/* The arena a run opens on its backend: the backend items plus the
 * alignment padding of at most FC_PLAN_ARENA_BUFFERS buffers, each aligned
 * to at most FC_PLAN_ARENA_ALIGN bytes (the CUDA backend's 256; the CPU's 64). */
#define FC_PLAN_ARENA_BUFFERS 64
#define FC_PLAN_ARENA_ALIGN 256
static inline size_t fc_memory_plan_arena_bytes(const fc_memory_plan *p) {
    return p->backend_bytes + FC_PLAN_ARENA_ALIGN * FC_PLAN_ARENA_BUFFERS;
}

/* Plans training model m (built by fc_model_plan; its parameters need not
 * be allocated) on ds with options o and backend be. The backend may build
 * and cache its kernels to learn their workspace; no buffer is allocated. */
fc_status fc_memory_plan_train(const fc_model *m, const fc_dataset *ds, const fc_train_options *o,
                               fc_backend *be, fc_memory_plan *p);

/* fc_memory_plan_train for a model of configuration cfg, planned here
 * (fc_model_plan: nothing allocated) and freed after. */
fc_status fc_memory_plan_train_config(const fc_model_config *cfg, const fc_dataset *ds, const fc_train_options *o,
                                      fc_backend *be, fc_memory_plan *p);

/* The bytes of p that trainings side by side in one process share rather
 * than each hold (train/member_pool.h): the dataset, read once, and the
 * allowance for code and libraries. */
size_t fc_memory_plan_shared(const fc_memory_plan *p);

/* The largest windows batch (1 .. FC_MAX_WINDOWS_BATCH) whose plan fits in
 * limit bytes, in *out; 0 when not even one window fits. */
fc_status fc_memory_plan_largest_batch(const fc_model *m, const fc_dataset *ds, const fc_train_options *o,
                                       fc_backend *be, size_t limit, size_t *out);

/* Forecasting every series of ds with m (fcast predict): parameters,
 * activations and batches of one inference chunk, the forecasts. m's
 * parameters may already be allocated; nothing else is. */
fc_status fc_memory_plan_predict(const fc_model *m, const fc_dataset *ds, fc_backend *be, fc_memory_plan *p);

/* The error of a plan over its limit: FC_ERR_MEMORY naming the total, the
 * three biggest items and the largest batch that fits (0: none;
 * FC_PLAN_NO_BATCH_ADVICE: no batch to choose, as in predict). */
#define FC_PLAN_NO_BATCH_ADVICE ((size_t)-1)
fc_status fc_memory_plan_refusal(const fc_memory_plan *p, size_t limit, size_t largest_batch);

/* --memory-limit's text (NULL: no limit, *out 0) into bytes; the error
 * names the flag and the accepted forms. */
fc_status fc_memory_limit_parse(const char *text, size_t *out);


#endif
