/* Implied volatilities over arrays of options (see implied_vol.h). */
#include "quant/implied_vol.h"

#include <math.h>
#include "core/error.h"
#include "kernels/quant_implied_vol.h"

/* Fewer options than this are not worth a team of threads. */
#define PARALLEL_MIN_OPTIONS 4096

static double at(const double *a, size_t i) { return a ? a[i] : 0.0; }

void fc_implied_vols(const fc_iv_batch *b, double *vol, int *code) {
#pragma omp parallel for schedule(static) if (b->n >= PARALLEL_MIN_OPTIONS)
    for (size_t i = 0; i < b->n; i++)
        code[i] = fc_implied_vol(b->is_call[i], b->spot[i], b->strike[i], at(b->rate, i), at(b->div, i),
                                 b->expiry[i], b->price[i], &vol[i]);
}

fc_status fc_iv_check(const fc_iv_batch *b, size_t i, const char *where) {
    const struct { const char *name; double v; int positive; } f[6] = {
        {"S", b->spot[i], 1}, {"K", b->strike[i], 1}, {"T", b->expiry[i], 1},
        {"r", at(b->rate, i), 0}, {"q", at(b->div, i), 0}, {"price", b->price[i], 0}};
    for (int k = 0; k < 6; k++) {
        if (f[k].positive && !(f[k].v > 0.0 && isfinite(f[k].v)))
            return fc_error(FC_ERR_INVALID, "%s: %s = %g: must be a positive number", where, f[k].name, f[k].v);
        if (!isfinite(f[k].v))
            return fc_error(FC_ERR_INVALID, "%s: %s = %g: must be finite", where, f[k].name, f[k].v);
    }
    /* exp(+-700) is near the end of double range (as fc_bs_check) */
    if (fabs(at(b->rate, i)) * b->expiry[i] > 700.0 || fabs(at(b->div, i)) * b->expiry[i] > 700.0)
        return fc_error(FC_ERR_INVALID, "%s: |r| T = %g and |q| T = %g: both must stay below 700", where,
                        fabs(at(b->rate, i)) * b->expiry[i], fabs(at(b->div, i)) * b->expiry[i]);
    return FC_OK;
}

const char *fc_iv_reason(int code) {
    switch (code) {
    case FC_IV_OK: return "ok";
    case FC_IV_BELOW_LOWER: return "below the lower bound";
    case FC_IV_ABOVE_UPPER: return "at or above the upper bound";
    default: return "no convergence";
    }
}

fc_status fc_iv_error(const fc_iv_batch *b, size_t i, int code, const char *where) {
    int call = b->is_call[i];
    double lower, upper;
    fc_iv_bounds(call, b->spot[i], b->strike[i], at(b->rate, i), at(b->div, i), b->expiry[i], &lower, &upper);
    const char *kind = call ? "call" : "put";
    if (code == FC_IV_BELOW_LOWER)
        return fc_error(FC_ERR_INVALID, "%s: price %.17g of the %s is below its lower bound %s = %.17g (the "
                        "discounted intrinsic value): no volatility gives it", where, b->price[i], kind,
                        call ? "max(S e^{-qT} - K e^{-rT}, 0)" : "max(K e^{-rT} - S e^{-qT}, 0)", lower);
    if (code == FC_IV_ABOVE_UPPER)
        return fc_error(FC_ERR_INVALID, "%s: price %.17g of the %s is at or above its upper bound %s = %.17g, "
                        "which only an infinite volatility reaches", where, b->price[i], kind,
                        call ? "S e^{-qT}" : "K e^{-rT}", upper);
    return fc_error(FC_ERR_INVALID, "%s: the implied volatility of price %.17g did not converge in %d steps "
                    "(please report these inputs)", where, b->price[i], FC_IV_MAX_ITER);
}
