/* The function bodies of TA-Lib's groups (kernels/ta/ta_<group>.h), in one
 * table ending with an entry whose name is NULL (quant/ta_impl.c); the
 * registry (quant/ta_registry.c) joins them to TA-Lib's descriptions. */
#ifndef FC_QUANT_TA_IMPL_H
#define FC_QUANT_TA_IMPL_H

#include "kernels/ta/ta_call.h"

extern const fc_ta_impl fc_ta_impls[];

#endif
