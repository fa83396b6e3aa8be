/* TA-Lib's Pattern Recognition, CDL2CROWS to CDLHIKKAKEMOD (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_pta_... */
#ifndef FC_KERNELS_TA_PATTERN_A_H
#define FC_KERNELS_TA_PATTERN_A_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"
#include "kernels/ta/ta_candle.h"

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_PATTERN_A(X)

#endif
