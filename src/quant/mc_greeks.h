/* Monte Carlo Greeks of European options (kernels/quant_mc_greeks.h):
 * pathwise delta and vega, likelihood-ratio delta, gamma and vega, each
 * with its standard error, from the paths of the one-step European Monte
 * Carlo price (mc_options.h) for the same seed. */
#ifndef FC_QUANT_MC_GREEKS_H
#define FC_QUANT_MC_GREEKS_H

#include <stdint.h>
#include "fcast/status.h"
#include "quant/black_scholes.h"

typedef struct {
    double delta, delta_se, gamma, gamma_se, vega, vega_se;   /* pathwise: gamma and gamma_se NaN */
    uint64_t paths;
} fc_mc_greeks;

/* method: FC_GREEKS_PATHWISE or FC_GREEKS_LR. paths rounded up to whole
 * draws (2 paths, 4 with antithetic). */
fc_status fc_mc_greeks_price(fc_option_type type, const fc_bs_market *m, int method, uint64_t paths, int antithetic,
                             uint64_t seed, fc_mc_greeks *out);

#endif
