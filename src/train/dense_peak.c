/* The dense-layer peak (see dense_peak.h). */
#include "train/dense_peak.h"

#include "core/clock.h"

typedef struct {
    float *x, *w, *b, *y;
    void *x_low, *w_low;
} peak_buffers;

static void peak_free(fc_backend *be, peak_buffers *p) {
    void *all[6] = {p->x, p->w, p->b, p->y, p->x_low, p->w_low};
    for (int i = 0; i < 6; i++) be->release(be, all[i]);
}

static fc_status peak_alloc(fc_backend *be, peak_buffers *p, size_t B, size_t I, size_t O, fc_precision prec) {
    size_t lb = be->low_bytes(be, prec) ? be->low_bytes(be, prec) : 1;
    p->x = be->alloc(be, B * I * sizeof(float)), p->w = be->alloc(be, O * I * sizeof(float));
    p->b = be->alloc(be, O * sizeof(float)), p->y = be->alloc(be, B * O * sizeof(float));
    p->x_low = be->alloc(be, B * I * lb), p->w_low = be->alloc(be, O * I * lb);
    if (!p->x || !p->w || !p->b || !p->y || !p->x_low || !p->w_low) return FC_ERR_MEMORY;
    be->fill(be, p->x, 0.5f, B * I);
    be->fill(be, p->w, 0.01f, O * I);
    be->fill(be, p->b, 0.0f, O);
    if (prec != FC_PREC_FP32) be->round_to(be, p->w_low, p->w, O * I, prec);
    return FC_OK;
}

void fc_dense_peak_shape(const fc_backend *be, size_t *B, size_t *I, size_t *O) {
    size_t gpu = !be->host_visible;
    *B = gpu ? 8192 : 1024;
    *I = *O = gpu ? 8192 : 512;
}

fc_status fc_dense_peak_gflops(fc_backend *be, fc_precision prec, int rounds, double *gflops) {
    const size_t calls = 20;
    size_t B, I, O;
    fc_dense_peak_shape(be, &B, &I, &O);
    peak_buffers p = {0};
    fc_status st = peak_alloc(be, &p, B, I, O, prec);
    fc_linear_call c = {.B = B, .I = I, .O = O, .act = FC_ACT_RELU, .prec = prec, .x = p.x,
                        .x_low = prec != FC_PREC_FP32 ? p.x_low : NULL, .w = p.w,
                        .w_low = prec != FC_PREC_FP32 ? p.w_low : NULL, .b = p.b, .y = p.y};
    double best = 1e30;
    for (int i = 0; st == FC_OK && i < 10; i++) st = be->linear_forward(be, &c);   /* builds the kernels */
    for (int round = 0; st == FC_OK && round < rounds; round++) {
        /* synced on both sides of the clock: a GPU queues the calls and returns */
        be->sync(be);
        double t0 = fc_now();
        for (size_t i = 0; st == FC_OK && i < calls; i++) st = be->linear_forward(be, &c);
        be->sync(be);
        double dt = (fc_now() - t0) / (double)calls;
        best = dt < best ? dt : best;
    }
    peak_free(be, &p);
    *gflops = st == FC_OK && rounds > 0 ? 2.0 * B * I * O / best * 1e-9 : 0;
    return st;
}
