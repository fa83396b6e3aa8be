/* TA-Lib's Cycle Indicators (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_cyc_... */
#ifndef FC_KERNELS_TA_CYCLE_H
#define FC_KERNELS_TA_CYCLE_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_CYCLE(X)

#endif
