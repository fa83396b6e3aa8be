/* The table of TA-Lib's Volatility Indicators, from its list in kernels/ta/ta_volatility.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_volatility.h"

const fc_ta_impl fc_ta_impl_volatility[] = {FC_TA_LIST_VOLATILITY(FC_TA_IMPL_ENTRY){0}};
