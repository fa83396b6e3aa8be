/* The table of TA-Lib's Pattern Recognition, CDL2CROWS to CDLHIKKAKEMOD, from its list in kernels/ta/ta_pattern_a.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_pattern_a.h"

const fc_ta_impl fc_ta_impl_pattern_a[] = {FC_TA_LIST_PATTERN_A(FC_TA_IMPL_ENTRY){0}};
