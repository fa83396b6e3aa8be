/* The backend's LSTM cell (lstm_cell_forward / lstm_cell_backward,
 * kernels/lstm_cell.h) on the CPU backend, which runs the bodies the CUDA
 * backend runs (test_backend_ops compares the two devices):
 *
 *   1. the forward against a double-precision cell written here from
 *      torch.nn.LSTM's equations, for random inputs with row strides wider
 *      than the rows (the gaps must survive), c_prev NULL and not, with
 *      all cores and with one thread (the same bits);
 *   2. the backward against central finite differences of
 *      J = sum(R1 * h) + sum(R2 * c) through the forward: d J / d
 *      pre-activations (dgates) and d J / d c_prev (dc on return), with
 *      dh = R1 and dc = R2 on entry. Twice: through the double cell (tight)
 *      and through the backend's own float forward (loose, but it ties the
 *      two entries of the backend together); c_prev NULL included, where
 *      both entries must give the bits of an explicit zero c_prev;
 *      dgates == gates (in place) gives the bits of separate buffers;
 *   3. closed forms: all pre-activations 0 give i = f = o = 1/2 and g = 0
 *      exactly, so c = c_prev / 2 and h = tanh(c) / 2, and the backward is
 *      di = 0, df = dct c_prev / 4, dg = dct / 2, do = dh tanh(c) / 4,
 *      dc_prev = dct / 2; saturated pre-activations (+-100) give gates of
 *      exactly 0, 1 and +-1 and no NaN. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "check.h"
#include "test_arrays.h"

/* ---- the cell in double, from torch.nn.LSTM's documentation ---- */

static double sigm(double x) { return 1.0 / (1.0 + exp(-x)); }

/* One row: pre (4H) -> act (4H), c (H), h (H); c_prev NULL is zeros.
 * When cs and hs are not NULL, the error scales of a float cell: for c the
 * sum of its terms' sizes |f c_prev| + |i g|, for h |o| (|tanh c| + cs)
 * (tanh passes c's absolute error on, with slope at most 1). */
static void cell_double(const double *pre, const double *c_prev, double *act, double *c, double *h, double *cs,
                        double *hs, size_t H) {
    for (size_t j = 0; j < H; j++) {
        double i = sigm(pre[j]), f = sigm(pre[H + j]), g = tanh(pre[2 * H + j]), o = sigm(pre[3 * H + j]);
        double cp = c_prev ? c_prev[j] : 0.0;
        if (act) act[j] = i, act[H + j] = f, act[2 * H + j] = g, act[3 * H + j] = o;
        c[j] = f * cp + i * g;
        h[j] = o * tanh(c[j]);
        if (cs) cs[j] = fabs(f * cp) + fabs(i * g), hs[j] = fabs(o) * (fabs(tanh(c[j])) + cs[j]);
    }
}

/* ---- helpers ---- */

/* The worst |got - want| / scale over n values (scale NULL: |want|). */
static double worst_err(const float *got, const double *want, const double *scale, size_t n) {
    double w = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs((double)got[i] - want[i]) / (scale ? scale[i] : fabs(want[i]));
        if (!(e <= w)) w = e;   /* NaN propagates as the worst */
    }
    return w;
}

/* ---- 1. forward against the double cell ---- */

static void check_forward(fc_backend *be, fc_backend *be1, size_t B, size_t H, size_t pad, int with_cprev,
                          uint64_t seed) {
    size_t ldg = 4 * H + pad, ldc = H + 2 * pad, ldh = H + 3 * pad;
    float *pre = randu(B * ldg, seed, -5, 5), *cp = randu(B * ldc, seed + 1, -3, 3);
    float *g = malloc(B * ldg * sizeof *g), *g1 = malloc(B * ldg * sizeof *g1);
    float *c = filled(B * ldc, NAN), *h = filled(B * ldh, NAN), *c1 = filled(B * ldc, NAN), *h1 = filled(B * ldh, NAN);
    memcpy(g, pre, B * ldg * sizeof *g);
    memcpy(g1, pre, B * ldg * sizeof *g);
    const float *cpp = with_cprev ? cp : NULL;
    be->lstm_cell_forward(be, g, ldg, cpp, c, ldc, h, ldh, B, H);
    be1->lstm_cell_forward(be1, g1, ldg, cpp, c1, ldc, h1, ldh, B, H);

    double *pd = malloc(4 * H * sizeof *pd), *cpd = malloc(H * sizeof *cpd), *act = malloc(4 * H * sizeof *act);
    double *cw = malloc(H * sizeof *cw), *hw = malloc(H * sizeof *hw), *cs = malloc(H * sizeof *cs);
    double *hs = malloc(H * sizeof *hs), wa = 0, wc = 0, wh = 0;
    size_t gaps_bad = 0;
    for (size_t r = 0; r < B; r++) {
        for (size_t k = 0; k < 4 * H; k++) pd[k] = pre[r * ldg + k];
        for (size_t j = 0; j < H; j++) cpd[j] = cp[r * ldc + j];
        cell_double(pd, with_cprev ? cpd : NULL, act, cw, hw, cs, hs, H);
        double e = worst_err(g + r * ldg, act, NULL, 4 * H);
        wa = e > wa ? e : wa;
        e = worst_err(c + r * ldc, cw, cs, H), wc = e > wc ? e : wc;
        e = worst_err(h + r * ldh, hw, hs, H), wh = e > wh ? e : wh;
        for (size_t k = 4 * H; k < ldg; k++) gaps_bad += memcmp(&g[r * ldg + k], &pre[r * ldg + k], 4) != 0;
        for (size_t k = H; k < ldc; k++) gaps_bad += !isnan(c[r * ldc + k]);
        for (size_t k = H; k < ldh; k++) gaps_bad += !isnan(h[r * ldh + k]);
    }
    /* glibc's expf (< 1 ulp) and tanhf (<= 2 ulp) and a float rounding per
     * step: sigmoid within 4 2^-24 of itself, tanh 4; c within 10 2^-24
     * of its terms' sizes, h 11 */
    CHECK_MSG(wa <= 8 * 0x1p-24 && wc <= 16 * 0x1p-24 && wh <= 16 * 0x1p-24, "forward B%zu H%zu c_prev %d: errors gates %.3g c %.3g h %.3g",
              B, H, with_cprev, wa, wc, wh);
    CHECK_MSG(gaps_bad == 0, "forward B%zu H%zu: %zu gap elements written", B, H, gaps_bad);
    CHECK_MSG(same_bits(g, g1, B * ldg) && same_bits(c, c1, B * ldc) && same_bits(h, h1, B * ldh),
              "forward B%zu H%zu: all cores and one thread differ", B, H);
    if (!with_cprev) {   /* NULL is the bits of a zero c_prev */
        float *z = filled(B * ldc, 0.0f), *g2 = malloc(B * ldg * sizeof *g2);
        float *c2 = filled(B * ldc, NAN), *h2 = filled(B * ldh, NAN);
        memcpy(g2, pre, B * ldg * sizeof *g2);
        be->lstm_cell_forward(be, g2, ldg, z, c2, ldc, h2, ldh, B, H);
        CHECK_MSG(same_bits(g, g2, B * ldg) && same_bits(c, c2, B * ldc) && same_bits(h, h2, B * ldh),
                  "forward B%zu H%zu: c_prev NULL differs from zeros", B, H);
        free(z), free(g2), free(c2), free(h2);
    }
    printf("forward  B%-4zu H%-4zu pad%zu c_prev %s: max err / scale: gates %.2e c %.2e h %.2e\n", B, H, pad,
           with_cprev ? "set " : "NULL", wa, wc, wh);
    free(pre), free(cp), free(g), free(g1), free(c), free(h), free(c1), free(h1);
    free(pd), free(cpd), free(act), free(cw), free(hw), free(cs), free(hs);
}

/* ---- 2. backward against finite differences ---- */

typedef struct {
    size_t B, H, ldg, ldc, ldh, lddg, lddc;
    float *pre, *cp;     /* the point: pre-activations (B, ldg), c_prev (B, ldc) */
    float *R1, *R2;      /* J's weights on h (B, ldh) and c (B, ldc) */
} fd_problem;

/* J in double through the double cell. */
static double J_double(const fd_problem *p, const double *pre, const double *cp) {
    size_t H = p->H;
    double J = 0, *c = malloc(H * sizeof *c), *h = malloc(H * sizeof *h);
    for (size_t r = 0; r < p->B; r++) {
        cell_double(pre + r * 4 * H, cp ? cp + r * H : NULL, NULL, c, h, NULL, NULL, H);
        for (size_t j = 0; j < H; j++) J += (double)p->R1[r * p->ldh + j] * h[j] + (double)p->R2[r * p->ldc + j] * c[j];
    }
    free(c), free(h);
    return J;
}

/* J in double of the backend's float forward at (pre, cp) (float, strided). */
static double J_backend(fc_backend *be, const fd_problem *p, const float *pre, const float *cp) {
    size_t B = p->B, H = p->H;
    float *g = malloc(B * p->ldg * sizeof *g), *c = malloc(B * p->ldc * sizeof *c), *h = malloc(B * p->ldh * sizeof *h);
    memcpy(g, pre, B * p->ldg * sizeof *g);
    be->lstm_cell_forward(be, g, p->ldg, cp, c, p->ldc, h, p->ldh, B, H);
    double J = 0;
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < H; j++)
            J += (double)p->R1[r * p->ldh + j] * h[r * p->ldh + j] + (double)p->R2[r * p->ldc + j] * c[r * p->ldc + j];
    free(g), free(c), free(h);
    return J;
}

/* The backend's backward at the point: dgates (B, lddg) and dc_prev (B, lddc). */
static void backward_at(fc_backend *be, const fd_problem *p, int with_cprev, float *dgates, float *dcp) {
    size_t B = p->B, H = p->H;
    float *g = malloc(B * p->ldg * sizeof *g), *c = filled(B * p->ldc, NAN), *h = filled(B * p->ldh, NAN);
    memcpy(g, p->pre, B * p->ldg * sizeof *g);
    const float *cp = with_cprev ? p->cp : NULL;
    be->lstm_cell_forward(be, g, p->ldg, cp, c, p->ldc, h, p->ldh, B, H);
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < H; j++) dcp[r * p->lddc + j] = p->R2[r * p->ldc + j];
    be->lstm_cell_backward(be, dgates, p->lddg, g, p->ldg, cp, c, p->ldc, p->R1, p->ldh, dcp, p->lddc, B, H);
    free(g), free(c), free(h);
}

static void check_backward(fc_backend *be, size_t B, size_t H, size_t pad, int with_cprev, uint64_t seed) {
    fd_problem p = {.B = B, .H = H, .ldg = 4 * H + pad, .ldc = H + 2 * pad, .ldh = H + pad, .lddg = 4 * H + 3 * pad,
                    .lddc = H + 4 * pad};
    p.pre = randu(B * p.ldg, seed, -3, 3);
    p.cp = randu(B * p.ldc, seed + 1, -2, 2);
    p.R1 = randu(B * p.ldh, seed + 2, -1, 1);
    p.R2 = randu(B * p.ldc, seed + 3, -1, 1);
    float *dg = filled(B * p.lddg, NAN), *dcp = filled(B * p.lddc, NAN);
    backward_at(be, &p, with_cprev, dg, dcp);

    /* gaps of dgates and dc untouched */
    size_t gaps_bad = 0;
    for (size_t r = 0; r < B; r++) {
        for (size_t k = 4 * H; k < p.lddg; k++) gaps_bad += !isnan(dg[r * p.lddg + k]);
        for (size_t k = H; k < p.lddc; k++) gaps_bad += !isnan(dcp[r * p.lddc + k]);
    }
    CHECK_MSG(gaps_bad == 0, "backward B%zu H%zu: %zu gap elements written", B, H, gaps_bad);

    /* packed double copies of the point, c_prev zeros when NULL (d J / d c_prev
     * at c_prev = 0 is what dc returns then) */
    double *pre = malloc(B * 4 * H * sizeof *pre), *cp = malloc(B * H * sizeof *cp);
    for (size_t r = 0; r < B; r++) {
        for (size_t k = 0; k < 4 * H; k++) pre[r * 4 * H + k] = p.pre[r * p.ldg + k];
        for (size_t j = 0; j < H; j++) cp[r * H + j] = with_cprev ? p.cp[r * p.ldc + j] : 0.0;
    }
    float *pre_f = malloc(B * p.ldg * sizeof *pre_f), *cp_f = malloc(B * p.ldc * sizeof *cp_f);
    memcpy(pre_f, p.pre, B * p.ldg * sizeof *pre_f);
    for (size_t i = 0; i < B * p.ldc; i++) cp_f[i] = with_cprev ? p.cp[i] : 0.0f;

    /* Double: eps 1e-5 leaves truncation ~1e-10 and rounding ~1e-11, so the
     * error is the float backward's own (~1e-7 of the gradient's terms).
     * Float forward: eps 1/64 (exact in float), truncation ~1e-4 times the
     * third derivative, rounding ~1e-7 / 2 eps ~ 1e-5. */
    const double eps_d = 1e-5;
    const float eps_f = 0x1p-6f;
    double worst_d = 0, worst_f = 0;
    for (size_t r = 0; r < B; r++)
        for (size_t k = 0; k < 5 * H; k++) {   /* 4H pre-activations, then H c_prev */
            int is_g = k < 4 * H;
            double *xd = is_g ? &pre[r * 4 * H + k] : &cp[r * H + (k - 4 * H)];
            float *xf = is_g ? &pre_f[r * p.ldg + k] : &cp_f[r * p.ldc + (k - 4 * H)];
            float got = is_g ? dg[r * p.lddg + k] : dcp[r * p.lddc + (k - 4 * H)];
            double x0 = *xd;
            *xd = x0 + eps_d;
            double jp = J_double(&p, pre, cp);
            *xd = x0 - eps_d;
            double jm = J_double(&p, pre, cp);
            *xd = x0;
            double fd = (jp - jm) / (2 * eps_d);
            double e = fabs(got - fd) / (1e-3 + fabs(fd));
            worst_d = e > worst_d ? e : worst_d;
            CHECK_MSG(fabs(got - fd) <= 2e-6 + 1e-5 * fabs(fd), "backward B%zu H%zu c_prev %d row %zu %s %zu: %.9g, fd %.9g",
                      B, H, with_cprev, r, is_g ? "dgates" : "dc_prev", is_g ? k : k - 4 * H, got, fd);
            float xf0 = *xf;
            /* the backend's forward with c_prev NULL cannot be perturbed in
             * c_prev: a zero buffer has its bits (checked in 1.) */
            *xf = xf0 + eps_f;
            jp = J_backend(be, &p, pre_f, cp_f);
            *xf = xf0 - eps_f;
            jm = J_backend(be, &p, pre_f, cp_f);
            *xf = xf0;
            fd = (jp - jm) / (2 * (double)eps_f);
            e = fabs(got - fd);
            worst_f = e > worst_f ? e : worst_f;
            CHECK_MSG(e <= 2e-4 + 2e-3 * fabs(fd), "backward B%zu H%zu c_prev %d row %zu %s %zu: %.9g, float fd %.9g", B,
                      H, with_cprev, r, is_g ? "dgates" : "dc_prev", is_g ? k : k - 4 * H, got, fd);
        }

    if (!with_cprev) {   /* NULL: the bits of an explicit zero c_prev, in both entries */
        fd_problem z = p;
        z.cp = filled(B * p.ldc, 0.0f);
        float *dg2 = filled(B * p.lddg, NAN), *dcp2 = filled(B * p.lddc, NAN);
        backward_at(be, &z, 1, dg2, dcp2);
        CHECK_MSG(same_bits(dg, dg2, B * p.lddg) && same_bits(dcp, dcp2, B * p.lddc),
                  "backward B%zu H%zu: c_prev NULL differs from zeros", B, H);
        free(z.cp), free(dg2), free(dcp2);
    }
    printf("backward B%-4zu H%-4zu pad%zu c_prev %s: vs double fd max rel %.2e, vs float-forward fd max abs %.2e\n", B, H,
           pad, with_cprev ? "set " : "NULL", worst_d, worst_f);
    free(p.pre), free(p.cp), free(p.R1), free(p.R2), free(dg), free(dcp), free(pre), free(cp), free(pre_f), free(cp_f);
}

/* dgates == gates, lddg == ldg: the bits of separate buffers. */
static void check_in_place(fc_backend *be, size_t B, size_t H, size_t pad, uint64_t seed) {
    size_t ldg = 4 * H + pad, ldc = H + pad;
    float *pre = randu(B * ldg, seed, -3, 3), *cp = randu(B * ldc, seed + 1, -2, 2);
    float *dh = randu(B * ldc, seed + 2, -1, 1), *dc0 = randu(B * ldc, seed + 3, -1, 1);
    float *c = filled(B * ldc, NAN), *h = filled(B * ldc, NAN);
    be->lstm_cell_forward(be, pre, ldg, cp, c, ldc, h, ldc, B, H);
    float *dg = filled(B * ldg, NAN), *dc = malloc(B * ldc * sizeof *dc), *dc2 = malloc(B * ldc * sizeof *dc2);
    memcpy(dc, dc0, B * ldc * sizeof *dc);
    memcpy(dc2, dc0, B * ldc * sizeof *dc);
    be->lstm_cell_backward(be, dg, ldg, pre, ldg, cp, c, ldc, dh, ldc, dc, ldc, B, H);
    float *gates = malloc(B * ldg * sizeof *gates);
    memcpy(gates, pre, B * ldg * sizeof *gates);
    be->lstm_cell_backward(be, gates, ldg, gates, ldg, cp, c, ldc, dh, ldc, dc2, ldc, B, H);
    int same = same_bits(dc, dc2, B * ldc);
    for (size_t r = 0; r < B; r++) {
        same &= same_bits(dg + r * ldg, gates + r * ldg, 4 * H);
        same &= same_bits(gates + r * ldg + 4 * H, pre + r * ldg + 4 * H, pad);   /* gaps kept */
    }
    CHECK_MSG(same, "backward B%zu H%zu in place differs from separate buffers", B, H);
    free(pre), free(cp), free(dh), free(dc0), free(c), free(h), free(dg), free(dc), free(dc2), free(gates);
}

/* ---- 3. closed forms ---- */

static void check_closed_forms(fc_backend *be) {
    enum { B = 3, H = 6 };
    float pre[B * 4 * H], cp[B * H], c[B * H], h[B * H], dh[B * H], dc[B * H], dg[B * 4 * H];
    float *r_cp = randu(B * H, 91, -4, 4), *r_dh = randu(B * H, 92, -1, 1), *r_dc = randu(B * H, 93, -1, 1);
    memcpy(cp, r_cp, sizeof cp);
    memcpy(dh, r_dh, sizeof dh);
    memcpy(dc, r_dc, sizeof dc);
    for (size_t i = 0; i < B * 4 * H; i++) pre[i] = 0.0f;
    be->lstm_cell_forward(be, pre, 4 * H, cp, c, H, h, H, B, H);
    size_t bad = 0;
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < H; j++) {
            const float *g = pre + r * 4 * H;
            bad += g[j] != 0.5f || g[H + j] != 0.5f || g[2 * H + j] != 0.0f || g[3 * H + j] != 0.5f;
            float cw = 0.5f * cp[r * H + j];   /* exact: a halving */
            bad += c[r * H + j] != cw;
            double hw = 0.5 * tanh((double)cw);
            bad += fabs(h[r * H + j] - hw) > 8 * 0x1p-24 * fabs(hw);   /* tanhf: <= 2 ulp */
        }
    CHECK_MSG(bad == 0, "zero pre-activations: %zu of %d units not i = f = o = 1/2, g = 0, c = c_prev/2, "
              "h = tanh(c)/2", bad, B * H);

    be->lstm_cell_backward(be, dg, 4 * H, pre, 4 * H, cp, c, H, dh, H, dc, H, B, H);
    bad = 0;
    for (size_t r = 0; r < B; r++)
        for (size_t j = 0; j < H; j++) {
            size_t u = r * H + j;
            double tc = tanh((double)c[u]), dct = r_dc[u] + 0.5 * r_dh[u] * (1 - tc * tc);
            const float *d = dg + r * 4 * H;
            double want[5] = {0.0, 0.25 * dct * cp[u], 0.5 * dct, 0.25 * r_dh[u] * tc, 0.5 * dct};
            float got[5] = {d[j], d[H + j], d[2 * H + j], d[3 * H + j], dc[u]};
            for (int q = 0; q < 5; q++) bad += fabs(got[q] - want[q]) > 1e-6 * (1 + fabs(want[q]));
            bad += d[j] != 0.0f;   /* di = dct g ... with g = 0 exactly */
        }
    CHECK_MSG(bad == 0, "zero pre-activations: %zu backward values off the closed form", bad);

    /* Saturation: +-100 gives exact 0 / 1 gates, g = +-1, and finite c and h. */
    for (size_t i = 0; i < B * 4 * H; i++) pre[i] = (i / 3) % 2 ? 100.0f : -100.0f;
    float pre0[B * 4 * H];
    memcpy(pre0, pre, sizeof pre);
    be->lstm_cell_forward(be, pre, 4 * H, cp, c, H, h, H, B, H);
    bad = 0;
    for (size_t r = 0; r < B; r++)
        for (size_t k = 0; k < 4 * H; k++) {
            size_t i = r * 4 * H + k;
            float want = (k / H == 2) ? (pre0[i] > 0 ? 1.0f : -1.0f) : (pre0[i] > 0 ? 1.0f : 0.0f);
            bad += pre[i] != want;
        }
    for (size_t u = 0; u < B * H; u++) bad += !isfinite(c[u]) || !isfinite(h[u]);
    for (size_t u = 0; u < B * H; u++) dc[u] = r_dc[u];
    be->lstm_cell_backward(be, dg, 4 * H, pre, 4 * H, cp, c, H, dh, H, dc, H, B, H);
    for (size_t i = 0; i < B * 4 * H; i++) bad += !isfinite(dg[i]);
    for (size_t u = 0; u < B * H; u++) bad += !isfinite(dc[u]);
    CHECK_MSG(bad == 0, "saturated pre-activations: %zu values not the exact gates or not finite", bad);
    printf("closed forms: zero pre-activations and saturation checked\n");
    free(r_cp), free(r_dh), free(r_dc);
}

int main(void) {
    fc_backend *be = cpu_backend(0), *be1 = cpu_backend(1);
    check_forward(be, be1, 1, 1, 0, 1, 11);
    check_forward(be, be1, 3, 7, 2, 1, 12);
    check_forward(be, be1, 4, 5, 3, 0, 13);
    check_forward(be, be1, 300, 40, 1, 1, 14);   /* 12000 points: the parallel path */
    check_forward(be, be1, 300, 40, 5, 0, 15);
    check_backward(be, 1, 1, 0, 1, 21);
    check_backward(be, 3, 5, 2, 1, 22);
    check_backward(be, 2, 4, 3, 0, 23);
    check_backward(be, 4, 3, 1, 0, 24);
    check_in_place(be, 3, 7, 2, 31);
    check_in_place(be, 300, 40, 1, 32);
    check_closed_forms(be);
    fc_backend_destroy(&be);
    fc_backend_destroy(&be1);
    return CHECK_DONE();
}
