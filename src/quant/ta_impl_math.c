/* The table of TA-Lib's Math Transform and Math Operators, from its list in kernels/ta/ta_math.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_math.h"

const fc_ta_impl fc_ta_impl_math[] = {FC_TA_LIST_MATH(FC_TA_IMPL_ENTRY){0}};
