/* The table of TA-Lib's Price Transform, from its list in kernels/ta/ta_price.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_price.h"

const fc_ta_impl fc_ta_impl_price[] = {FC_TA_LIST_PRICE(FC_TA_IMPL_ENTRY){0}};
