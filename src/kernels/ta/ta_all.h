/* Every TA-Lib function body (the group headers of this folder), an id per
 * function and the one dispatch from id to body that the CPU driver
 * (quant/ta_compute.c) and the CUDA kernel (backend/cuda/cuda_ta.cu) both
 * call, so the CPU's tests run the GPU's path to each body. */
#ifndef FC_KERNELS_TA_ALL_H
#define FC_KERNELS_TA_ALL_H

#include "kernels/ta/ta_cycle.h"
#include "kernels/ta/ta_math.h"
#include "kernels/ta/ta_momentum_a.h"
#include "kernels/ta/ta_momentum_b.h"
#include "kernels/ta/ta_overlap.h"
#include "kernels/ta/ta_pattern_a.h"
#include "kernels/ta/ta_pattern_b.h"
#include "kernels/ta/ta_price.h"
#include "kernels/ta/ta_statistic.h"
#include "kernels/ta/ta_volatility.h"
#include "kernels/ta/ta_volume.h"

#define FC_TA_ALL(X)                                                                                  \
    FC_TA_LIST_OVERLAP(X) FC_TA_LIST_MOMENTUM_A(X) FC_TA_LIST_MOMENTUM_B(X) FC_TA_LIST_VOLUME(X)    \
    FC_TA_LIST_VOLATILITY(X) FC_TA_LIST_PRICE(X) FC_TA_LIST_CYCLE(X) FC_TA_LIST_STATISTIC(X)         \
    FC_TA_LIST_MATH(X) FC_TA_LIST_PATTERN_A(X) FC_TA_LIST_PATTERN_B(X)

#define FC_TA_ID_ENTRY(NAME, name, work) FC_TA_ID_##NAME,
typedef enum { FC_TA_ALL(FC_TA_ID_ENTRY) FC_TA_ID_COUNT } fc_ta_id;
#undef FC_TA_ID_ENTRY

/* Runs function `id` on the call; 0 if there is no such id. */
FC_HD int fc_ta_dispatch(int id, const fc_ta_call *c) {
#define FC_TA_CASE(NAME, name, work) \
    case FC_TA_ID_##NAME:            \
        fc_ta_##name(c);             \
        return 1;
    switch (id) {
        FC_TA_ALL(FC_TA_CASE)
    default: return 0;
    }
#undef FC_TA_CASE
}

#endif
