/* Body of the backend's lstm_cell_forward and lstm_cell_backward: one step
 * of torch.nn.LSTM's cell over a batch, gates in torch's order i, f, g, o.
 * One point (b, j) of a (B, H) block computes all four gates of unit j of
 * row b, so each direction is one pass in which every point reads and
 * writes only its own elements (the CPU loops over points, the GPU runs
 * one thread per point, and their order cannot matter).
 *
 * Forward, per point, in float:
 *   i = sigmoid(gi), f = sigmoid(gf), g = tanh(gg), o = sigmoid(go)
 *   c = f * c_prev + i * g            (c_prev NULL: 0.0f, the same bits as a zero buffer)
 *   h = o * tanh(c)
 * where gi, gf, gg, go are the pre-activations x W_ih^T + b_ih + h_prev
 * W_hh^T + b_hh, which the forward overwrites with i, f, g, o for the
 * backward. sigmoid(x) = 1.0f / (1.0f + expf(-x)) and tanh is tanhf, the
 * float functions PyTorch's scalar CPU kernels call (sigmoid saturates to
 * exactly 0 and 1: expf(-x) overflows to inf, or underflows to 0; no NaN).
 *
 * Backward, per point, in float, in this order (the products left to right):
 *   tc  = tanh(c);  dct = dc + dh * o * (1 - tc * tc)
 *   di  = dct * g * i * (1 - i)
 *   df  = dct * c_prev * f * (1 - f)  (c_prev NULL: 0.0f)
 *   dg  = dct * i * (1 - g * g)
 *   do  = dh * tc * o * (1 - o)
 *   dc_prev = dct * f                 (into dc, in place)
 * with dh the gradient of the step's hidden output (every path into it)
 * and dc on entry the gradient of c from the next step.
 *
 * The CPU and CUDA backends run these same bodies, with the same float
 * operations in the same order (nvcc with --fmad=false, the C build with
 * -std=c11, whose -ffp-contract=off keeps GCC from fusing them either).
 * What can differ is expf and tanhf themselves: glibc's and CUDA's are each
 * within 2 ulp of the exact value but are not the same functions, so the
 * two devices may differ in the last bits (tests/test_backend_ops.c
 * compares both with a double-precision reference, TOL_LSTM). */
#ifndef FC_KERNELS_LSTM_CELL_H
#define FC_KERNELS_LSTM_CELL_H

#include <math.h>
#include <stddef.h>
#include "core/hd.h"

FC_HD float fc_lstm_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

/* Unit j (0 <= j < H) of one row: gates (4H) pre-activations in,
 * activations out; c_prev (H, NULL: zeros), c (H) and h (H). */
FC_HD void fc_lstm_cell_point(float *gates, const float *c_prev, float *c, float *h, size_t H, size_t j) {
    float i = fc_lstm_sigmoid(gates[j]);
    float f = fc_lstm_sigmoid(gates[H + j]);
    float g = tanhf(gates[2 * H + j]);
    float o = fc_lstm_sigmoid(gates[3 * H + j]);
    float cp = c_prev ? c_prev[j] : 0.0f;
    float cn = f * cp + i * g;
    gates[j] = i;
    gates[H + j] = f;
    gates[2 * H + j] = g;
    gates[3 * H + j] = o;
    c[j] = cn;
    h[j] = o * tanhf(cn);
}

/* Unit j of one row's backward: dgates (4H) overwritten, from the
 * activated gates (4H), c_prev (H, NULL: zeros), c (H), dh (H); dc (H)
 * in place, d c on entry and d c_prev on return. Reads all four gates
 * before it writes any d gate, so dgates may be gates itself. */
FC_HD void fc_lstm_cell_backward_point(float *dgates, const float *gates, const float *c_prev, const float *c,
                                       const float *dh, float *dc, size_t H, size_t j) {
    float i = gates[j], f = gates[H + j], g = gates[2 * H + j], o = gates[3 * H + j];
    float cp = c_prev ? c_prev[j] : 0.0f;
    float dhj = dh[j];
    float tc = tanhf(c[j]);
    float dct = dc[j] + dhj * o * (1.0f - tc * tc);
    dgates[j] = dct * g * i * (1.0f - i);
    dgates[H + j] = dct * cp * f * (1.0f - f);
    dgates[2 * H + j] = dct * i * (1.0f - g * g);
    dgates[3 * H + j] = dhj * tc * o * (1.0f - o);
    dc[j] = dct * f;
}

/* One row of each, in unit order. */
FC_HD void fc_lstm_cell_row(float *gates, const float *c_prev, float *c, float *h, size_t H) {
    for (size_t j = 0; j < H; j++) fc_lstm_cell_point(gates, c_prev, c, h, H, j);
}

FC_HD void fc_lstm_cell_backward_row(float *dgates, const float *gates, const float *c_prev, const float *c,
                                     const float *dh, float *dc, size_t H) {
    for (size_t j = 0; j < H; j++) fc_lstm_cell_backward_point(dgates, gates, c_prev, c, dh, dc, H, j);
}

#endif
