/* The table of every TA-Lib function body, from the group lists of
 * kernels/ta/ta_all.h, ending with an entry whose name is NULL. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_all.h"

const fc_ta_impl fc_ta_impls[] = {FC_TA_ALL(FC_TA_IMPL_ENTRY){0}};
