/* The table of TA-Lib's Overlap Studies, from its list in kernels/ta/ta_overlap.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_overlap.h"

const fc_ta_impl fc_ta_impl_overlap[] = {FC_TA_LIST_OVERLAP(FC_TA_IMPL_ENTRY){0}};
