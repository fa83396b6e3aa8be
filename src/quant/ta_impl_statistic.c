/* The table of TA-Lib's Statistic Functions, from its list in kernels/ta/ta_statistic.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_statistic.h"

const fc_ta_impl fc_ta_impl_statistic[] = {FC_TA_LIST_STATISTIC(FC_TA_IMPL_ENTRY){0}};
