/* TA-Lib's Price Transform (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_prc_... */
#ifndef FC_KERNELS_TA_PRICE_H
#define FC_KERNELS_TA_PRICE_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_PRICE(X)

#endif
