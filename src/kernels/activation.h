/* Activation bodies shared by the CPU and CUDA backends. The CPU forward
 * ReLU is fused into the oneDNN matmul (an eltwise post-op); these bodies
 * serve the backward pass and any unfused use. */
#ifndef FC_KERNELS_ACTIVATION_H
#define FC_KERNELS_ACTIVATION_H

#include "core/hd.h"

FC_HD float fc_relu(float x) { return x > 0.0f ? x : 0.0f; }

/* d relu given the forward OUTPUT y, as torch's threshold_backward(dy, y, 0):
 * the gradient is zeroed where y <= 0 and passed otherwise, so a NaN output
 * lets the (NaN-producing) gradient through instead of hiding it. */
FC_HD float fc_relu_backward(float dy, float y) { return y <= 0.0f ? 0.0f : dy; }

#endif
