/* Gradient checks by central finite differences for every backward of the
 * CPU backend: each op's backward (fed dJ/dout = r, random) must equal the
 * numerical derivative of J = sum(r * forward(inputs)), taken element by
 * element through the backend's own forward.
 *
 * Everything here is float, so the differences are taken in float with a
 * large step, eps = 1e-2, and J is summed in double. All ops checked are
 * linear or piecewise linear (ReLU, max pooling, MAE; inputs are kept at
 * least 2 eps from every kink) or quadratic (MSE), so the central
 * difference has no truncation error and only float rounding of the
 * forward remains (~1e-6 / eps): tolerance |a - n| <= 1e-3 + 1e-3 |n|. The
 * denominator is the step actually taken, (float)(x+eps) - (float)(x-eps). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "kernels/activation.h"
#include "core/rng.h"

#define EPS 1e-2f
#define ATOL 1e-3
#define RTOL 1e-3

static fc_backend *be;

static void fill_uniform(float *x, size_t n, uint64_t seed, float lo, float hi) {
    for (size_t i = 0; i < n; i++) {
        fc_philox_out r = fc_rng_block(seed, 11, i);
        x[i] = lo + (hi - lo) * fc_u32_to_unit_float(r.v[0]);
    }
}

static double dot(const float *r, const float *y, size_t n) {
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)r[i] * y[i];
    return s;
}

typedef double (*objective_fn)(void *ctx);

/* Checks analytic (n) against the central difference of f in every x[i]. */
static void check_grad(const char *what, objective_fn f, void *ctx, float *x, size_t n,
                       const float *analytic) {
    size_t bad = 0;
    double worst = 0;
    for (size_t i = 0; i < n; i++) {
        float x0 = x[i];
        x[i] = x0 + EPS;
        float xp = x[i];
        double fp = f(ctx);
        x[i] = x0 - EPS;
        float xm = x[i];
        double fm = f(ctx);
        x[i] = x0;
        double num = (fp - fm) / ((double)xp - (double)xm);
        double err = fabs(analytic[i] - num);
        if (!(err <= ATOL + RTOL * fabs(num))) bad++;
        if (err > worst || err != err) worst = err;
    }
    CHECK_MSG(bad == 0, "%s: %zu of %zu gradients off, worst |analytic - numeric| = %g", what,
              bad, n, worst);
    f(ctx); /* leave the forward outputs of the unperturbed inputs */
}

/* ---- linear (+ ReLU) ---- */

enum { LB = 7, LI = 13, LO = 5 };

typedef struct {
    float x[LB * LI], w[LO * LI], b[LO], y[LB * LO], r[LB * LO];
    fc_activation act;
} linear_ctx;

static fc_linear_call linear_call(linear_ctx *c) {
    return (fc_linear_call){.B = LB, .I = LI, .O = LO, .act = c->act, .prec = FC_PREC_FP32,
                            .x = c->x, .w = c->w, .b = c->b, .y = c->y};
}

static double linear_objective(void *p) {
    linear_ctx *c = p;
    fc_linear_call call = linear_call(c);
    CHECK(be->linear_forward(be, &call) == FC_OK);
    return dot(c->r, c->y, LB * LO);
}

/* Smallest |pre-activation|: a ReLU check needs all of them clear of 0. */
static float min_abs_preact(linear_ctx *c) {
    linear_ctx t = *c;
    t.act = FC_ACT_NONE;
    linear_objective(&t);
    float m = INFINITY;
    for (size_t i = 0; i < LB * LO; i++) m = fminf(m, fabsf(t.y[i]));
    return m;
}

static void check_linear(fc_activation act) {
    static linear_ctx c;
    uint64_t seed = 100;
    do { /* redraw until no perturbation (at most EPS in z) can cross a kink */
        fill_uniform(c.x, LB * LI, seed, -1, 1);
        fill_uniform(c.w, LO * LI, seed + 1, -1, 1);
        fill_uniform(c.b, LO, seed + 2, -1, 1);
        seed += 3;
    } while (act == FC_ACT_RELU && min_abs_preact(&c) < 2 * EPS);
    fill_uniform(c.r, LB * LO, 9, -1, 1);
    c.act = act;
    linear_objective(&c);
    float dy[LB * LO], dx[LB * LI], dw[LO * LI] = {0}, db[LO] = {0};
    memcpy(dy, c.r, sizeof dy);
    if (act == FC_ACT_RELU) {
        size_t active = 0;
        for (size_t i = 0; i < LB * LO; i++) active += c.y[i] > 0;
        CHECK(active > 0 && active < LB * LO); /* both sides of the kink are exercised */
    }
    fc_linear_call call = linear_call(&c);   /* backward applies the ReLU mask itself (fused) */
    CHECK(be->linear_backward(be, &call, dy, NULL, dx, dw, db) == FC_OK);
    const char *tag = act == FC_ACT_RELU ? "linear+relu" : "linear";
    char name[64];
    snprintf(name, sizeof name, "%s dx", tag);
    check_grad(name, linear_objective, &c, c.x, LB * LI, dx);
    snprintf(name, sizeof name, "%s dw", tag);
    check_grad(name, linear_objective, &c, c.w, LO * LI, dw);
    snprintf(name, sizeof name, "%s db", tag);
    check_grad(name, linear_objective, &c, c.b, LO, db);
}

/* ---- relu alone ---- */

enum { RN = 64 };
typedef struct { float z[RN], y[RN], r[RN]; } relu_ctx;

static double relu_objective(void *p) {
    relu_ctx *c = p;
    for (size_t i = 0; i < RN; i++) c->y[i] = c->z[i] > 0 ? c->z[i] : 0; /* the forward */
    return dot(c->r, c->y, RN);
}

static void check_relu(void) {
    static relu_ctx c;
    fill_uniform(c.z, RN, 20, -1, 1);
    for (size_t i = 0; i < RN; i++) /* keep 2 eps away from the kink */
        if (fabsf(c.z[i]) < 2 * EPS) c.z[i] = c.z[i] < 0 ? -0.5f : 0.5f;
    fill_uniform(c.r, RN, 21, -1, 1);
    relu_objective(&c);
    float g[RN];
    memcpy(g, c.r, sizeof g);
    for (size_t i = 0; i < RN; i++) g[i] = fc_relu_backward(g[i], c.y[i]);   /* the shared body */
    check_grad("relu", relu_objective, &c, c.z, RN, g);
}

/* ---- maxpool1d ---- */

enum { PB = 3, PL = 11, PK = 3, PO = (PL + PK - 1) / PK };
typedef struct { float x[PB * PL], y[PB * PO], r[PB * PO]; int32_t idx[PB * PO]; } pool_ctx;

static double pool_objective(void *p) {
    pool_ctx *c = p;
    be->maxpool1d_forward(be, c->y, c->idx, c->x, PB, PL, PK);
    return dot(c->r, c->y, PB * PO);
}

static void check_maxpool(void) {
    static pool_ctx c;
    /* Distinct values 0.05 apart (> 2 eps): the argmax cannot switch. */
    for (size_t i = 0; i < PB * PL; i++) c.x[i] = 0.05f * (float)((i * 7) % (PB * PL)) - 0.8f;
    fill_uniform(c.r, PB * PO, 30, -1, 1);
    pool_objective(&c);
    float dx[PB * PL];
    be->maxpool1d_backward(be, dx, c.r, c.idx, PB, PL, PK);
    check_grad("maxpool1d", pool_objective, &c, c.x, PB * PL, dx);
}

/* ---- interp_linear (strided rows) ---- */

enum { IB = 3, ILD = 16 };
typedef struct { float x[IB * ILD], y[IB * ILD], r[IB * ILD]; size_t n_in, n_out; } interp_ctx;

static double interp_objective(void *p) {
    interp_ctx *c = p;
    be->interp_linear_forward(be, c->y, ILD, c->x, ILD, IB, c->n_in, c->n_out);
    double s = 0;
    for (size_t b = 0; b < IB; b++) s += dot(c->r + b * ILD, c->y + b * ILD, c->n_out);
    return s;
}

static void check_interp(size_t n_in, size_t n_out) {
    static interp_ctx c;
    c.n_in = n_in, c.n_out = n_out;
    fill_uniform(c.x, IB * ILD, 40 + n_in, -1, 1);
    fill_uniform(c.r, IB * ILD, 41 + n_out, -1, 1);
    float dx[IB * ILD];
    be->interp_linear_backward(be, dx, ILD, c.r, ILD, IB, n_in, n_out);
    char name[64];
    snprintf(name, sizeof name, "interp_linear %zu -> %zu", n_in, n_out);
    /* perturb only the n_in live columns of each row */
    for (size_t b = 0; b < IB; b++)
        check_grad(name, interp_objective, &c, c.x + b * ILD, n_in, dx + b * ILD);
}

/* ---- row ops ---- */

enum { RB = 4, RC = 6, RLD = 9 };
typedef struct {
    float x[RB * RLD], y0[RB * RLD], y[RB * RLD], m[RB * RLD], r[RB * RLD];
    float alpha, beta;
    int op; /* 0 flip, 1 axpby, 2 mul, 3 broadcast */
} rows_ctx;

static double rows_objective(void *p) {
    rows_ctx *c = p;
    memcpy(c->y, c->y0, sizeof c->y);
    switch (c->op) {
    case 0: be->flip_rows(be, c->y, RLD, c->x, RLD, RB, RC); break;
    case 1: be->axpby_rows(be, c->y, RLD, c->alpha, c->x, RLD, c->beta, RB, RC); break;
    case 2: be->mul_rows(be, c->y, RLD, c->m, RLD, RB, RC); break;
    case 3: be->broadcast_col(be, c->y, c->x, RLD, 2, RB, RC); return dot(c->r, c->y, RB * RC);
    }
    double s = 0;
    for (size_t b = 0; b < RB; b++) s += dot(c->r + b * RLD, c->y + b * RLD, RC);
    return s;
}

static void rows_setup(rows_ctx *c, int op) {
    fill_uniform(c->x, RB * RLD, 50, -1, 1);
    fill_uniform(c->y0, RB * RLD, 51, -1, 1);
    fill_uniform(c->m, RB * RLD, 52, -1, 1);
    fill_uniform(c->r, RB * RLD, 53, -1, 1);
    c->alpha = 0.7f, c->beta = -1.3f, c->op = op;
}

static void check_rows(void) {
    static rows_ctx c;
    float g[RB * RLD], h[RB * RLD];
    rows_setup(&c, 0); /* flip: its adjoint is itself (padding columns: 0) */
    memset(g, 0, sizeof g);
    be->flip_rows(be, g, RLD, c.r, RLD, RB, RC);
    check_grad("flip_rows", rows_objective, &c, c.x, RB * RLD - (RLD - RC), g);
    rows_setup(&c, 1); /* axpby: dx = alpha r, dy = beta r */
    be->axpby_rows(be, g, RLD, c.alpha, c.r, RLD, 0.0f, RB, RC);
    memcpy(h, c.r, sizeof h);
    be->scale(be, h, c.beta, RB * RLD);
    for (size_t b = 0; b < RB; b++) {
        check_grad("axpby_rows dx", rows_objective, &c, c.x + b * RLD, RC, g + b * RLD);
        check_grad("axpby_rows dy", rows_objective, &c, c.y0 + b * RLD, RC, h + b * RLD);
    }
    rows_setup(&c, 2); /* mul: dy = r m, dm = r y */
    memcpy(g, c.r, sizeof g);
    memcpy(h, c.r, sizeof h);
    be->mul_rows(be, g, RLD, c.m, RLD, RB, RC);
    be->mul_rows(be, h, RLD, c.y0, RLD, RB, RC);
    for (size_t b = 0; b < RB; b++) {
        check_grad("mul_rows dy", rows_objective, &c, c.y0 + b * RLD, RC, g + b * RLD);
        check_grad("mul_rows dm", rows_objective, &c, c.m + b * RLD, RC, h + b * RLD);
    }
    rows_setup(&c, 3); /* broadcast_col (y contiguous (RB, RC)); sum_rows_into_col is its adjoint */
    memset(g, 0, sizeof g);
    be->sum_rows_into_col(be, g, RLD, 2, c.r, RB, RC);
    check_grad("broadcast_col / sum_rows_into_col", rows_objective, &c, c.x, RB * RLD, g);
}

/* ---- masked losses ---- */

enum { MN = 40 };
typedef struct { float yhat[MN], y[MN], mask[MN]; int kind; } loss_ctx;

static double loss_objective(void *p) {
    loss_ctx *c = p;
    double loss;
    fc_backend_masked_loss(be, &loss, NULL, 1.0f, c->yhat, c->y, c->mask, MN, c->kind);
    return loss;
}

static void check_loss(int kind) {
    static loss_ctx c;
    fill_uniform(c.yhat, MN, 60, -2, 2);
    fill_uniform(c.y, MN, 61, -2, 2);
    for (size_t i = 0; i < MN; i++) {
        c.mask[i] = i % 5 == 0 ? 0.0f : 1.0f;
        if (fabsf(c.yhat[i] - c.y[i]) < 3 * EPS) c.yhat[i] = c.y[i] + 0.5f; /* off the MAE kink */
    }
    c.kind = kind;
    float g[MN];
    double loss;
    fc_backend_masked_loss(be, &loss, g, 1.0f, c.yhat, c.y, c.mask, MN, kind);
    check_grad(kind ? "masked MSE" : "masked MAE", loss_objective, &c, c.yhat, MN, g);
}

int main(void) {
    CHECK(fc_backend_cpu_create(0, &be) == FC_OK);
    if (!be) return CHECK_DONE();
    check_linear(FC_ACT_NONE);
    check_linear(FC_ACT_RELU);
    check_relu();
    check_maxpool();
    check_interp(5, 12);
    check_interp(7, 3);
    check_interp(1, 4);
    check_rows();
    check_loss(0);
    check_loss(1);
    fc_backend_destroy(&be);
    return CHECK_DONE();
}
