/* The table of TA-Lib's Cycle Indicators, from its list in kernels/ta/ta_cycle.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_cycle.h"

const fc_ta_impl fc_ta_impl_cycle[] = {FC_TA_LIST_CYCLE(FC_TA_IMPL_ENTRY){0}};
