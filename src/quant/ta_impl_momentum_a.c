/* The table of TA-Lib's Momentum Indicators, AC to MFI, from its list in kernels/ta/ta_momentum_a.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_momentum_a.h"

const fc_ta_impl fc_ta_impl_momentum_a[] = {FC_TA_LIST_MOMENTUM_A(FC_TA_IMPL_ENTRY){0}};
