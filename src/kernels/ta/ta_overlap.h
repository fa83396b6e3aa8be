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

/* ------------------------------------------- MA and the MA family */

FC_HD int fc_ta_dema_lookback(const double *par) { return fc_ta_dema_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_dema(const fc_ta_call *c) { fc_ta_dema_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_tema_lookback(const double *par) { return fc_ta_tema_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_tema(const fc_ta_call *c) { fc_ta_tema_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_trima_lookback(const double *par) { return fc_ta_trima_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_trima(const fc_ta_call *c) { fc_ta_trima_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_kama_lookback(const double *par) { return fc_ta_kama_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_kama(const fc_ta_call *c) { fc_ta_kama_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_t3_lookback(const double *par) { return fc_ta_t3_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_t3(const fc_ta_call *c) { fc_ta_t3_p(fc_ta_int(c->par[0]), c->par[1], c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_hma_lookback(const double *par) { return fc_ta_hma_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_hma(const fc_ta_call *c) { fc_ta_hma_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0], c->work); }

FC_HD int fc_ta_zlema_lookback(const double *par) { return fc_ta_zlema_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_zlema(const fc_ta_call *c) { fc_ta_zlema_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_rma_lookback(const double *par) { return fc_ta_rma_p_lookback(fc_ta_int(par[0])); }
FC_HD void fc_ta_rma(const fc_ta_call *c) { fc_ta_rma_p(fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0]); }

FC_HD int fc_ta_mama_lookback(const double *par) { (void)par; return fc_ta_mama_p_lookback(); }
FC_HD void fc_ta_mama(const fc_ta_call *c) {
    fc_ta_mama_p(c->par[0], c->par[1], c->in[0], c->n, c->out[0], c->out[1]);
}

/* MA(timeperiod, matype): TA_MA itself. Listed as X(MA, ovl_ma, ...)
 * because fc_ta_ma / fc_ta_ma_lookback are the shared bodies of ta_ma.h. */
FC_HD int fc_ta_ovl_ma_lookback(const double *par) {
    return fc_ta_ma_lookback(fc_ta_int(par[1]), fc_ta_int(par[0]));
}
FC_HD void fc_ta_ovl_ma(const fc_ta_call *c) {
    fc_ta_ma(fc_ta_int(c->par[1]), fc_ta_int(c->par[0]), c->in[0], c->n, c->out[0], c->work);
}

/* X(NAME, name, work doubles per bar), one per function of this header. */
#define FC_TA_LIST_OVERLAP(X) \
    X(SMA, sma, 0) \
    X(EMA, ema, 0) \
    X(WMA, wma, 0) \
    X(DEMA, dema, 0) \
    X(TEMA, tema, 0) \
    X(TRIMA, trima, 0) \
    X(KAMA, kama, 0) \
    X(T3, t3, 0) \
    X(HMA, hma, 1) \
    X(ZLEMA, zlema, 0) \
    X(RMA, rma, 0) \
    X(MAMA, mama, 0) \
    X(MA, ovl_ma, FC_TA_MA_WORK)

#endif
