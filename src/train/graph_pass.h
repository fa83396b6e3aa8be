/* A pass of backend calls repeated on the same buffers (a whole training
 * step, an inference chunk's forward), replayed as a graph
 * on backends that have graphs (CUDA graphs; backend.h capture_begin ...):
 * captured on the first call asked to capture, replayed from then on, so
 * the pass costs one launch. On a backend without graphs, with graphs
 * turned off, or after a capture failed, the pass runs as plain calls. */
#ifndef FC_TRAIN_GRAPH_PASS_H
#define FC_TRAIN_GRAPH_PASS_H

#include "backend/backend.h"

typedef struct {
    void *graph;   /* the captured pass, or NULL */
    int off;       /* plain calls only */
    uint64_t key;  /* what the graph was captured for (fc_graph_run_keyed) */
    size_t captures;
} fc_graph_slot;

typedef fc_status (*fc_graph_body)(void *ctx);

/* off: the caller's choice (--cuda-graph off). Graphs are also off on a
 * backend without them and when the environment has FCAST_CUDA_GRAPH=off
 * (commands without the flag: predict, eval). */
void fc_graph_slot_init(fc_graph_slot *s, const fc_backend *be, int off);

/* Runs body(ctx): replays its graph when there is one; captures it first
 * when `capture` (the caller's warm-up is over: every algorithm chosen and
 * buffer allocated); else plain calls. A capture that fails turns the slot
 * off with one warning and runs the pass as plain calls. */
fc_status fc_graph_run(fc_graph_slot *s, fc_backend *be, int capture, fc_graph_body body, void *ctx);

/* fc_graph_run for a pass whose launches take a value that changes now and
 * then (the loss scale in the loss gradient's kernel: a graph keeps the
 * arguments it was captured with): a graph captured for another key is
 * dropped and the pass captured again. */
fc_status fc_graph_run_keyed(fc_graph_slot *s, fc_backend *be, int capture, uint64_t key, fc_graph_body body,
                             void *ctx);

void fc_graph_slot_free(fc_graph_slot *s, fc_backend *be);

#endif
