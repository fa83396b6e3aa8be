/* The table of TA-Lib's Momentum Indicators, MINUS_DI to WILLR, from its list in kernels/ta/ta_momentum_b.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_momentum_b.h"

const fc_ta_impl fc_ta_impl_momentum_b[] = {FC_TA_LIST_MOMENTUM_B(FC_TA_IMPL_ENTRY){0}};
