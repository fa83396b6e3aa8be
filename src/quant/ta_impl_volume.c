/* The table of TA-Lib's Volume Indicators, from its list in kernels/ta/ta_volume.h. */
#include "quant/ta_impl.h"
#include "kernels/ta/ta_volume.h"

const fc_ta_impl fc_ta_impl_volume[] = {FC_TA_LIST_VOLUME(FC_TA_IMPL_ENTRY){0}};
