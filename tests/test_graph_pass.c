/* fc_graph_run (src/train/graph_pass.c) against a stand-in backend whose
 * "graphs" record the pass's effect during a capture and replay it: a pass
 * runs exactly once per call whatever the path (plain, capture then
 * launch, replay), the body is not called again once captured, warm-up
 * calls run plainly, and a capture that fails runs the pass once, plainly,
 * and turns the slot off. The CUDA implementation of the same contract is
 * checked on a GPU by tests/gpu_parity.sh. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/error.h"
#include "train/graph_pass.h"

typedef struct {
    int recording;      /* inside capture_begin ... capture_end */
    int recorded;       /* increments recorded by the capture */
    int fail_capture;   /* capture_end fails (a call that cannot be captured) */
    int captures, launches, freed;
} fake_graphs;

static fake_graphs g;
static int counter;      /* the pass's effect: +1 per run */
static int body_calls;

static fc_status body(void *ctx) {
    (void)ctx;
    body_calls++;
    if (g.recording) g.recorded++;   /* captured, not run */
    else counter++;
    return FC_OK;
}

static fc_status begin(fc_backend *be) {
    (void)be;
    g.recording = 1;
    g.recorded = 0;
    return FC_OK;
}

static fc_status end(fc_backend *be, void **graph) {
    (void)be;
    g.recording = 0;
    *graph = NULL;
    if (g.fail_capture) return fc_error(FC_ERR_BACKEND, "stand-in: a call could not be captured");
    int *rec = malloc(sizeof *rec);
    *rec = g.recorded;
    *graph = rec;
    g.captures++;
    return FC_OK;
}

static fc_status launch(fc_backend *be, void *graph) {
    (void)be;
    counter += *(int *)graph;
    g.launches++;
    return FC_OK;
}

static void release(fc_backend *be, void *graph) {
    (void)be;
    free(graph);
    g.freed++;
}

static fc_backend fake_backend(void) {
    fc_backend be;
    memset(&be, 0, sizeof be);
    be.name = "fake-graphs";
    be.capture_begin = begin;
    be.capture_end = end;
    be.graph_launch = launch;
    be.graph_free = release;
    return be;
}

static void reset(void) {
    memset(&g, 0, sizeof g);
    counter = body_calls = 0;
}

static void test_warm_capture_replay(void) {
    reset();
    fc_backend be = fake_backend();
    fc_graph_slot s;
    fc_graph_slot_init(&s, &be, 0);
    CHECK(!s.off);
    for (int call = 0; call < 6; call++) CHECK(fc_graph_run(&s, &be, call >= 2, body, NULL) == FC_OK);
    CHECK_MSG(counter == 6, "the pass ran %d times in 6 calls", counter);
    CHECK_MSG(body_calls == 3, "body called %d times: 2 warm-up, 1 capture", body_calls);
    CHECK(g.captures == 1 && g.launches == 4);
    fc_graph_slot_free(&s, &be);
    CHECK(g.freed == 1 && s.graph == NULL);
}

static void test_failed_capture_runs_once_and_turns_off(void) {
    reset();
    fc_backend be = fake_backend();
    g.fail_capture = 1;
    fc_graph_slot s;
    fc_graph_slot_init(&s, &be, 0);
    CHECK(fc_graph_run(&s, &be, 1, body, NULL) == FC_OK);
    CHECK_MSG(counter == 1, "a failed capture ran the pass %d times", counter);
    CHECK(s.off && s.graph == NULL);
    CHECK(fc_graph_run(&s, &be, 1, body, NULL) == FC_OK);
    CHECK(counter == 2 && g.captures == 0 && g.launches == 0);   /* plain from then on */
}

/* A graph keeps the arguments it was captured with: a new key (the loss
 * scale) drops it and captures again; the same key replays. */
static void test_key_change_recaptures(void) {
    reset();
    fc_backend be = fake_backend();
    fc_graph_slot s;
    fc_graph_slot_init(&s, &be, 0);
    uint64_t keys[6] = {7, 7, 7, 9, 9, 7};
    for (int call = 0; call < 6; call++) CHECK(fc_graph_run_keyed(&s, &be, call >= 1, keys[call], body, NULL) == FC_OK);
    CHECK_MSG(counter == 6, "the pass ran %d times in 6 calls", counter);
    /* call 0 plain; 1 captures (key 7), 2 replays; 3 recaptures (9), 4 replays; 5 recaptures (7) */
    CHECK_MSG(g.captures == 3 && s.captures == 3, "%d captures", g.captures);
    CHECK_MSG(g.launches == 5 && g.freed == 2, "%d launches, %d graphs freed", g.launches, g.freed);
    fc_graph_slot_free(&s, &be);
    CHECK(g.freed == 3);
}

static void test_off(void) {
    reset();
    fc_backend be = fake_backend();
    fc_graph_slot s;
    fc_graph_slot_init(&s, &be, 1);   /* --cuda-graph off */
    for (int call = 0; call < 3; call++) CHECK(fc_graph_run(&s, &be, 1, body, NULL) == FC_OK);
    CHECK(s.off && counter == 3 && body_calls == 3 && g.captures == 0);
    fc_backend none = fake_backend();
    none.capture_begin = NULL;        /* a backend without graphs (the CPU) */
    fc_graph_slot_init(&s, &none, 0);
    CHECK(s.off);
    setenv("FCAST_CUDA_GRAPH", "off", 1);
    fc_graph_slot_init(&s, &be, 0);
    CHECK(s.off);
    unsetenv("FCAST_CUDA_GRAPH");
}

int main(void) {
    test_warm_capture_replay();
    test_failed_capture_runs_once_and_turns_off();
    test_key_change_recaptures();
    test_off();
    return CHECK_DONE();
}
