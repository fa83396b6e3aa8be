/* TA-Lib's Momentum Indicators, AC to MFI (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_moma_... */
#ifndef FC_KERNELS_TA_MOMENTUM_A_H
#define FC_KERNELS_TA_MOMENTUM_A_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_MOMENTUM_A(X)

#endif
