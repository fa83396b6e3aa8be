/* Body of the backend's layer_norm_forward and layer_norm_backward:
 * torch.nn.LayerNorm(D) with an elementwise affine, over the D values of
 * each row of a (B, D) block.
 *
 * Forward, per row:
 *   m    = sum(x) / D                        (double)
 *   var  = sum((x - m)^2) / D                (double, biased, two passes)
 *   mean = (float)m,  rstd = (float)(1 / sqrt(var + eps))   (saved, (B))
 *   xhat = (x - mean) * rstd                 (double, from the saved floats)
 *   y    = (float)(xhat * gamma + beta)
 * Backward, per row, with g = dy * gamma (exact in double):
 *   mg  = sum(g) / D,  mgx = sum(g * xhat) / D                      (double)
 *   dx  = (float)(rstd * ((g - mg) - xhat * mgx))
 * and per column, over the rows in order r = 0, 1, ..., B-1:
 *   dgamma += (float)sum_r(dy * xhat),  dbeta += (float)sum_r(dy)   (double sums)
 *
 * Why double: D runs to a few thousand and B to a few hundred thousand, so
 * a float sum would carry up to ~D/32 2^-24 (a row's lane partials) or
 * ~B 2^-24 (a column) of its terms' size in rounding, and the backward's
 * sum(g * xhat) cancels; in double the sums are accurate to far below the
 * one rounding to float at the end (their order decides only which bits,
 * fixed below). The scalers (kernels/scaler.h) take their statistics in
 * double for the same reason. xhat is a function of x and the SAVED float
 * mean and rstd in both directions, so the backward differentiates exactly
 * the forward that ran.
 * The cost is double arithmetic on the GPU: some ten double operations
 * per element against the 8 bytes it moves, which data-centre GPUs (FP64
 * at half the float rate) hide entirely and consumer GPUs (1/64) keep
 * within a small factor of memory speed.
 *
 * Order of the row sums: every row sum is cut into FC_LN_LANES lane
 * partials, lane l adding elements l, l + 32, l + 64, ... in order from
 * 0.0, and the partials are added in lane order from 0.0
 * (fc_layer_norm_total). The GPU runs one warp per row, lane l of the warp
 * computing partial l (coalesced loads) and every lane adding the 32
 * partials in that order; the CPU calls the same lane bodies one lane after
 * the other. Every operation here is an IEEE add, multiply, divide, square
 * root or conversion, correctly rounded on both devices (the CUDA library
 * is built with --fmad=false, the C build with -std=c11, which keeps GCC
 * from contracting), so the two give the same bits, for any thread count. */
#ifndef FC_KERNELS_LAYER_NORM_H
#define FC_KERNELS_LAYER_NORM_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

/* Partials per row sum: a CUDA warp's lanes. */
#define FC_LN_LANES 32

/* ---- row sums, lane by lane ---- */

/* Lane `lane`'s partial of sum(x) over a row of D. */
FC_HD double fc_layer_norm_lane_sum(const float *x, size_t D, size_t lane) {
    double s = 0.0;
    for (size_t j = lane; j < D; j += FC_LN_LANES) s += (double)x[j];
    return s;
}

/* Lane `lane`'s partial of sum((x - m)^2). */
FC_HD double fc_layer_norm_lane_sqdev(const float *x, size_t D, double m, size_t lane) {
    double s = 0.0;
    for (size_t j = lane; j < D; j += FC_LN_LANES) {
        double d = (double)x[j] - m;
        s += d * d;
    }
    return s;
}

/* The FC_LN_LANES partials added in lane order. */
FC_HD double fc_layer_norm_total(const double *part) {
    double t = 0.0;
    for (size_t l = 0; l < FC_LN_LANES; l++) t += part[l];
    return t;
}

/* ---- forward ---- */

/* A row total over D: the mean of the row (sum(x), sum(g), sum(g xhat)). */
FC_HD double fc_layer_norm_mean(double total, size_t D) { return total / (double)D; }

/* rstd from the total of squared deviations (the biased variance's numerator). */
FC_HD float fc_layer_norm_rstd(double sqdev, size_t D, float eps) {
    return (float)(1.0 / sqrt(sqdev / (double)D + (double)eps));
}

FC_HD double fc_layer_norm_xhat(float x, float mean, float rstd) {
    return ((double)x - (double)mean) * (double)rstd;
}

/* One output value y[j] from x[j] and the row's saved statistics. */
FC_HD float fc_layer_norm_point(float x, float mean, float rstd, float gamma, float beta) {
    return (float)(fc_layer_norm_xhat(x, mean, rstd) * (double)gamma + (double)beta);
}

/* One row: y (D) from x (D); *mean, *rstd saved. Reads every x before it
 * writes y[j], and y[j] only from x[j]: y may be x. */
FC_HD void fc_layer_norm_row(float *y, const float *x, const float *gamma, const float *beta, float *mean,
                             float *rstd, size_t D, float eps) {
    double part[FC_LN_LANES];
    for (size_t l = 0; l < FC_LN_LANES; l++) part[l] = fc_layer_norm_lane_sum(x, D, l);
    double m = fc_layer_norm_mean(fc_layer_norm_total(part), D);
    for (size_t l = 0; l < FC_LN_LANES; l++) part[l] = fc_layer_norm_lane_sqdev(x, D, m, l);
    float mf = (float)m, rf = fc_layer_norm_rstd(fc_layer_norm_total(part), D, eps);
    *mean = mf;
    *rstd = rf;
    for (size_t j = 0; j < D; j++) y[j] = fc_layer_norm_point(x[j], mf, rf, gamma[j], beta[j]);
}

/* ---- backward: rows (dx) ---- */

/* Lane `lane`'s partials of sum(g) and sum(g xhat), g = dy gamma. */
FC_HD void fc_layer_norm_backward_lane_sums(const float *dy, const float *x, const float *gamma, float mean,
                                            float rstd, size_t D, size_t lane, double *sg, double *sgx) {
    double a = 0.0, b = 0.0;
    for (size_t j = lane; j < D; j += FC_LN_LANES) {
        double g = (double)dy[j] * (double)gamma[j];
        a += g;
        b += g * fc_layer_norm_xhat(x[j], mean, rstd);
    }
    *sg = a;
    *sgx = b;
}

/* dx[j] from dy[j], x[j] and the row's means mg = mean(g), mgx = mean(g xhat). */
FC_HD float fc_layer_norm_backward_point(float dy, float x, float gamma, float mean, float rstd, double mg,
                                         double mgx) {
    double g = (double)dy * (double)gamma;
    return (float)((double)rstd * ((g - mg) - fc_layer_norm_xhat(x, mean, rstd) * mgx));
}

/* One row: dx (D) from dy, x (D) and the saved mean, rstd. Reads every dy
 * before it writes dx[j], and dx[j] only from dy[j]: dx may be dy. */
FC_HD void fc_layer_norm_backward_row(float *dx, const float *dy, const float *x, const float *gamma, float mean,
                                      float rstd, size_t D) {
    double pg[FC_LN_LANES], pgx[FC_LN_LANES];
    for (size_t l = 0; l < FC_LN_LANES; l++)
        fc_layer_norm_backward_lane_sums(dy, x, gamma, mean, rstd, D, l, &pg[l], &pgx[l]);
    double mg = fc_layer_norm_mean(fc_layer_norm_total(pg), D);
    double mgx = fc_layer_norm_mean(fc_layer_norm_total(pgx), D);
    for (size_t j = 0; j < D; j++) dx[j] = fc_layer_norm_backward_point(dy[j], x[j], gamma[j], mean, rstd, mg, mgx);
}

/* ---- backward: columns (dgamma, dbeta) ---- */

/* Row r's term of column c's sums; a column adds its rows in order r = 0..B-1. */
FC_HD void fc_layer_norm_param_step(double *sg, double *sb, float dy, float x, float mean, float rstd) {
    *sg += (double)dy * fc_layer_norm_xhat(x, mean, rstd);
    *sb += (double)dy;
}

/* The column's sums, rounded to float once, accumulated into the gradients. */
FC_HD void fc_layer_norm_param_finish(float *dgamma, float *dbeta, double sg, double sb) {
    *dgamma += (float)sg;
    *dbeta += (float)sb;
}

#endif
