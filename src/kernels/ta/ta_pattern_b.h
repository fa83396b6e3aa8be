/* TA-Lib's Pattern Recognition, CDLHOMINGPIGEON to CDLXSIDEGAP3METHODS (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_ptb_... */
#ifndef FC_KERNELS_TA_PATTERN_B_H
#define FC_KERNELS_TA_PATTERN_B_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"
#include "kernels/ta/ta_candle.h"

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_PATTERN_B(X)

#endif
