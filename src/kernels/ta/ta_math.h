/* TA-Lib's Math Transform and Math Operators (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_mth_... */
#ifndef FC_KERNELS_TA_MATH_H
#define FC_KERNELS_TA_MATH_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_MATH(X)

#endif
