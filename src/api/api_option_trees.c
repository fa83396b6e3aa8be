/* Implied volatilities, binomial trees and Longstaff-Schwartz through the
 * library API (fcast/quant_options.h; quant/implied_vol.h, binomial.h,
 * lsm.h). Messages
 * name the API's fields and the option's index; the engine's name the
 * CLI's flags, which are renamed here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fcast.h"
#include "api/api_quant.h"
#include "core/error.h"
#include "api/api_option_names.h"
#include "quant/binomial.h"
#include "quant/lsm.h"
#include "quant/implied_vol.h"
#include "kernels/quant_implied_vol.h"

/* The engine's codes are the API's status values. */
_Static_assert((int)FC_IV_OK == (int)FCAST_IV_OK && (int)FC_IV_BELOW_LOWER == (int)FCAST_IV_BELOW_LOWER &&
               (int)FC_IV_ABOVE_UPPER == (int)FCAST_IV_ABOVE_UPPER &&
               (int)FC_IV_NO_CONVERGENCE == (int)FCAST_IV_NO_CONVERGENCE,
               "FCAST_IV_* must equal FC_IV_*");

fc_status fcast_implied_vol(const fcast_option_arrays *o, const double *price, double *vol, int *status) {
    static const char fn[] = "fcast_implied_vol";
    if (!o || !price || !vol) return fc_error(FC_ERR_INVALID, "%s: o, price and vol must not be NULL", fn);
    const char *missing = !o->type ? "type" : !o->spot ? "spot" : !o->strike ? "strike" : !o->expiry ? "expiry" : NULL;
    if (missing && o->n) return fc_error(FC_ERR_INVALID, "%s: o->%s is NULL", fn, missing);
    for (size_t i = 0; i < o->n; i++)
        if (o->type[i] != FCAST_CALL && o->type[i] != FCAST_PUT)
            return fc_error(FC_ERR_INVALID, "%s: type[%zu] = %d: must be FCAST_CALL (1) or FCAST_PUT (0)", fn, i,
                            o->type[i]);
    fc_iv_batch b = {o->n, o->type, o->spot, o->strike, o->rate, o->div, o->expiry, price};
    char where[64];
    for (size_t i = 0; i < o->n; i++) {
        snprintf(where, sizeof where, "%s: option %zu", fn, i);
        FC_TRY(fc_iv_check(&b, i, where));
    }
    int *codes = status ? status : fc_malloc((o->n ? o->n : 1) * sizeof *codes, "implied-vol status");
    if (!codes) return fc_error_wrap(FC_ERR_MEMORY, "%s: ", fn);
    fc_implied_vols(&b, vol, codes);
    fc_status st = FC_OK;
    for (size_t i = 0; !status && i < o->n && st == FC_OK; i++)
        if (codes[i] != FC_IV_OK) {
            snprintf(where, sizeof where, "%s: option %zu", fn, i);
            st = fc_iv_error(&b, i, codes[i], where);
        }
    if (!status) free(codes);
    return st;
}

fc_status fc_api_option_renamed(fc_status st, const char *fn) {
    static const char *const flags[][2] = {{"--S", "spot"}, {"--K", "strike"}, {"--r", "rate"}, {"--q", "div"},
                                           {"--sigma", "vol"}, {"--T", "expiry"}, {"--steps", "steps"},
                                           {"--paths", "paths"}, {"--calibration-paths", "calibration_paths"},
                                           {"--basis-degree", "degree"}, {"--barrier", "barrier"},
                                           {"--rebate", "rebate"}};
    const char *msg = fc_last_error();
    char out[1024];
    size_t o = 0;
    for (size_t i = 0; msg[i] && o + 16 < sizeof out;) {
        size_t k = 0, len = 0;
        for (; k < sizeof flags / sizeof *flags; k++) {
            len = strlen(flags[k][0]);
            char next = msg[i + len];
            if (!strncmp(msg + i, flags[k][0], len) && !(next == '-' || (next >= 'a' && next <= 'z') ||
                                                         (next >= 'A' && next <= 'Z')))
                break;
        }
        if (k == sizeof flags / sizeof *flags) {
            out[o++] = msg[i++];
            continue;
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "%s", flags[k][1]);
        i += len;
    }
    out[o] = '\0';
    return fc_error(st, "%s: %s", fn, out);
}

fc_status fcast_tree_price(const fcast_tree_option *o, double *price) {
    if (!o || !price) return fc_error(FC_ERR_INVALID, "fcast_tree_price: o and price must not be NULL");
    if (o->type != FCAST_CALL && o->type != FCAST_PUT)
        return fc_error(FC_ERR_INVALID, "fcast_tree_price: type = %d: must be FCAST_CALL (1) or FCAST_PUT (0)",
                        o->type);
    if (o->tree < FCAST_TREE_BBSR || o->tree > FCAST_TREE_CRR)
        return fc_error(FC_ERR_INVALID, "fcast_tree_price: tree = %d: must be FCAST_TREE_BBSR (0), _BBS (1) or "
                        "_CRR (2)", o->tree);
    fc_tree_option t = {.type = o->type == FCAST_CALL ? FC_CALL : FC_PUT, .american = o->american != 0,
                        .market = {o->spot, o->strike, o->rate, o->div, o->vol, o->expiry},
                        .steps = o->steps ? o->steps : 1000, .tree = (fc_tree_kind)o->tree};
    fc_status st = fc_binomial_price(&t, price);
    return st == FC_OK ? FC_OK : fc_api_option_renamed(st, "fcast_tree_price");
}

/* fcast_lsm_price and fcast_lsm_price_on, under the name fn. */
static fc_status lsm_price(const char *fn, const fcast_lsm_option *o, const fcast_device *dev, fcast_lsm_result *out) {
    if (!o || !out) return fc_error(FC_ERR_INVALID, "%s: o and out must not be NULL", fn);
    if (o->type != FCAST_CALL && o->type != FCAST_PUT)
        return fc_error(FC_ERR_INVALID, "%s: type = %d: must be FCAST_CALL (1) or FCAST_PUT (0)", fn,
                        o->type);
    fc_lsm_option l = {.type = o->type == FCAST_CALL ? FC_CALL : FC_PUT,
                       .market = {o->spot, o->strike, o->rate, o->div, o->vol, o->expiry},
                       .steps = o->steps ? o->steps : 50, .paths = o->paths ? o->paths : 1000000,
                       .calibration_paths = o->calibration_paths ? o->calibration_paths : 100000,
                       .degree = o->degree ? o->degree : 3, .seed = o->seed};
    fc_lsm_result r;
    fc_status st = fc_lsm_price(&l, fc_api_device_backend(dev), &r);
    if (st != FC_OK) return fc_api_option_renamed(st, fn);
    *out = (fcast_lsm_result){r.price, r.std_error, r.estimate, r.calibration_price, r.paths, r.calibration_paths};
    return FC_OK;
}

fc_status fcast_lsm_price(const fcast_lsm_option *o, fcast_lsm_result *out) {
    return lsm_price("fcast_lsm_price", o, NULL, out);
}

fc_status fcast_lsm_price_on(const fcast_lsm_option *o, const fcast_device *dev, fcast_lsm_result *out) {
    return lsm_price("fcast_lsm_price_on", o, dev, out);
}
