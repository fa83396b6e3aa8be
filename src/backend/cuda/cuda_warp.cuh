/* Warp-level sums shared by the CUDA kernels that reduce one row per warp
 * (layer norm, RevIN's window statistics): the same additions, in the same
 * order, as the CPU's lane-by-lane bodies of kernels/layer_norm.h. */
#ifndef FC_BACKEND_CUDA_WARP_CUH
#define FC_BACKEND_CUDA_WARP_CUH

#include "kernels/layer_norm.h"   /* FC_LN_LANES */

#define FC_FULL_WARP 0xffffffffu

/* fc_layer_norm_total over the warp: every lane adds the 32 lanes'
 * partials in lane order from 0.0, the CPU's additions, so every lane
 * holds the same bits. The shuffles return only once every lane has
 * computed its partial, that is, has read its part of the row. */
static __device__ double fc_warp_total(double part) {
    double t = 0.0;
#pragma unroll
    for (int l = 0; l < FC_LN_LANES; l++) t += __shfl_sync(FC_FULL_WARP, part, l);
    return t;
}

#endif
