/* The function bodies of TA-Lib's groups (kernels/ta/ta_<group>.h), one
 * table per group, each ending with an entry whose name is NULL; the
 * registry (quant/ta_registry.c) joins them to TA-Lib's descriptions. */
#ifndef FC_QUANT_TA_IMPL_H
#define FC_QUANT_TA_IMPL_H

#include "kernels/ta/ta_call.h"

extern const fc_ta_impl fc_ta_impl_overlap[], fc_ta_impl_momentum_a[], fc_ta_impl_momentum_b[],
    fc_ta_impl_volume[], fc_ta_impl_volatility[], fc_ta_impl_price[], fc_ta_impl_cycle[],
    fc_ta_impl_statistic[], fc_ta_impl_math[], fc_ta_impl_pattern_a[], fc_ta_impl_pattern_b[];

#endif
