/* Black-Scholes-Merton implied volatility of European options (the solver:
 * kernels/quant_implied_vol.h): many options at once over OpenMP, each
 * with the reason it has none. */
#ifndef FC_QUANT_IMPLIED_VOL_H
#define FC_QUANT_IMPLIED_VOL_H

#include <stddef.h>
#include "fcast/status.h"

/* n options, one value each; rate and div may be NULL (0). */
typedef struct {
    size_t n;
    const int *is_call;   /* 1 call, 0 put */
    const double *spot, *strike, *rate, *div, *expiry, *price;
} fc_iv_batch;

/* vol[i] for every option and code[i] (FC_IV_OK, or why vol[i] is NaN:
 * kernels/quant_implied_vol.h). The inputs must have passed fc_iv_check. */
void fc_implied_vols(const fc_iv_batch *b, double *vol, int *code);

/* Option i's inputs: S, K, T positive, r, q and the price finite. The
 * message names the field and `where` (e.g. "option 3", "x.csv:4"). */
fc_status fc_iv_check(const fc_iv_batch *b, size_t i, const char *where);

/* The error for option i's code (not FC_IV_OK): names `where`, the price
 * and the bound it breaks, e.g. "x.csv:4: price 61 of the call is at or
 * above its upper bound S e^{-qT} = 60.9". */
fc_status fc_iv_error(const fc_iv_batch *b, size_t i, int code, const char *where);

/* The reason for a code in a few words ("below the lower bound"). */
const char *fc_iv_reason(int code);

#endif
