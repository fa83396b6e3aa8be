/* Body of the backend's batch_norm_forward and batch_norm_backward:
 * torch.nn.BatchNorm1d(C) over the N rows of an (N, C) block (PatchTST's
 * BatchNorm on (batch * patches, hidden) through its Transposes), each
 * column normalised with the statistics of its N values.
 *
 * Training forward, per column c:
 *   m    = sum(x) / N                          (double)
 *   q    = sum((x - m)^2)                      (double, two passes)
 *   mean = (float)m,  rstd = (float)(1 / sqrt(q / N + eps))   (saved, (C))
 *   xhat = (x - mean) * rstd                   (double, from the saved floats)
 *   y    = (float)(xhat * gamma + beta)
 *   running_mean = (float)((1 - momentum) running_mean + momentum m)
 *   running_var  = (float)((1 - momentum) running_var + momentum q / (N - 1))
 * (the running updates in double from the double m and q: the unbiased
 * variance q / (N - 1) is torch's var N / (N - 1) without the extra
 * rounding). Eval, per point:
 *   y = (float)((x - running_mean) / sqrt(running_var + eps) * gamma + beta)   (double)
 * Backward, per column, with g = dy * gamma (exact in double):
 *   sb = sum(dy),  sgx = sum(dy * xhat)                              (double)
 *   dx = (float)(rstd * ((g - gamma sb / N) - xhat * gamma sgx / N))
 *   dgamma += (float)sgx,  dbeta += (float)sb
 * which is rstd (g - mean(g) - xhat mean(g xhat)): mean(g) = gamma mean(dy)
 * since gamma is the column's, so one pair of sums serves dx, dgamma and
 * dbeta. Why double, and why xhat from the saved floats: as
 * kernels/layer_norm.h (a column sum runs over N = batch * patches, tens of
 * thousands of rows; the backward differentiates the forward that ran).
 *
 * Order of every column sum: FC_BN_LANES lane partials, lane l adding rows
 * l, l + FC_BN_LANES, l + 2 FC_BN_LANES, ... in increasing order from 0.0,
 * then a fixed halving tree over the lanes (fc_bn_tree: partial l += partial
 * l + h for h = FC_BN_LANES / 2, ..., 2, 1; the total is partial 0). The
 * GPU runs one block of FC_BN_LANES threads per column, thread l computing
 * partial l (fc_bn_lane_sum and friends below) and the tree in shared
 * memory, level by level; the CPU walks the rows of a block of columns
 * once, in row order, adding row r into lane r mod FC_BN_LANES (the same
 * additions in the same order: a lane's rows arrive in increasing order),
 * then calls fc_bn_tree. Every operation is a correctly rounded IEEE one
 * on both devices (CUDA built with --fmad=false, C with -std=c11), so the
 * two give the same bits for any thread count (test_batch_norm checks the
 * GPU's lane bodies against the CPU backend bit for bit). */
#ifndef FC_KERNELS_BATCH_NORM_H
#define FC_KERNELS_BATCH_NORM_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

/* Partials per column sum: the threads of one CUDA block (a power of two,
 * for the halving tree). */
#define FC_BN_LANES 256

/* ---- column sums ---- */

/* The halving tree over FC_BN_LANES partials p[l * ld] (ld: the CPU keeps a
 * block of columns' partials interleaved), in place; returns the total. */
FC_HD double fc_bn_tree(double *p, size_t ld) {
    for (size_t h = FC_BN_LANES / 2; h > 0; h /= 2)
        for (size_t l = 0; l < h; l++) p[l * ld] += p[(l + h) * ld];
    return p[0];
}

FC_HD double fc_bn_sqdev_term(float x, double m) {
    double d = (double)x - m;
    return d * d;
}

/* Lane `lane`'s partial of column c's sum of x (N, C) (the GPU's thread). */
FC_HD double fc_bn_lane_sum(const float *x, size_t N, size_t C, size_t c, size_t lane) {
    double s = 0.0;
    for (size_t r = lane; r < N; r += FC_BN_LANES) s += (double)x[r * C + c];
    return s;
}

/* Lane `lane`'s partial of column c's sum of (x - m)^2. */
FC_HD double fc_bn_lane_sqdev(const float *x, size_t N, size_t C, size_t c, double m, size_t lane) {
    double s = 0.0;
    for (size_t r = lane; r < N; r += FC_BN_LANES) s += fc_bn_sqdev_term(x[r * C + c], m);
    return s;
}

/* ---- forward ---- */

FC_HD double fc_bn_mean(double total, size_t N) { return total / (double)N; }

FC_HD float fc_bn_rstd(double sqdev, size_t N, float eps) {
    return (float)(1.0 / sqrt(sqdev / (double)N + (double)eps));
}

/* The column's running statistics after one training step (m the double
 * mean, sqdev the total of squared deviations; N >= 2). */
FC_HD void fc_bn_running(float *running_mean, float *running_var, double m, double sqdev, size_t N,
                         float momentum) {
    double keep = 1.0 - (double)momentum;
    *running_mean = (float)(keep * (double)*running_mean + (double)momentum * m);
    *running_var = (float)(keep * (double)*running_var + (double)momentum * (sqdev / (double)(N - 1)));
}

FC_HD double fc_bn_xhat(float x, float mean, float rstd) { return ((double)x - (double)mean) * (double)rstd; }

/* One training output from x and the column's saved statistics. */
FC_HD float fc_bn_point(float x, float mean, float rstd, float gamma, float beta) {
    return (float)(fc_bn_xhat(x, mean, rstd) * (double)gamma + (double)beta);
}

/* One eval output from the running statistics. */
FC_HD float fc_bn_eval_point(float x, float running_mean, float running_var, float gamma, float beta, float eps) {
    double xhat = ((double)x - (double)running_mean) / sqrt((double)running_var + (double)eps);
    return (float)(xhat * (double)gamma + (double)beta);
}

/* ---- backward ---- */

/* Row r's terms of the column's sums: sb += dy, sgx += dy xhat. */
FC_HD void fc_bn_backward_terms(double *sb, double *sgx, float dy, float x, float mean, float rstd) {
    *sb += (double)dy;
    *sgx += (double)dy * fc_bn_xhat(x, mean, rstd);
}

/* Lane `lane`'s partials of column c's sb and sgx (the GPU's thread). */
FC_HD void fc_bn_lane_backward_sums(const float *dy, const float *x, size_t N, size_t C, size_t c, float mean,
                                    float rstd, size_t lane, double *sb, double *sgx) {
    double a = 0.0, b = 0.0;
    for (size_t r = lane; r < N; r += FC_BN_LANES)
        fc_bn_backward_terms(&a, &b, dy[r * C + c], x[r * C + c], mean, rstd);
    *sb = a;
    *sgx = b;
}

/* dx of one point; mg = gamma sb / N and mgx = gamma sgx / N are the
 * column's mean(g) and mean(g xhat) (fc_bn_backward_means). */
FC_HD float fc_bn_backward_point(float dy, float x, float gamma, float mean, float rstd, double mg, double mgx) {
    double g = (double)dy * (double)gamma;
    return (float)((double)rstd * ((g - mg) - fc_bn_xhat(x, mean, rstd) * mgx));
}

FC_HD void fc_bn_backward_means(double sb, double sgx, float gamma, size_t N, double *mg, double *mgx) {
    *mg = (double)gamma * (sb / (double)N);
    *mgx = (double)gamma * (sgx / (double)N);
}

/* The column's sums, rounded to float once, accumulated into the gradients. */
FC_HD void fc_bn_param_finish(float *dgamma, float *dbeta, double sb, double sgx) {
    *dgamma += (float)sgx;
    *dbeta += (float)sb;
}

#endif
