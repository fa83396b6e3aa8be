/* What a CUDA graph of a training step freezes, checked on the CPU.
 *
 * trainer.c captures a whole training step (step_body) as one CUDA graph
 * and replays it from then on. A graph keeps every launch with the
 * arguments it had at capture time; only what the launches read from
 * backend memory is current at a replay. Anything the host changes between
 * steps (the learning rate, Adam's step count, the windows, the loss
 * scale's inverse) must therefore reach the step through backend memory,
 * or a replay silently trains with stale values. The CUDA backend cannot
 * run here, so this test wraps the CPU backend in a recording backend
 * whose graphs behave as CUDA's:
 *
 *   - between capture_begin and capture_end each call of a capturable
 *     entry is not run but recorded as a closure with a copy of its
 *     arguments by value (the structs fc_linear_call and fc_window_batch
 *     too, as the CUDA backend passes them to kernels); buffer pointers
 *     stay pointers, read at replay as a GPU reads device memory;
 *   - a call a capture cannot hold (copies, sync, allocation, a result for
 *     the host) invalidates the capture: capture_end fails;
 *   - graph_launch replays the closures in order on the CPU backend;
 *   - every entry the CPU fills is wrapped (checked when the recorder is
 *     made), PatchTST's too: gelu, attention, batch_norm, revin_patch and
 *     revin_denorm, forward and backward; none may run with the wrapper as
 *     its `be`, nor at once inside a capture.
 *
 * Then:
 *   1. small models trained 30 steps from one seed on the plain CPU
 *      backend, on the recorder with graphs off (every call forwarded) and
 *      on the recorder with graphs on end with the same bits: parameters,
 *      the summary (losses, gradient norm, skipped steps, loss scale), and
 *      every byte the trainer read back from the backend, step by step; and
 *      the graphs did run: captured at the first step past the warm-up,
 *      launched at every step from then on, no capture failed. N-HiTS in
 *      fp32 with accumulation, validation between steps (its forward is a
 *      graph of its own) and StepLR decays; in fp16 with clipping, whose
 *      loss scaler backs off at replayed steps (each new scale, the graph's
 *      key, is a new capture); in bf16 with clipping and the robust scaler;
 *      N-BEATS, whose bases are matrix products (gemm); PatchTST (attention,
 *      BatchNorm, RevIN and patching, GELU: entries of their own) with
 *      neuralforecast's defaults (post-norm, RevIN subtracting the last
 *      value, residual attention, GELU) and with pre-norm, RevIN's affine,
 *      no score chain and ReLU, both with validation, dropout 0 (any
 *      dropout turns the trainer's step graphs off). The parameters
 *      compared are the whole block, so also BatchNorm's running
 *      statistics and counters, state the replayed step graphs update and
 *      the validation graph reads (each counter must equal the training
 *      forwards behind the weights kept);
 *   2. negative controls, so that the comparisons can fail: a host value
 *      passed as an argument is frozen at its capture-time value while one
 *      in backend memory is current; a recorder that freezes the
 *      optimizer's scalars (as if the trainer passed them as a kernel
 *      argument) trains different bits; a pass that reads results on the
 *      host during a capture fails the capture and runs once, plainly
 *      (graph_pass.h's contract). */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_ops.h"
#include "check.h"
#include "core/error.h"
#include "kernels/optimizer_step.h"
#include "kernels/window_load.h"
#include "train/forecaster.h"
#include "train/graph_pass.h"
#include "test_sines.h"

/* trainer.c's FC_GRAPH_FROM_STEP: the steps before it run as plain calls. */
enum { GRAPH_FROM_STEP = 2 };

/* ------------------------------------------------------------------ */
/* The recording backend                                               */
/* ------------------------------------------------------------------ */

/* A recorded call: the entry's body and a copy of its arguments. */
typedef fc_status (*replay_fn)(fc_backend *cpu, const void *args);

typedef struct rec_call {
    replay_fn run;
    struct rec_call *next;
    max_align_t args[];   /* the arguments struct, copied at record time */
} rec_call;

typedef struct {
    rec_call *head, **tail;
    size_t n_calls, gemms;
    int is_step;          /* holds an optimizer_step: a training step's graph */
} rec_graph;

/* One recorder at a time: its state is global, as the counts the test reads. */
static struct {
    fc_backend *cpu;            /* the real backend every call runs on */
    rec_graph *recording;       /* the capture under way, or NULL */
    const char *invalidated_by; /* the first uncapturable call of this capture */
    int freeze_step_in;         /* negative control: optimizer_step's scalars copied at record time */
    size_t captures, failed_captures, launches, live_graphs, uncapturable_calls;
    size_t step_captures, step_launches, step_calls, step_gemms;   /* graphs of training steps */
    uint64_t read_hash;         /* FNV-1a of every byte to_host returned */
    size_t reads;
} R;

static void recorder_reset_counts(void) {
    R.captures = R.failed_captures = R.launches = R.uncapturable_calls = 0;
    R.step_captures = R.step_launches = R.step_calls = R.step_gemms = 0;
    R.read_hash = 14695981039346656037ull;
    R.reads = 0;
}

static fc_status optimizer_step_run(fc_backend *cpu, const void *p);
static fc_status gemm_run(fc_backend *cpu, const void *p);

/* Runs an entry now or, inside a capture, appends it to the graph with its
 * arguments copied: what a CUDA graph does with a launch. Recorded calls
 * return FC_OK, as a launch queued in a capture does. */
static fc_status call(replay_fn run, const void *args, size_t size) {
    if (!R.recording) return run(R.cpu, args);
    rec_call *c = malloc(offsetof(rec_call, args) + size);
    if (!c) return fc_error(FC_ERR_MEMORY, "recording backend: out of memory");
    c->run = run;
    c->next = NULL;
    memcpy(c->args, args, size);
    *R.recording->tail = c;
    R.recording->tail = &c->next;
    R.recording->n_calls++;
    if (run == optimizer_step_run) R.recording->is_step = 1;
    if (run == gemm_run) R.recording->gemms++;
    return FC_OK;
}

/* A call no CUDA capture can hold (a copy, a sync, an allocation, a result
 * for the host): it invalidates the capture under way. It still runs, so
 * the caller sees sane values and nothing crashes. */
static void uncapturable(const char *entry) {
    if (!R.recording) return;
    R.uncapturable_calls++;
    if (!R.invalidated_by) R.invalidated_by = entry;
}

static void graph_release(rec_graph *g) {
    for (rec_call *c = g->head, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(g);
}

/* ---- graphs ---- */

static fc_status rec_capture_begin(fc_backend *be) {
    (void)be;
    if (R.recording) return fc_error(FC_ERR_BACKEND, "recording backend: a capture is already under way");
    rec_graph *g = calloc(1, sizeof *g);
    if (!g) return fc_error(FC_ERR_MEMORY, "recording backend: out of memory");
    g->tail = &g->head;
    R.recording = g;
    R.invalidated_by = NULL;
    return FC_OK;
}

static fc_status rec_capture_end(fc_backend *be, void **graph) {
    (void)be;
    rec_graph *g = R.recording;
    *graph = NULL;
    if (!g) return fc_error(FC_ERR_BACKEND, "recording backend: capture_end without capture_begin");
    R.recording = NULL;
    if (R.invalidated_by) {   /* as cudaStreamEndCapture of an invalidated capture */
        graph_release(g);
        R.failed_captures++;
        return fc_error(FC_ERR_BACKEND, "recording backend: %s cannot be captured", R.invalidated_by);
    }
    R.captures++;
    R.live_graphs++;
    if (g->is_step) {
        R.step_captures++;
        R.step_calls = g->n_calls;
        R.step_gemms = g->gemms;
    }
    *graph = g;
    return FC_OK;
}

static fc_status rec_graph_launch(fc_backend *be, void *graph) {
    (void)be;
    rec_graph *g = graph;
    for (const rec_call *c = g->head; c; c = c->next) FC_TRY(c->run(R.cpu, c->args));
    R.launches++;
    if (g->is_step) R.step_launches++;
    return FC_OK;
}

static void rec_graph_free(fc_backend *be, void *graph) {
    (void)be;
    if (!graph) return;
    graph_release(graph);
    R.live_graphs--;
}

/* ---- capturable entries: arguments by value, run now or recorded ---- */

typedef struct { float *x; float value; size_t n; } fill_args;
static fc_status fill_run(fc_backend *cpu, const void *p) {
    const fill_args *a = p;
    cpu->fill(cpu, a->x, a->value, a->n);
    return FC_OK;
}
static void rec_fill(fc_backend *be, float *x, float value, size_t n) {
    (void)be;
    call(fill_run, &(fill_args){x, value, n}, sizeof(fill_args));
}

typedef struct { float *x; float s; size_t n; } scale_args;
static fc_status scale_run(fc_backend *cpu, const void *p) {
    const scale_args *a = p;
    cpu->scale(cpu, a->x, a->s, a->n);
    return FC_OK;
}
static void rec_scale(fc_backend *be, float *x, float s, size_t n) {
    (void)be;
    call(scale_run, &(scale_args){x, s, n}, sizeof(scale_args));
}

typedef struct { void *dst; const float *src; size_t n; fc_precision prec; } round_args;
static fc_status round_run(fc_backend *cpu, const void *p) {
    const round_args *a = p;
    cpu->round_to(cpu, a->dst, a->src, a->n, a->prec);
    return FC_OK;
}
static void rec_round_to(fc_backend *be, void *dst, const float *src, size_t n, fc_precision prec) {
    (void)be;
    call(round_run, &(round_args){dst, src, n, prec}, sizeof(round_args));
}

/* The layer's call struct is copied: the CUDA backend bakes it into its
 * cuBLASLt calls and kernel arguments at capture. */
typedef struct { fc_linear_call c; } linear_args;
static fc_status linear_forward_run(fc_backend *cpu, const void *p) {
    const linear_args *a = p;
    return cpu->linear_forward(cpu, &a->c);
}
static fc_status rec_linear_forward(fc_backend *be, const fc_linear_call *c) {
    (void)be;
    return call(linear_forward_run, &(linear_args){*c}, sizeof(linear_args));
}

typedef struct { fc_linear_call c; float *dy; void *dy_low; float *dx, *dw, *db; } linear_back_args;
static fc_status linear_backward_run(fc_backend *cpu, const void *p) {
    const linear_back_args *a = p;
    return cpu->linear_backward(cpu, &a->c, a->dy, a->dy_low, a->dx, a->dw, a->db);
}
static fc_status rec_linear_backward(fc_backend *be, const fc_linear_call *c, float *dy, void *dy_low, float *dx,
                                     float *dw, float *db) {
    (void)be;
    return call(linear_backward_run, &(linear_back_args){*c, dy, dy_low, dx, dw, db}, sizeof(linear_back_args));
}

typedef struct {
    int trans_a, trans_b;
    size_t M, N, K;
    float alpha;
    const float *A;
    size_t lda;
    const float *Bm;
    size_t ldb;
    float beta;
    float *C;
    size_t ldc;
} gemm_args;
static fc_status gemm_run(fc_backend *cpu, const void *p) {
    const gemm_args *a = p;
    return cpu->gemm(cpu, a->trans_a, a->trans_b, a->M, a->N, a->K, a->alpha, a->A, a->lda, a->Bm, a->ldb, a->beta,
                     a->C, a->ldc);
}
static fc_status rec_gemm(fc_backend *be, int trans_a, int trans_b, size_t M, size_t N, size_t K, float alpha,
                          const float *A, size_t lda, const float *Bm, size_t ldb, float beta, float *C, size_t ldc) {
    (void)be;
    gemm_args a = {trans_a, trans_b, M, N, K, alpha, A, lda, Bm, ldb, beta, C, ldc};
    return call(gemm_run, &a, sizeof a);
}

typedef struct { float *y; int32_t *argmax; const float *x; size_t B, L, k; } pool_fwd_args;
static fc_status pool_fwd_run(fc_backend *cpu, const void *p) {
    const pool_fwd_args *a = p;
    cpu->maxpool1d_forward(cpu, a->y, a->argmax, a->x, a->B, a->L, a->k);
    return FC_OK;
}
static void rec_maxpool1d_forward(fc_backend *be, float *y, int32_t *argmax, const float *x, size_t B, size_t L,
                                  size_t k) {
    (void)be;
    call(pool_fwd_run, &(pool_fwd_args){y, argmax, x, B, L, k}, sizeof(pool_fwd_args));
}

typedef struct { float *dx; const float *dy; const int32_t *argmax; size_t B, L, k; } pool_bwd_args;
static fc_status pool_bwd_run(fc_backend *cpu, const void *p) {
    const pool_bwd_args *a = p;
    cpu->maxpool1d_backward(cpu, a->dx, a->dy, a->argmax, a->B, a->L, a->k);
    return FC_OK;
}
static void rec_maxpool1d_backward(fc_backend *be, float *dx, const float *dy, const int32_t *argmax, size_t B,
                                   size_t L, size_t k) {
    (void)be;
    call(pool_bwd_run, &(pool_bwd_args){dx, dy, argmax, B, L, k}, sizeof(pool_bwd_args));
}

/* Interpolation forward and backward share a layout: out (ldo), in (ldi). */
typedef struct { float *out; size_t ldo; const float *in; size_t ldi, B, n_in, n_out; } interp_args;
static fc_status interp_fwd_run(fc_backend *cpu, const void *p) {
    const interp_args *a = p;
    cpu->interp_linear_forward(cpu, a->out, a->ldo, a->in, a->ldi, a->B, a->n_in, a->n_out);
    return FC_OK;
}
static void rec_interp_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B,
                               size_t n_in, size_t n_out) {
    (void)be;
    call(interp_fwd_run, &(interp_args){y, ldy, x, ldx, B, n_in, n_out}, sizeof(interp_args));
}
static fc_status interp_bwd_run(fc_backend *cpu, const void *p) {
    const interp_args *a = p;
    cpu->interp_linear_backward(cpu, a->out, a->ldo, a->in, a->ldi, a->B, a->n_in, a->n_out);
    return FC_OK;
}
static void rec_interp_backward(fc_backend *be, float *dx, size_t ldx, const float *dy, size_t ldy, size_t B,
                                size_t n_in, size_t n_out) {
    (void)be;
    call(interp_bwd_run, &(interp_args){dx, ldx, dy, ldy, B, n_in, n_out}, sizeof(interp_args));
}
static fc_status nearest_fwd_run(fc_backend *cpu, const void *p) {
    const interp_args *a = p;
    cpu->interp_nearest_forward(cpu, a->out, a->ldo, a->in, a->ldi, a->B, a->n_in, a->n_out);
    return FC_OK;
}
static void rec_nearest_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B,
                                size_t n_in, size_t n_out) {
    (void)be;
    call(nearest_fwd_run, &(interp_args){y, ldy, x, ldx, B, n_in, n_out}, sizeof(interp_args));
}
static fc_status nearest_bwd_run(fc_backend *cpu, const void *p) {
    const interp_args *a = p;
    cpu->interp_nearest_backward(cpu, a->out, a->ldo, a->in, a->ldi, a->B, a->n_in, a->n_out);
    return FC_OK;
}
static void rec_nearest_backward(fc_backend *be, float *dx, size_t ldx, const float *dy, size_t ldy, size_t B,
                                 size_t n_in, size_t n_out) {
    (void)be;
    call(nearest_bwd_run, &(interp_args){dx, ldx, dy, ldy, B, n_in, n_out}, sizeof(interp_args));
}
static fc_status cubic_fwd_run(fc_backend *cpu, const void *p) {
    const interp_args *a = p;
    cpu->interp_cubic_forward(cpu, a->out, a->ldo, a->in, a->ldi, a->B, a->n_in, a->n_out);
    return FC_OK;
}
static void rec_cubic_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B,
                                size_t n_in, size_t n_out) {
    (void)be;
    call(cubic_fwd_run, &(interp_args){y, ldy, x, ldx, B, n_in, n_out}, sizeof(interp_args));
}
static fc_status cubic_bwd_run(fc_backend *cpu, const void *p) {
    const interp_args *a = p;
    cpu->interp_cubic_backward(cpu, a->out, a->ldo, a->in, a->ldi, a->B, a->n_in, a->n_out);
    return FC_OK;
}
static void rec_cubic_backward(fc_backend *be, float *dx, size_t ldx, const float *dy, size_t ldy, size_t B,
                                 size_t n_in, size_t n_out) {
    (void)be;
    call(cubic_bwd_run, &(interp_args){dx, ldx, dy, ldy, B, n_in, n_out}, sizeof(interp_args));
}

typedef struct { float *y; size_t ldy; const float *x; size_t ldx, B, L; } flip_args;
static fc_status flip_run(fc_backend *cpu, const void *p) {
    const flip_args *a = p;
    cpu->flip_rows(cpu, a->y, a->ldy, a->x, a->ldx, a->B, a->L);
    return FC_OK;
}
static void rec_flip_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t L) {
    (void)be;
    call(flip_run, &(flip_args){y, ldy, x, ldx, B, L}, sizeof(flip_args));
}

typedef struct { float *y; size_t ldy; float alpha; const float *x; size_t ldx; float beta; size_t B, C; } axpby_args;
static fc_status axpby_run(fc_backend *cpu, const void *p) {
    const axpby_args *a = p;
    cpu->axpby_rows(cpu, a->y, a->ldy, a->alpha, a->x, a->ldx, a->beta, a->B, a->C);
    return FC_OK;
}
static void rec_axpby_rows(fc_backend *be, float *y, size_t ldy, float alpha, const float *x, size_t ldx, float beta,
                           size_t B, size_t C) {
    (void)be;
    call(axpby_run, &(axpby_args){y, ldy, alpha, x, ldx, beta, B, C}, sizeof(axpby_args));
}

typedef struct { float *y; size_t ldy; const float *m; size_t ldm, B, C; } mul_args;
static fc_status mul_run(fc_backend *cpu, const void *p) {
    const mul_args *a = p;
    cpu->mul_rows(cpu, a->y, a->ldy, a->m, a->ldm, a->B, a->C);
    return FC_OK;
}
static void rec_mul_rows(fc_backend *be, float *y, size_t ldy, const float *m, size_t ldm, size_t B, size_t C) {
    (void)be;
    call(mul_run, &(mul_args){y, ldy, m, ldm, B, C}, sizeof(mul_args));
}

typedef struct { float *y; const float *x; size_t ldx, col, B, C; } bcast_args;
static fc_status bcast_run(fc_backend *cpu, const void *p) {
    const bcast_args *a = p;
    cpu->broadcast_col(cpu, a->y, a->x, a->ldx, a->col, a->B, a->C);
    return FC_OK;
}
static void rec_broadcast_col(fc_backend *be, float *y, const float *x, size_t ldx, size_t col, size_t B, size_t C) {
    (void)be;
    call(bcast_run, &(bcast_args){y, x, ldx, col, B, C}, sizeof(bcast_args));
}

typedef struct { float *x; size_t ldx, col; const float *dy; size_t B, C; } sum_col_args;
static fc_status sum_col_run(fc_backend *cpu, const void *p) {
    const sum_col_args *a = p;
    cpu->sum_rows_into_col(cpu, a->x, a->ldx, a->col, a->dy, a->B, a->C);
    return FC_OK;
}
static void rec_sum_rows_into_col(fc_backend *be, float *x, size_t ldx, size_t col, const float *dy, size_t B,
                                  size_t C) {
    (void)be;
    call(sum_col_run, &(sum_col_args){x, ldx, col, dy, B, C}, sizeof(sum_col_args));
}

typedef struct { float *y; size_t ldy; const float *x; size_t ldx, B, A, C; } transpose_args;
static fc_status transpose_run(fc_backend *cpu, const void *p) {
    const transpose_args *a = p;
    cpu->transpose_rows(cpu, a->y, a->ldy, a->x, a->ldx, a->B, a->A, a->C);
    return FC_OK;
}
static void rec_transpose_rows(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t A,
                               size_t C) {
    (void)be;
    call(transpose_run, &(transpose_args){y, ldy, x, ldx, B, A, C}, sizeof(transpose_args));
}

typedef struct { float *gates; size_t ldg; const float *c_prev; float *c; size_t ldc; float *h; size_t ldh, B, H; }
    lstm_fwd_args;
static fc_status lstm_fwd_run(fc_backend *cpu, const void *p) {
    const lstm_fwd_args *a = p;
    cpu->lstm_cell_forward(cpu, a->gates, a->ldg, a->c_prev, a->c, a->ldc, a->h, a->ldh, a->B, a->H);
    return FC_OK;
}
static void rec_lstm_cell_forward(fc_backend *be, float *gates, size_t ldg, const float *c_prev, float *c, size_t ldc,
                                  float *h, size_t ldh, size_t B, size_t H) {
    (void)be;
    call(lstm_fwd_run, &(lstm_fwd_args){gates, ldg, c_prev, c, ldc, h, ldh, B, H}, sizeof(lstm_fwd_args));
}

typedef struct {
    float *dgates;
    size_t lddg;
    const float *gates;
    size_t ldg;
    const float *c_prev, *c;
    size_t ldc;
    const float *dh;
    size_t ldh;
    float *dc;
    size_t lddc, B, H;
} lstm_bwd_args;
static fc_status lstm_bwd_run(fc_backend *cpu, const void *p) {
    const lstm_bwd_args *a = p;
    cpu->lstm_cell_backward(cpu, a->dgates, a->lddg, a->gates, a->ldg, a->c_prev, a->c, a->ldc, a->dh, a->ldh, a->dc,
                            a->lddc, a->B, a->H);
    return FC_OK;
}
static void rec_lstm_cell_backward(fc_backend *be, float *dgates, size_t lddg, const float *gates, size_t ldg,
                                   const float *c_prev, const float *c, size_t ldc, const float *dh, size_t ldh,
                                   float *dc, size_t lddc, size_t B, size_t H) {
    (void)be;
    lstm_bwd_args a = {dgates, lddg, gates, ldg, c_prev, c, ldc, dh, ldh, dc, lddc, B, H};
    call(lstm_bwd_run, &a, sizeof a);
}

typedef struct {
    float *y;
    size_t ldy;
    const float *x;
    size_t ldx;
    const float *gamma, *beta;
    float *mean, *rstd;
    size_t B, D;
    float eps;
} ln_fwd_args;
static fc_status ln_fwd_run(fc_backend *cpu, const void *p) {
    const ln_fwd_args *a = p;
    cpu->layer_norm_forward(cpu, a->y, a->ldy, a->x, a->ldx, a->gamma, a->beta, a->mean, a->rstd, a->B, a->D, a->eps);
    return FC_OK;
}
static void rec_layer_norm_forward(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, const float *gamma,
                                   const float *beta, float *mean, float *rstd, size_t B, size_t D, float eps) {
    (void)be;
    ln_fwd_args a = {y, ldy, x, ldx, gamma, beta, mean, rstd, B, D, eps};
    call(ln_fwd_run, &a, sizeof a);
}

typedef struct {
    float *dx;
    size_t lddx;
    const float *dy;
    size_t lddy;
    const float *x;
    size_t ldx;
    const float *gamma, *mean, *rstd;
    float *dgamma, *dbeta;
    size_t B, D;
} ln_bwd_args;
static fc_status ln_bwd_run(fc_backend *cpu, const void *p) {
    const ln_bwd_args *a = p;
    cpu->layer_norm_backward(cpu, a->dx, a->lddx, a->dy, a->lddy, a->x, a->ldx, a->gamma, a->mean, a->rstd, a->dgamma,
                             a->dbeta, a->B, a->D);
    return FC_OK;
}
static void rec_layer_norm_backward(fc_backend *be, float *dx, size_t lddx, const float *dy, size_t lddy,
                                    const float *x, size_t ldx, const float *gamma, const float *mean,
                                    const float *rstd, float *dgamma, float *dbeta, size_t B, size_t D) {
    (void)be;
    ln_bwd_args a = {dx, lddx, dy, lddy, x, ldx, gamma, mean, rstd, dgamma, dbeta, B, D};
    call(ln_bwd_run, &a, sizeof a);
}

/* seed and offset are arguments: frozen in a graph, as a kernel's are (a
 * caller that replays a step graph must keep its dropout offsets in
 * backend memory or key the graph by them). */
typedef struct { float *y; size_t ldy; const float *x; size_t ldx, B, C; float p; uint64_t seed, offset; }
    dropout_args;
static fc_status dropout_run(fc_backend *cpu, const void *p) {
    const dropout_args *a = p;
    cpu->dropout(cpu, a->y, a->ldy, a->x, a->ldx, a->B, a->C, a->p, a->seed, a->offset);
    return FC_OK;
}
static void rec_dropout(fc_backend *be, float *y, size_t ldy, const float *x, size_t ldx, size_t B, size_t C, float p,
                        uint64_t seed, uint64_t offset) {
    (void)be;
    call(dropout_run, &(dropout_args){y, ldy, x, ldx, B, C, p, seed, offset}, sizeof(dropout_args));
}

/* PatchTST's entries. The attention's dropout arguments (p, seed, offset)
 * are frozen as dropout's are; BatchNorm's training flag, momentum and eps
 * too (a graph of a training step trains, one of a validation forward
 * does not), while its running statistics and counter are backend memory,
 * read and updated at every replay. */
/* IQLoss's head: its call frozen by value, as a graph freezes a kernel's
 * arguments (the buffers it points at are read at every replay). */
typedef struct { fc_iq_call call; } iq_args;
static fc_status iq_fwd_run(fc_backend *cpu, const void *p) {
    cpu->iq_head_forward(cpu, &((const iq_args *)p)->call);
    return FC_OK;
}
static fc_status iq_bwd_run(fc_backend *cpu, const void *p) {
    cpu->iq_head_backward(cpu, &((const iq_args *)p)->call);
    return FC_OK;
}
static void rec_iq_head_forward(fc_backend *be, const fc_iq_call *c) {
    (void)be;
    call(iq_fwd_run, &(iq_args){*c}, sizeof(iq_args));
}
static void rec_iq_head_backward(fc_backend *be, const fc_iq_call *c) {
    (void)be;
    call(iq_bwd_run, &(iq_args){*c}, sizeof(iq_args));
}
typedef struct { float *tau; size_t n; uint64_t seed; float c0, c1; } iq_taus_args;
static fc_status iq_taus_run(fc_backend *cpu, const void *p) {
    const iq_taus_args *a = p;
    cpu->iq_taus(cpu, a->tau, a->n, a->seed, a->c0, a->c1);
    return FC_OK;
}
static void rec_iq_taus(fc_backend *be, float *tau, size_t n, uint64_t seed, float c0, float c1) {
    (void)be;
    call(iq_taus_run, &(iq_taus_args){tau, n, seed, c0, c1}, sizeof(iq_taus_args));
}

typedef struct { float *y; const float *x; size_t n; } gelu_fwd_args;
static fc_status gelu_fwd_run(fc_backend *cpu, const void *p) {
    const gelu_fwd_args *a = p;
    cpu->gelu_forward(cpu, a->y, a->x, a->n);
    return FC_OK;
}
static void rec_gelu_forward(fc_backend *be, float *y, const float *x, size_t n) {
    (void)be;
    call(gelu_fwd_run, &(gelu_fwd_args){y, x, n}, sizeof(gelu_fwd_args));
}

typedef struct { float *dx; const float *dy, *x; size_t n; } gelu_bwd_args;
static fc_status gelu_bwd_run(fc_backend *cpu, const void *p) {
    const gelu_bwd_args *a = p;
    cpu->gelu_backward(cpu, a->dx, a->dy, a->x, a->n);
    return FC_OK;
}
static void rec_gelu_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t n) {
    (void)be;
    call(gelu_bwd_run, &(gelu_bwd_args){dx, dy, x, n}, sizeof(gelu_bwd_args));
}

typedef struct {
    float *out;
    size_t ldo;
    float *scores, *probs;
    const float *prev, *q, *k, *v;
    size_t ldq, B, P, H, E;
    float scale, p;
    uint64_t seed, offset;
} attn_fwd_args;
static fc_status attn_fwd_run(fc_backend *cpu, const void *p) {
    const attn_fwd_args *a = p;
    cpu->attention_forward(cpu, a->out, a->ldo, a->scores, a->probs, a->prev, a->q, a->k, a->v, a->ldq, a->B, a->P,
                           a->H, a->E, a->scale, a->p, a->seed, a->offset);
    return FC_OK;
}
static void rec_attention_forward(fc_backend *be, float *out, size_t ldo, float *scores, float *probs,
                                  const float *prev, const float *q, const float *k, const float *v, size_t ldq,
                                  size_t B, size_t P, size_t H, size_t E, float scale, float p, uint64_t seed,
                                  uint64_t offset) {
    (void)be;
    attn_fwd_args a = {out, ldo, scores, probs, prev, q, k, v, ldq, B, P, H, E, scale, p, seed, offset};
    call(attn_fwd_run, &a, sizeof a);
}

typedef struct {
    float *dq, *dk, *dv;
    size_t lddq;
    float *dscores;
    const float *probs, *q, *k, *v;
    size_t ldq;
    const float *dout;
    size_t ldo, B, P, H, E;
    float scale, p;
    uint64_t seed, offset;
} attn_bwd_args;
static fc_status attn_bwd_run(fc_backend *cpu, const void *p) {
    const attn_bwd_args *a = p;
    cpu->attention_backward(cpu, a->dq, a->dk, a->dv, a->lddq, a->dscores, a->probs, a->q, a->k, a->v, a->ldq,
                            a->dout, a->ldo, a->B, a->P, a->H, a->E, a->scale, a->p, a->seed, a->offset);
    return FC_OK;
}
static void rec_attention_backward(fc_backend *be, float *dq, float *dk, float *dv, size_t lddq, float *dscores,
                                   const float *probs, const float *q, const float *k, const float *v, size_t ldq,
                                   const float *dout, size_t ldo, size_t B, size_t P, size_t H, size_t E, float scale,
                                   float p, uint64_t seed, uint64_t offset) {
    (void)be;
    attn_bwd_args a = {dq, dk, dv, lddq, dscores, probs, q, k, v, ldq, dout, ldo, B, P, H, E, scale, p, seed, offset};
    call(attn_bwd_run, &a, sizeof a);
}

typedef struct {
    float *y;
    const float *x;
    size_t N, C;
    const float *gamma, *beta;
    float *running_mean, *running_var, *batches, *mean, *rstd;
    int training;
    float momentum, eps;
} bn_fwd_args;
static fc_status bn_fwd_run(fc_backend *cpu, const void *p) {
    const bn_fwd_args *a = p;
    cpu->batch_norm_forward(cpu, a->y, a->x, a->N, a->C, a->gamma, a->beta, a->running_mean, a->running_var,
                            a->batches, a->mean, a->rstd, a->training, a->momentum, a->eps);
    return FC_OK;
}
static void rec_batch_norm_forward(fc_backend *be, float *y, const float *x, size_t N, size_t C, const float *gamma,
                                   const float *beta, float *running_mean, float *running_var, float *batches,
                                   float *mean, float *rstd, int training, float momentum, float eps) {
    (void)be;
    bn_fwd_args a = {y, x, N, C, gamma, beta, running_mean, running_var, batches, mean, rstd, training, momentum, eps};
    call(bn_fwd_run, &a, sizeof a);
}

typedef struct {
    float *dx;
    const float *dy, *x;
    size_t N, C;
    const float *gamma, *mean, *rstd;
    float *dgamma, *dbeta;
} bn_bwd_args;
static fc_status bn_bwd_run(fc_backend *cpu, const void *p) {
    const bn_bwd_args *a = p;
    cpu->batch_norm_backward(cpu, a->dx, a->dy, a->x, a->N, a->C, a->gamma, a->mean, a->rstd, a->dgamma, a->dbeta);
    return FC_OK;
}
static void rec_batch_norm_backward(fc_backend *be, float *dx, const float *dy, const float *x, size_t N, size_t C,
                                    const float *gamma, const float *mean, const float *rstd, float *dgamma,
                                    float *dbeta) {
    (void)be;
    bn_bwd_args a = {dx, dy, x, N, C, gamma, mean, rstd, dgamma, dbeta};
    call(bn_bwd_run, &a, sizeof a);
}

typedef struct {
    float *patches, *stats;
    const float *x;
    size_t ldx, B, L, patch_len, stride, P;
    int revin, subtract_last;
    const float *affine;
    float eps;
} revin_patch_fwd_args;
static fc_status revin_patch_fwd_run(fc_backend *cpu, const void *p) {
    const revin_patch_fwd_args *a = p;
    cpu->revin_patch_forward(cpu, a->patches, a->stats, a->x, a->ldx, a->B, a->L, a->patch_len, a->stride, a->P,
                             a->revin, a->subtract_last, a->affine, a->eps);
    return FC_OK;
}
static void rec_revin_patch_forward(fc_backend *be, float *patches, float *stats, const float *x, size_t ldx,
                                    size_t B, size_t L, size_t patch_len, size_t stride, size_t P, int revin,
                                    int subtract_last, const float *affine, float eps) {
    (void)be;
    revin_patch_fwd_args a = {patches, stats, x, ldx, B, L, patch_len, stride, P, revin, subtract_last, affine, eps};
    call(revin_patch_fwd_run, &a, sizeof a);
}

typedef struct {
    float *daffine;
    const float *dpatches, *stats, *x;
    size_t ldx, B, L, patch_len, stride, P;
    const float *affine;
} revin_patch_bwd_args;
static fc_status revin_patch_bwd_run(fc_backend *cpu, const void *p) {
    const revin_patch_bwd_args *a = p;
    cpu->revin_patch_backward(cpu, a->daffine, a->dpatches, a->stats, a->x, a->ldx, a->B, a->L, a->patch_len,
                              a->stride, a->P, a->affine);
    return FC_OK;
}
static void rec_revin_patch_backward(fc_backend *be, float *daffine, const float *dpatches, const float *stats,
                                     const float *x, size_t ldx, size_t B, size_t L, size_t patch_len, size_t stride,
                                     size_t P, const float *affine) {
    (void)be;
    revin_patch_bwd_args a = {daffine, dpatches, stats, x, ldx, B, L, patch_len, stride, P, affine};
    call(revin_patch_bwd_run, &a, sizeof a);
}

typedef struct { float *y; const float *stats; size_t B, n; const float *affine; float eps; } revin_denorm_fwd_args;
static fc_status revin_denorm_fwd_run(fc_backend *cpu, const void *p) {
    const revin_denorm_fwd_args *a = p;
    cpu->revin_denorm_forward(cpu, a->y, a->stats, a->B, a->n, a->affine, a->eps);
    return FC_OK;
}
static void rec_revin_denorm_forward(fc_backend *be, float *y, const float *stats, size_t B, size_t n,
                                     const float *affine, float eps) {
    (void)be;
    call(revin_denorm_fwd_run, &(revin_denorm_fwd_args){y, stats, B, n, affine, eps}, sizeof(revin_denorm_fwd_args));
}

typedef struct {
    float *dz;
    const float *dy, *y, *stats;
    size_t B, n;
    const float *affine;
    float *daffine;
    float eps;
} revin_denorm_bwd_args;
static fc_status revin_denorm_bwd_run(fc_backend *cpu, const void *p) {
    const revin_denorm_bwd_args *a = p;
    cpu->revin_denorm_backward(cpu, a->dz, a->dy, a->y, a->stats, a->B, a->n, a->affine, a->daffine, a->eps);
    return FC_OK;
}
static void rec_revin_denorm_backward(fc_backend *be, float *dz, const float *dy, const float *y, const float *stats,
                                      size_t B, size_t n, const float *affine, float *daffine, float eps) {
    (void)be;
    revin_denorm_bwd_args a = {dz, dy, y, stats, B, n, affine, daffine, eps};
    call(revin_denorm_bwd_run, &a, sizeof a);
}

/* first, divisor and grad_scale are arguments: frozen in a graph (grad_scale
 * is why the trainer keys its step graph by the loss scale). */
typedef struct {
    double *d_loss;
    int first;
    double divisor;
    float *grad;
    float grad_scale;
    fc_loss_call call;   /* by value: its spec is frozen with the call, as in a graph */
} loss_args;
static fc_status loss_run(fc_backend *cpu, const void *p) {
    const loss_args *a = p;
    cpu->masked_loss(cpu, a->d_loss, a->first, a->divisor, a->grad, a->grad_scale, &a->call);
    return FC_OK;
}
static void rec_masked_loss(fc_backend *be, double *d_loss, int first, double divisor, float *grad, float grad_scale,
                            const fc_loss_call *c) {
    (void)be;
    loss_args a = {d_loss, first, divisor, grad, grad_scale, *c};
    call(loss_run, &a, sizeof a);
}

typedef struct {
    float *p;
    const float *g;
    float *m, *v;
    size_t n;
    float lr, beta1, beta2, eps, weight_decay;
    int kind;
    int64_t step;
} adam_args;
static fc_status adam_run(fc_backend *cpu, const void *p) {
    const adam_args *a = p;
    cpu->adam_step(cpu, a->p, a->g, a->m, a->v, a->n, a->lr, a->beta1, a->beta2, a->eps, a->weight_decay, a->kind,
                   a->step);
    return FC_OK;
}
static void rec_adam_step(fc_backend *be, float *p, const float *g, float *m, float *v, size_t n, float lr,
                          float beta1, float beta2, float eps, float weight_decay, int kind, int64_t step) {
    (void)be;
    call(adam_run, &(adam_args){p, g, m, v, n, lr, beta1, beta2, eps, weight_decay, kind, step}, sizeof(adam_args));
}

/* in and out are backend memory: pointers, read and written at replay.
 * With freeze_step_in (a negative control) *in is copied at record time
 * instead, as if the step's scalars were a kernel argument. */
typedef struct {
    float *p, *g, *m, *v;
    size_t n;
    const fc_step_in *in;   /* NULL: use frozen */
    fc_step_out *out;
    fc_step_in frozen;
} opt_args;
static fc_status optimizer_step_run(fc_backend *cpu, const void *p) {
    const opt_args *a = p;
    cpu->optimizer_step(cpu, a->p, a->g, a->m, a->v, a->n, a->in ? a->in : &a->frozen, a->out);
    return FC_OK;
}
static void rec_optimizer_step(fc_backend *be, float *p, float *g, float *m, float *v, size_t n,
                               const fc_step_in *in, fc_step_out *out) {
    (void)be;
    opt_args a = {.p = p, .g = g, .m = m, .v = v, .n = n, .in = in, .out = out};
    if (R.recording && R.freeze_step_in) {
        a.frozen = *in;
        a.in = NULL;
    }
    call(optimizer_step_run, &a, sizeof a);
}

/* The batch's destination struct is copied (a kernel argument on CUDA);
 * the data handle, and the windows staged in it, are read at replay. */
typedef struct { void *data; size_t first, n; fc_window_batch out; } gather_args;
static fc_status gather_run(fc_backend *cpu, const void *p) {
    const gather_args *a = p;
    return cpu->data_gather(cpu, a->data, a->first, a->n, &a->out);
}
static fc_status rec_data_gather(fc_backend *be, void *data, size_t first, size_t n, const fc_window_batch *out) {
    (void)be;
    return call(gather_run, &(gather_args){data, first, n, *out}, sizeof(gather_args));
}
static fc_status data_scale_run(fc_backend *cpu, const void *p) {
    const gather_args *a = p;
    return cpu->data_scale(cpu, a->data, a->n, &a->out);
}
static fc_status rec_data_scale(fc_backend *be, void *data, size_t n, const fc_window_batch *out) {
    (void)be;
    return call(data_scale_run, &(gather_args){data, 0, n, *out}, sizeof(gather_args));
}

/* ---- uncapturable entries: forwarded, and they fail a capture ---- */

static void *rec_alloc(fc_backend *be, size_t bytes) {
    (void)be;
    uncapturable("alloc");
    return R.cpu->alloc(R.cpu, bytes);
}
static void rec_release(fc_backend *be, void *p) {
    (void)be;
    uncapturable("release");
    R.cpu->release(R.cpu, p);
}
static void rec_to_device(fc_backend *be, void *dst, const void *src, size_t bytes) {
    (void)be;
    uncapturable("to_device");
    R.cpu->to_device(R.cpu, dst, src, bytes);
}
/* Every byte the host reads back is hashed: the run's observable trace. */
static void rec_to_host(fc_backend *be, void *dst, const void *src, size_t bytes) {
    (void)be;
    uncapturable("to_host");
    R.cpu->to_host(R.cpu, dst, src, bytes);
    const unsigned char *b = dst;
    for (size_t i = 0; i < bytes; i++) R.read_hash = (R.read_hash ^ b[i]) * 1099511628211ull;
    R.reads++;
}
static void *rec_host_alloc(fc_backend *be, size_t bytes) {
    (void)be;
    uncapturable("host_alloc");
    return R.cpu->host_alloc(R.cpu, bytes);
}
static void rec_host_release(fc_backend *be, void *p) {
    (void)be;
    uncapturable("host_release");
    R.cpu->host_release(R.cpu, p);
}
static void rec_sync(fc_backend *be) {
    (void)be;
    uncapturable("sync");
    R.cpu->sync(R.cpu);
}
static void rec_memory_info(fc_backend *be, size_t *free_bytes, size_t *total_bytes) {
    (void)be;
    uncapturable("memory_info");
    R.cpu->memory_info(R.cpu, free_bytes, total_bytes);
}
static fc_status rec_bind_thread(fc_backend *be) {
    (void)be;
    uncapturable("bind_thread");
    return R.cpu->bind_thread(R.cpu);
}
static fc_status rec_arena_open(fc_backend *be, size_t bytes) {
    (void)be;
    uncapturable("arena_open");
    return R.cpu->arena_open(R.cpu, bytes);
}
static void rec_arena_close(fc_backend *be) {
    (void)be;
    uncapturable("arena_close");
    R.cpu->arena_close(R.cpu);
}
static void rec_arena_seal(fc_backend *be) {
    (void)be;
    uncapturable("arena_seal");
    R.cpu->arena_seal(R.cpu);
}
static void rec_arena_stats(const fc_backend *be, size_t *used, size_t *size) {
    (void)be;
    uncapturable("arena_stats");
    R.cpu->arena_stats(R.cpu, used, size);
}
static void rec_sum_squares(fc_backend *be, double *out, const float *x, size_t n) {
    (void)be;
    uncapturable("sum_squares");   /* its result lands on the host */
    R.cpu->sum_squares(R.cpu, out, x, n);
}
/* Chooses and builds kernels: the warm-up's work, not a step's. */
static fc_status rec_linear_workspace(fc_backend *be, const fc_linear_call *shape, size_t ws[FC_WS_SLOTS]) {
    (void)be;
    uncapturable("linear_workspace");
    return R.cpu->linear_workspace(R.cpu, shape, ws);
}
static fc_status rec_data_upload(fc_backend *be, const struct fc_window_data *host, size_t cap, size_t stages,
                                 size_t work, void **data) {
    (void)be;
    uncapturable("data_upload");
    return R.cpu->data_upload(R.cpu, host, cap, stages, work, data);
}
/* backend.h: "must be called outside a capture" (a host copy into the staged list). */
static fc_status rec_data_stage(fc_backend *be, void *data, const struct fc_window_pos *w, size_t n) {
    (void)be;
    uncapturable("data_stage");
    return R.cpu->data_stage(R.cpu, data, w, n);
}
static void rec_data_release(fc_backend *be, void *data) {
    (void)be;
    uncapturable("data_release");
    R.cpu->data_release(R.cpu, data);
}

/* ---- host queries, harmless in a capture ---- */

static fc_status rec_status(fc_backend *be) {
    (void)be;
    return R.cpu->status(R.cpu);
}
static size_t rec_data_bytes(const fc_backend *be, const struct fc_window_data *host, size_t cap, size_t stages,
                             size_t work, size_t *per_window) {
    (void)be;
    return R.cpu->data_bytes(R.cpu, host, cap, stages, work, per_window);
}

static void rec_destroy(fc_backend *be) {
    FC_ASSERT(!R.recording && R.live_graphs == 0);   /* every graph was freed */
    R.cpu->destroy(R.cpu);
    R.cpu = NULL;
    free(be);
}

/* Replaces every entry the CPU fills (those it leaves NULL stay NULL), so
 * that no CPU entry ever sees the wrapper as its `be`. */
static void fill_recording_table(fc_backend *be) {
    be->alloc = rec_alloc;
    be->release = rec_release;
    be->to_device = rec_to_device;
    be->to_host = rec_to_host;
    be->host_alloc = rec_host_alloc;
    be->host_release = rec_host_release;
    be->fill = rec_fill;
    be->sync = rec_sync;
    be->status = rec_status;
    be->memory_info = rec_memory_info;
    be->bind_thread = rec_bind_thread;
    be->arena_open = rec_arena_open;
    be->arena_close = rec_arena_close;
    be->arena_seal = rec_arena_seal;
    be->arena_stats = rec_arena_stats;
    be->destroy = rec_destroy;
    be->round_to = rec_round_to;
    be->linear_workspace = rec_linear_workspace;
    be->linear_forward = rec_linear_forward;
    be->linear_backward = rec_linear_backward;
    be->gemm = rec_gemm;
    be->maxpool1d_forward = rec_maxpool1d_forward;
    be->maxpool1d_backward = rec_maxpool1d_backward;
    be->interp_linear_forward = rec_interp_forward;
    be->interp_linear_backward = rec_interp_backward;
    be->interp_nearest_forward = rec_nearest_forward;
    be->interp_nearest_backward = rec_nearest_backward;
    be->interp_cubic_forward = rec_cubic_forward;
    be->interp_cubic_backward = rec_cubic_backward;
    be->flip_rows = rec_flip_rows;
    be->axpby_rows = rec_axpby_rows;
    be->mul_rows = rec_mul_rows;
    be->broadcast_col = rec_broadcast_col;
    be->sum_rows_into_col = rec_sum_rows_into_col;
    be->transpose_rows = rec_transpose_rows;
    be->lstm_cell_forward = rec_lstm_cell_forward;
    be->lstm_cell_backward = rec_lstm_cell_backward;
    be->layer_norm_forward = rec_layer_norm_forward;
    be->layer_norm_backward = rec_layer_norm_backward;
    be->dropout = rec_dropout;
    be->gelu_forward = rec_gelu_forward;
    be->iq_head_forward = rec_iq_head_forward;
    be->iq_head_backward = rec_iq_head_backward;
    be->iq_taus = rec_iq_taus;
    be->gelu_backward = rec_gelu_backward;
    be->attention_forward = rec_attention_forward;
    be->attention_backward = rec_attention_backward;
    be->batch_norm_forward = rec_batch_norm_forward;
    be->batch_norm_backward = rec_batch_norm_backward;
    be->revin_patch_forward = rec_revin_patch_forward;
    be->revin_patch_backward = rec_revin_patch_backward;
    be->revin_denorm_forward = rec_revin_denorm_forward;
    be->revin_denorm_backward = rec_revin_denorm_backward;
    be->masked_loss = rec_masked_loss;
    be->adam_step = rec_adam_step;
    be->optimizer_step = rec_optimizer_step;
    be->sum_squares = rec_sum_squares;
    be->scale = rec_scale;
    be->capture_begin = rec_capture_begin;
    be->capture_end = rec_capture_end;
    be->graph_launch = rec_graph_launch;
    be->graph_free = rec_graph_free;
    be->data_bytes = rec_data_bytes;
    be->data_upload = rec_data_upload;
    be->data_stage = rec_data_stage;
    be->data_gather = rec_data_gather;
    be->data_scale = rec_data_scale;
    be->data_release = rec_data_release;
}

/* No entry of the copy still points at the CPU's code (an entry added to
 * backend_ops.def and filled by the CPU but not wrapped here would run at
 * once, with the wrapper as `be`, also inside a capture). */
static void check_every_entry_wrapped(const fc_backend *be, const fc_backend *cpu) {
    for (size_t i = 0; i < fc_backend_op_count; i++) {
        const fc_backend_op *op = &fc_backend_ops[i];
        void (*mine)(void), (*theirs)(void);
        memcpy(&mine, (const char *)be + op->offset, sizeof mine);
        memcpy(&theirs, (const char *)cpu + op->offset, sizeof theirs);
        CHECK_MSG(!theirs || mine != theirs, "recording backend: the CPU's entry %s is not wrapped", op->name);
    }
}

/* The CPU backend (1 thread) behind the recorder. The wrapper is a copy of
 * its table, so name, host_visible, low_bytes, threads, context_bytes, tf32
 * and impl are the CPU's and fcast sizes and plans as it would on the CPU;
 * the entries forward with the real backend as `be`. */
static fc_status recording_backend_create(fc_backend **out) {
    *out = NULL;
    FC_ASSERT(R.cpu == NULL);
    FC_TRY(fc_backend_cpu_create(1, &R.cpu));
    /* quant entries would be left pointing at CPU code with the wrapper as be */
    FC_ASSERT(!R.cpu->mc_chunk_sums && !R.cpu->indicator_segments && !R.cpu->capture_begin);
    fc_backend *be = malloc(sizeof *be);
    if (!be) {
        fc_backend_destroy(&R.cpu);
        return fc_error(FC_ERR_MEMORY, "recording backend: out of memory");
    }
    *be = *R.cpu;
    fill_recording_table(be);
    check_every_entry_wrapped(be, R.cpu);
    recorder_reset_counts();
    *out = be;
    return FC_OK;
}

/* ------------------------------------------------------------------ */
/* Training on both backends                                           */
/* ------------------------------------------------------------------ */

enum { N_SERIES = 3, N_POINTS = 200, L = 12, H = 4, MAX_STEPS = 30 };

typedef struct {
    const char *name;
    const fc_dataset *ds;
    fc_model_kind kind;
    fc_precision prec;
    fc_scaler_kind scaler;
    fc_loss_kind loss;
    size_t windows, grad_accum, val_size, val_check_steps;
    long num_lr_decays;
    double clip;
    size_t h, input_size;                      /* 0: H, L */
    void (*configure)(fc_model_config *cfg);   /* NULL: blocks of 16 units (N-HiTS, N-BEATS) */
    size_t steps;                              /* 0: MAX_STEPS */
} train_case;

static size_t steps_of(const train_case *c) { return c->steps ? c->steps : MAX_STEPS; }

/* What one run leaves: the weights, its summary and what the recorder saw. */
typedef struct {
    float *params;
    size_t n_floats;     /* all of the block: trainable, then state (BatchNorm's statistics), then buffers */
    size_t n_trainable, n_state;
    fc_train_summary s;
    uint64_t read_hash;
    size_t reads, step_captures, step_launches, step_calls, step_gemms, captures, launches, failed, uncapturable;
} run_result;

/* Blocks of 16 units: the default stacks of the kind (N-HiTS: pooling and
 * interpolation; N-BEATS: trend and seasonality bases, matrix products);
 * or the kind's defaults as the case's configure sets them (PatchTST). */
static fc_forecaster small_model(fc_backend *be, const train_case *c) {
    fc_forecaster f = {.scaler = c->scaler, .loss = fc_loss_default(c->loss)};
    fc_model_config cfg;
    fc_model_config_default(&cfg, c->kind, c->h ? c->h : H, c->input_size ? c->input_size : L);
    if (c->configure) c->configure(&cfg);
    else
        for (int i = 0; i < 3; i++) cfg.mlp_units[i][0] = cfg.mlp_units[i][1] = 16;
    CHECK_MSG(fc_model_create(&cfg, be, &f.model) == FC_OK, "%s: %s", c->name, fc_last_error());
    CHECK(fc_model_init_params(f.model, 1) == FC_OK);
    return f;
}

static fc_train_options options_of(const train_case *c) {
    fc_train_options o;
    fc_train_options_default(&o);
    o.max_steps = steps_of(c);
    o.batch_size = N_SERIES;
    o.windows_batch_size = c->windows;
    o.grad_accum = c->grad_accum;
    o.val_size = c->val_size;
    o.val_check_steps = c->val_check_steps ? c->val_check_steps : 100;
    o.num_lr_decays = c->num_lr_decays;
    o.precision = c->prec;
    o.clip_grad_norm = c->clip;
    o.verbose = 0;
    return o;
}

static void snapshot_recorder(run_result *r) {
    r->read_hash = R.read_hash;
    r->reads = R.reads;
    r->step_captures = R.step_captures;
    r->step_launches = R.step_launches;
    r->step_calls = R.step_calls;
    r->step_gemms = R.step_gemms;
    r->captures = R.captures;
    r->launches = R.launches;
    r->failed = R.failed_captures;
    r->uncapturable = R.uncapturable_calls;
}

/* Trains the case from seed 1 on be; the weights are copied out at the end. */
static void train_once(fc_backend *be, const char *how, const train_case *c, run_result *r) {
    memset(r, 0, sizeof *r);
    recorder_reset_counts();
    fc_forecaster f = small_model(be, c);
    fc_train_options o = options_of(c);
    CHECK_MSG(fc_train(&f, c->ds, &o, &r->s) == FC_OK, "%s, %s: %s", c->name, how, fc_last_error());
    snapshot_recorder(r);
    r->n_floats = f.model->n_floats;
    r->n_trainable = f.model->n_trainable;
    r->n_state = f.model->n_state;
    r->params = malloc(r->n_floats * sizeof(float));
    CHECK(r->params != NULL);
    if (r->params) be->to_host(be, r->params, f.model->params, r->n_floats * sizeof(float));
    fc_forecaster_free(&f);
    CHECK_MSG(R.live_graphs == 0, "%s: %zu graphs not freed", c->name, R.live_graphs);
}

static int same_bits(const void *a, const void *b, size_t bytes) { return memcmp(a, b, bytes) == 0; }

/* The whole parameter block: trainable weights and what training changes
 * besides them (BatchNorm's running statistics, updated inside the step
 * graphs), and the buffers. */
static int same_params(const run_result *a, const run_result *b) {
    return a->params && b->params && a->n_floats == b->n_floats &&
           same_bits(a->params, b->params, a->n_floats * sizeof(float));
}

/* Where two blocks first differ, for the message: "float i (trainable)". */
static const char *first_difference(const run_result *a, const run_result *b, char *buf, size_t cap) {
    if (!a->params || !b->params || a->n_floats != b->n_floats) {
        snprintf(buf, cap, "blocks of %zu and %zu floats", a->n_floats, b->n_floats);
        return buf;
    }
    size_t i = 0;
    while (i < a->n_floats && same_bits(a->params + i, b->params + i, sizeof(float))) i++;
    if (i == a->n_floats) return "none";
    snprintf(buf, cap, "float %zu of %zu (%s): %.9g vs %.9g", i, a->n_floats,
             i < a->n_trainable ? "trainable" : i < a->n_state ? "state" : "buffer", (double)a->params[i],
             (double)b->params[i]);
    return buf;
}

/* The summary's figures bit for bit (NaN included: no validation, no norm). */
static void check_same_summary(const char *what, const fc_train_summary *a, const fc_train_summary *b) {
    CHECK_MSG(a->steps == b->steps && a->skipped_steps == b->skipped_steps && a->best_step == b->best_step &&
                  a->early_stopped == b->early_stopped,
              "%s: steps %zu/%zu skipped %zu/%zu best step %zu/%zu", what, a->steps, b->steps, a->skipped_steps,
              b->skipped_steps, a->best_step, b->best_step);
    CHECK_MSG(same_bits(&a->last_train_loss, &b->last_train_loss, sizeof(double)), "%s: last loss %.17g vs %.17g",
              what, a->last_train_loss, b->last_train_loss);
    CHECK_MSG(same_bits(&a->last_grad_norm, &b->last_grad_norm, sizeof(double)), "%s: grad norm %.17g vs %.17g",
              what, a->last_grad_norm, b->last_grad_norm);
    CHECK_MSG(same_bits(&a->best_val_loss, &b->best_val_loss, sizeof(double)), "%s: best val %.17g vs %.17g",
              what, a->best_val_loss, b->best_val_loss);
    CHECK_MSG(same_bits(&a->loss_scale, &b->loss_scale, sizeof(float)), "%s: loss scale %g vs %g", what,
              (double)a->loss_scale, (double)b->loss_scale);
}

/* Graphs really ran: the first capture at GRAPH_FROM_STEP, and every step
 * after it a launch (a recapture for a new loss scale launches too). */
static void check_graphs_ran(const train_case *c, const run_result *g) {
    CHECK_MSG(g->failed == 0 && g->uncapturable == 0, "%s: %zu failed captures (%zu uncapturable calls)", c->name,
              g->failed, g->uncapturable);
    CHECK_MSG(g->step_captures >= 1, "%s: no step was captured", c->name);
    CHECK_MSG(g->step_launches == steps_of(c) - GRAPH_FROM_STEP, "%s: %zu step launches in %zu steps", c->name,
              g->step_launches, steps_of(c));
    CHECK_MSG(g->step_calls > 20, "%s: a step graph of %zu calls", c->name, g->step_calls);
}

static void free_result(run_result *r) { free(r->params); }

/* One case three ways: the plain CPU backend; the recorder with graphs off
 * (every call forwarded: the wrapper itself changes nothing, and gives the
 * trace of host reads to compare with); the recorder with graphs. Returns
 * the graph run's result (the caller frees it). */
static run_result compare_case(fc_backend *cpu, fc_backend *rec, const train_case *c) {
    run_result plain, forwarded, graphed;
    train_once(cpu, "plain CPU", c, &plain);
    setenv("FCAST_CUDA_GRAPH", "off", 1);   /* also the validator's forward graph */
    train_once(rec, "recorder, graphs off", c, &forwarded);
    unsetenv("FCAST_CUDA_GRAPH");
    train_once(rec, "recorder, graphs on", c, &graphed);
    CHECK_MSG(forwarded.captures == 0 && forwarded.launches == 0, "%s: graphs ran with FCAST_CUDA_GRAPH=off",
              c->name);
    char where[160];
    CHECK_MSG(same_params(&plain, &forwarded), "%s: the forwarding wrapper changed the weights (first at %s)", c->name,
              first_difference(&plain, &forwarded, where, sizeof where));
    CHECK_MSG(same_params(&plain, &graphed),
              "%s: replayed step graphs trained other weights than plain calls (first at %s)", c->name,
              first_difference(&plain, &graphed, where, sizeof where));
    check_same_summary(c->name, &plain.s, &graphed.s);
    CHECK_MSG(forwarded.reads == graphed.reads && forwarded.read_hash == graphed.read_hash,
              "%s: the host read other bytes with graphs (%zu reads vs %zu)", c->name, graphed.reads,
              forwarded.reads);
    check_graphs_ran(c, &graphed);
    printf("%-6s: %zu step capture(s) of %zu calls, %zu step launches; %zu other capture(s), %zu other launches; "
           "skipped %zu, loss %.6g, %s bits\n",
           c->name, graphed.step_captures, graphed.step_calls, graphed.step_launches,
           graphed.captures - graphed.step_captures, graphed.launches - graphed.step_launches,
           graphed.s.skipped_steps, graphed.s.last_train_loss, same_params(&plain, &graphed) ? "same" : "DIFFERENT");
    free_result(&plain);
    free_result(&forwarded);
    return graphed;
}

/* fp32, 2 micro-batches of 16, validation every 5 steps between replayed
 * steps (its forward is captured as a graph of its own), StepLR halving
 * the rate at steps 10 and 20: the rate reaches the graph through memory. */
static void fp32_accumulation_validation_steplr(fc_backend *cpu, fc_backend *rec, const fc_dataset *d) {
    train_case c = {"fp32", d, FC_MODEL_NHITS, FC_PREC_FP32, FC_SCALER_STANDARD, FC_LOSS_MAE, 16, 2, 8, 5, 3, 0.0,
                    0, 0, NULL, 0};
    run_result g = compare_case(cpu, rec, &c);
    CHECK_MSG(g.captures - g.step_captures >= 1 && g.launches - g.step_launches >= 1,
              "fp32: the validation forward was not replayed as a graph");
    CHECK(!isnan(g.s.best_val_loss));
    free_result(&g);
}

/* fp16 on large unscaled values with MSE: the first loss gradients (scale
 * 2^16) overflow fp16, and the scaler halves the scale at skipped steps,
 * also past the warm-up: each new scale is a new key and a new capture. */
static void fp16_skips_and_clipping(fc_backend *cpu, fc_backend *rec, const fc_dataset *big) {
    train_case c = {"fp16", big, FC_MODEL_NHITS, FC_PREC_FP16, FC_SCALER_IDENTITY, FC_LOSS_MSE, 16, 1, 0, 0, 3, 1.0,
                    0, 0, NULL, 0};
    run_result g = compare_case(cpu, rec, &c);
    CHECK_MSG(g.s.skipped_steps > GRAPH_FROM_STEP, "fp16: %zu skipped steps: none past the warm-up",
              g.s.skipped_steps);
    CHECK_MSG(g.step_captures >= 2, "fp16: the step graph was not captured again for a new loss scale");
    CHECK(g.s.loss_scale < 65536.0f && isfinite(g.s.last_grad_norm));
    free_result(&g);
}

static void bf16_clipping_robust(fc_backend *cpu, fc_backend *rec, const fc_dataset *d) {
    train_case c = {"bf16", d, FC_MODEL_NHITS, FC_PREC_BF16, FC_SCALER_ROBUST, FC_LOSS_MAE, 16, 1, 0, 0, 3, 0.5,
                    0, 0, NULL, 0};
    run_result g = compare_case(cpu, rec, &c);
    CHECK(isfinite(g.s.last_grad_norm));
    free_result(&g);
}

/* Long runs, as the H200 saw them differ after 200 steps (model files
 * equal after 1 to 10 steps): 210 steps without validation, StepLR halving
 * the rate three times (steps 70, 140 and 210), three micro-batches; and
 * fp16 with clipping on large values, its scale backing off and growing
 * again. Replays must give plain calls' bits all the way. */
static void long_runs_with_decay(fc_backend *cpu, fc_backend *rec, const fc_dataset *d, const fc_dataset *big) {
    train_case a = {"long", d, FC_MODEL_NHITS, FC_PREC_FP32, FC_SCALER_STANDARD, FC_LOSS_MAE, 16, 3, 0, 0, 3, 0.0,
                    0, 0, NULL, 210};
    run_result g = compare_case(cpu, rec, &a);
    CHECK_MSG(g.step_captures == 1, "long: %zu step captures (the rate must not be the graph's key)",
              g.step_captures);
    free_result(&g);
    train_case b = {"long-fp16", big, FC_MODEL_NHITS, FC_PREC_FP16, FC_SCALER_IDENTITY, FC_LOSS_MSE, 16, 1, 0, 0, 3,
                    1.0, 0, 0, NULL, 210};
    g = compare_case(cpu, rec, &b);
    CHECK(g.s.skipped_steps > GRAPH_FROM_STEP && isfinite(g.s.last_grad_norm));
    free_result(&g);
}

/* N-BEATS's bases run through gemm, which N-HiTS never calls. */
static void nbeats_bases(fc_backend *cpu, fc_backend *rec, const fc_dataset *d) {
    train_case c = {"nbeats", d, FC_MODEL_NBEATS, FC_PREC_FP32, FC_SCALER_STANDARD, FC_LOSS_MAE, 16, 1, 0, 0, 3, 1.0,
                    0, 0, NULL, 0};
    run_result g = compare_case(cpu, rec, &c);
    CHECK_MSG(g.step_gemms > 0, "nbeats: no gemm in the step graph");
    free_result(&g);
}

/* PatchTST, small: 2 encoder layers of 8 channels in 2 heads, a
 * feed-forward of 16, patches of 8 at stride 4 (6 patches of 24 inputs).
 * Dropout 0 (neuralforecast's default is 0.2): with any dropout the
 * trainer runs no step graphs (a replay would repeat its masks). */
static void patchtst_small(fc_model_config *cfg) {
    cfg->encoder_layers = 2;
    cfg->n_heads = 2;
    cfg->hidden_size = 8;
    cfg->linear_hidden_size = 16;
    cfg->patch_len = 8;
    cfg->stride = 4;
    cfg->dropout = 0.0;
}

/* The other branches: pre-norm, RevIN's affine (its weight and bias get
 * gradients from both ends), no score chain between layers, ReLU fused in
 * the dense layer instead of GELU. */
static void patchtst_variant(fc_model_config *cfg) {
    patchtst_small(cfg);
    cfg->batch_normalization = 1;
    cfg->revin_affine = 1;
    cfg->res_attention = 0;
    cfg->gelu = 0;
}

/* The BatchNorms' running statistics and counters are trained state,
 * updated by the replayed step graphs (compare_case compares them with the
 * weights): each counter is the number of training forwards up to the
 * weights kept (the best validated step's, or the last), and the running
 * means have moved. */
static void check_patchtst_state(const train_case *c, const run_result *g) {
    fc_model_config cfg;
    fc_model_config_default(&cfg, c->kind, c->h, c->input_size);
    c->configure(&cfg);
    fc_model *m = NULL;
    CHECK_MSG(fc_model_plan(&cfg, &m) == FC_OK, "%s: %s", c->name, fc_last_error());
    if (!m || !g->params) {
        fc_model_free(&m);
        return;
    }
    CHECK_MSG(g->n_state > g->n_trainable && m->n_state == g->n_state, "%s: %zu trainable floats, %zu with state",
              c->name, g->n_trainable, g->n_state);
    size_t steps = c->val_size && !isnan(g->s.best_val_loss) ? g->s.best_step : steps_of(c);
    CHECK_MSG(steps > GRAPH_FROM_STEP, "%s: the weights kept are from step %zu, before any replay", c->name, steps);
    for (int l = 0; l < cfg.encoder_layers; l++)
        for (int i = 0; i < 2; i++) {
            char name[128];
            const char *norm = i ? "norm_ffn" : "norm_attn";
            snprintf(name, sizeof name, "model.backbone.encoder.layers.%d.%s.1.num_batches_tracked", l, norm);
            const fc_tensor *t = fc_model_find(m, name);
            CHECK_MSG(t && t->state && t->offset >= g->n_trainable && t->offset < g->n_state, "%s: %s", c->name,
                      name);
            if (!t) continue;
            float count = g->params[t->offset];
            CHECK_MSG(count == (float)(steps * c->grad_accum), "%s: %s = %g after %zu steps of %zu micro-batches",
                      c->name, name, (double)count, steps, c->grad_accum);
            snprintf(name, sizeof name, "model.backbone.encoder.layers.%d.%s.1.running_mean", l, norm);
            t = fc_model_find(m, name);
            CHECK_MSG(t && t->state, "%s: %s", c->name, name);
            if (!t) continue;
            int moved = 0;
            for (size_t k = 0; k < t->numel; k++) moved |= g->params[t->offset + k] != 0.0f;
            CHECK_MSG(moved, "%s: %s never moved", c->name, name);
        }
    printf("%-6s: BatchNorm counters of the weights kept (step %zu) at %zu, running statistics compared too\n", c->name,
           steps, steps * c->grad_accum);
    fc_model_free(&m);
}

/* neuralforecast's defaults (post-norm BatchNorm, RevIN subtracting the
 * last value, residual attention scores, GELU), with 2 micro-batches and
 * validation every 5 steps: BatchNorm's running statistics change in the
 * step graph and are read by the validation forward's graph (eval mode),
 * and the best weights kept include them. */
static void patchtst_defaults(fc_backend *cpu, fc_backend *rec, const fc_dataset *d) {
    train_case c = {"ptst", d, FC_MODEL_PATCHTST, FC_PREC_FP32, FC_SCALER_STANDARD, FC_LOSS_MAE, 16, 2, 12, 5, 3, 1.0,
                    6, 24, patchtst_small, 0};
    run_result g = compare_case(cpu, rec, &c);
    CHECK_MSG(g.captures - g.step_captures >= 1 && g.launches - g.step_launches >= 1,
              "ptst: the validation forward was not replayed as a graph");
    CHECK(!isnan(g.s.best_val_loss));
    check_patchtst_state(&c, &g);
    free_result(&g);
}

static void patchtst_prenorm_affine(fc_backend *cpu, fc_backend *rec, const fc_dataset *d) {
    train_case c = {"ptst2", d, FC_MODEL_PATCHTST, FC_PREC_FP32, FC_SCALER_STANDARD, FC_LOSS_MAE, 16, 1, 12, 5, 3, 1.0,
                    12, 24, patchtst_variant, 0};
    run_result g = compare_case(cpu, rec, &c);
    CHECK_MSG(g.captures - g.step_captures >= 1 && g.launches - g.step_launches >= 1,
              "ptst2: the validation forward was not replayed as a graph");
    check_patchtst_state(&c, &g);
    free_result(&g);
}

/* ------------------------------------------------------------------ */
/* Negative controls                                                   */
/* ------------------------------------------------------------------ */

/* A pass with a factor given as an argument and one read from memory. */
typedef struct {
    fc_backend *be;
    float *buf;        /* (N_BUF) */
    float *d_factor;   /* (N_BUF) backend memory the host rewrites */
    float factor;      /* host value passed as an argument */
    int read_back;     /* 1: the pass reads its result on the host */
} scale_pass;

enum { N_BUF = 4 };

static fc_status scale_body(void *ctx) {
    scale_pass *p = ctx;
    p->be->scale(p->be, p->buf, p->factor, N_BUF);
    p->be->mul_rows(p->be, p->buf, N_BUF, p->d_factor, N_BUF, 1, N_BUF);
    if (p->read_back) {
        float host[N_BUF];
        p->be->to_host(p->be, host, p->buf, sizeof host);
    }
    return FC_OK;
}

static float buf0(const scale_pass *p) {
    float v;
    p->be->to_host(p->be, &v, p->buf, sizeof v);
    return v;
}

static void set_memory_factor(scale_pass *p, float v) {
    float host[N_BUF] = {v, v, v, v};
    p->be->to_device(p->be, p->d_factor, host, sizeof host);
}

/* A replay keeps the argument of its capture (the stale value a trainer
 * bug would train with) and reads the current memory; keyed by the
 * argument, the pass is captured again and uses the new one. */
static void arguments_are_frozen(scale_pass *p) {
    fc_graph_slot s;
    fc_graph_slot_init(&s, p->be, 0);
    p->be->fill(p->be, p->buf, 1.0f, N_BUF);
    p->factor = 2.0f;
    set_memory_factor(p, 3.0f);
    CHECK(fc_graph_run(&s, p->be, 1, scale_body, p) == FC_OK);   /* captured, then launched */
    CHECK(R.captures == 1 && R.launches == 1 && buf0(p) == 6.0f);
    p->factor = 5.0f;                                              /* changed on the host ... */
    set_memory_factor(p, 7.0f);                                    /* ... and in memory */
    CHECK(fc_graph_run(&s, p->be, 1, scale_body, p) == FC_OK);
    CHECK_MSG(buf0(p) == 6.0f * 2.0f * 7.0f, "a replay gave %g: the argument must stay 2, the memory read 7",
              (double)buf0(p));
    CHECK(R.captures == 1 && R.launches == 2);
    p->be->fill(p->be, p->buf, 1.0f, N_BUF);
    CHECK(fc_graph_run_keyed(&s, p->be, 1, (uint64_t)p->factor, scale_body, p) == FC_OK);   /* new key, new capture */
    CHECK(R.captures == 2 && buf0(p) == 5.0f * 7.0f);
    fc_graph_slot_free(&s, p->be);
    CHECK(R.live_graphs == 0);
}

/* A read on the host cannot be captured: the capture fails, the pass runs
 * once plainly, and the slot turns graphs off (graph_pass.h). */
static void host_read_fails_the_capture(scale_pass *p) {
    fc_graph_slot s;
    fc_graph_slot_init(&s, p->be, 0);
    p->be->fill(p->be, p->buf, 1.0f, N_BUF);
    p->factor = 2.0f;
    set_memory_factor(p, 3.0f);
    p->read_back = 1;
    CHECK(fc_graph_run(&s, p->be, 1, scale_body, p) == FC_OK);
    CHECK_MSG(R.failed_captures == 1 && R.captures == 0 && s.graph == NULL && s.off, "failed %zu, captured %zu",
              R.failed_captures, R.captures);
    CHECK_MSG(buf0(p) == 6.0f, "the pass ran to %g: not once", (double)buf0(p));
    CHECK(fc_graph_run(&s, p->be, 1, scale_body, p) == FC_OK && buf0(p) == 36.0f && R.launches == 0);
    CHECK(R.live_graphs == 0);
    p->read_back = 0;
}

static void tiny_pass_controls(fc_backend *rec) {
    recorder_reset_counts();
    scale_pass p = {rec, rec->alloc(rec, N_BUF * sizeof(float)), rec->alloc(rec, N_BUF * sizeof(float)), 1.0f, 0};
    CHECK(p.buf && p.d_factor);
    arguments_are_frozen(&p);
    recorder_reset_counts();
    host_read_fails_the_capture(&p);
    rec->release(rec, p.buf);
    rec->release(rec, p.d_factor);
}

/* The comparison of weights can fail: a recorder that copies the
 * optimizer's scalars at capture (the learning rate and Adam's step count
 * then stay those of the captured step) trains other bits. */
static void frozen_scalars_change_the_weights(fc_backend *cpu, fc_backend *rec, const fc_dataset *d) {
    train_case c = {"frozen", d, FC_MODEL_NHITS, FC_PREC_FP32, FC_SCALER_STANDARD, FC_LOSS_MAE, 16, 1, 0, 0, 3, 0.0,
                    0, 0, NULL, 0};
    run_result plain, frozen;
    train_once(cpu, "plain CPU", &c, &plain);
    R.freeze_step_in = 1;
    train_once(rec, "recorder, frozen scalars", &c, &frozen);
    R.freeze_step_in = 0;
    CHECK(frozen.step_launches == MAX_STEPS - GRAPH_FROM_STEP);
    CHECK_MSG(!same_params(&plain, &frozen), "stale optimizer scalars went unnoticed");
    free_result(&plain);
    free_result(&frozen);
}

int main(void) {
    unsetenv("FCAST_CUDA_GRAPH");          /* graphs on: this test is about them */
    unsetenv("FCAST_TEST_HOST_BATCHES");   /* the device path, whose step has no host work */
    fc_backend *cpu = NULL, *rec = NULL;
    CHECK(fc_backend_cpu_create(1, &cpu) == FC_OK);
    CHECK_MSG(recording_backend_create(&rec) == FC_OK, "%s", fc_last_error());
    if (!cpu || !rec) return CHECK_DONE();
    fc_dataset *d = test_sines(N_SERIES, N_POINTS, 10.0, 3.0), *big = test_sines(N_SERIES, N_POINTS, 1e4, 3e3);
    fp32_accumulation_validation_steplr(cpu, rec, d);
    fp16_skips_and_clipping(cpu, rec, big);
    bf16_clipping_robust(cpu, rec, d);
    nbeats_bases(cpu, rec, d);
    long_runs_with_decay(cpu, rec, d, big);
    patchtst_defaults(cpu, rec, d);
    patchtst_prenorm_affine(cpu, rec, d);
    tiny_pass_controls(rec);
    frozen_scalars_change_the_weights(cpu, rec, d);
    fc_dataset_free(&d);
    fc_dataset_free(&big);
    fc_backend_destroy(&rec);
    fc_backend_destroy(&cpu);
    return CHECK_DONE();
}
