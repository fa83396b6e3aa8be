/* The table of TA-Lib's Pattern Recognition, CDLHOMINGPIGEON to CDLXSIDEGAP3METHODS, from its list in kernels/ta/ta_pattern_b.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_pattern_b.h"

const fc_ta_impl fc_ta_impl_pattern_b[] = {FC_TA_LIST_PATTERN_B(FC_TA_IMPL_ENTRY){0}};
