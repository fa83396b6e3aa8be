/* Passes replayed as graphs (see graph_pass.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "train/graph_pass.h"

void fc_graph_slot_init(fc_graph_slot *s, const fc_backend *be, int off) {
    const char *env = getenv("FCAST_CUDA_GRAPH");
    s->graph = NULL;
    s->key = 0;
    s->captures = 0;
    s->off = off || !be->capture_begin || (env && !strcmp(env, "off"));
}

/* Nothing of a failed capture ran (backend.h), so the pass runs again. */
static fc_status capture(fc_graph_slot *s, fc_backend *be, fc_graph_body body, void *ctx) {
    fc_status st = be->capture_begin(be);
    if (st == FC_OK) {
        fc_status ran = body(ctx);
        st = be->capture_end(be, &s->graph);
        if (st == FC_OK && ran != FC_OK) st = ran;
    }
    if (st == FC_OK) {
        s->captures++;
        return FC_OK;
    }
    if (s->graph) be->graph_free(be, s->graph);
    s->graph = NULL;
    s->off = 1;
    fprintf(stderr, "warning: CUDA graphs off for this run (passes run as plain launches): %s\n", fc_last_error());
    return st;
}

fc_status fc_graph_run(fc_graph_slot *s, fc_backend *be, int capture_now, fc_graph_body body, void *ctx) {
    if (s->off || (!s->graph && !capture_now)) return body(ctx);
    if (!s->graph && capture(s, be, body, ctx) != FC_OK) return body(ctx);
    return be->graph_launch(be, s->graph);
}

fc_status fc_graph_run_keyed(fc_graph_slot *s, fc_backend *be, int capture_now, uint64_t key, fc_graph_body body,
                             void *ctx) {
    if (s->graph && s->key != key) fc_graph_slot_free(s, be);
    s->key = key;
    return fc_graph_run(s, be, capture_now, body, ctx);
}

void fc_graph_slot_free(fc_graph_slot *s, fc_backend *be) {
    if (s->graph) be->graph_free(be, s->graph);
    s->graph = NULL;
}
