/* TA-Lib's Overlap Studies (see kernels/ta/ta_call.h for the contract).
 * Private helpers here are named fc_ta_ovl_... */
#ifndef FC_KERNELS_TA_OVERLAP_H
#define FC_KERNELS_TA_OVERLAP_H

#include "kernels/ta/ta_call.h"
#include "kernels/ta/ta_ma.h"

/* ------------------------------------------------- SMA, EMA, WMA */

FC_HD int fc_ta_sma_lookback(const double *par) { return fc_ta_sma_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_sma(const fc_ta_call *c) { fc_ta_sma_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_ema_lookback(const double *par) { return fc_ta_ema_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_ema(const fc_ta_call *c) { fc_ta_ema_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_wma_lookback(const double *par) { return fc_ta_wma_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_wma(const fc_ta_call *c) { fc_ta_wma_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_OVERLAP(X) \
    X(SMA, sma, 0) \
    X(EMA, ema, 0) \
    X(WMA, wma, 0)

#endif
