/* TA-Lib's Momentum Indicators, MINUS_DI to WILLR (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_momb_... */
#ifndef FC_KERNELS_TA_MOMENTUM_B_H
#define FC_KERNELS_TA_MOMENTUM_B_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_MOMENTUM_B(X)

#endif
