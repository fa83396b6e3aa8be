/* The JSON objects of `fcast quant option --json` beyond the European and
 * Asian Monte Carlo (binomial trees, Longstaff-Schwartz, barriers, Monte
 * Carlo Greeks) and of `fcast quant implied-vol --json`, in the library so
 * that the CLI and the service's POST /v1/quant/option and
 * /v1/quant/implied-vol print them from one place (fcast/quant_options.h).
 * Numbers as %.17g (every double reads back as the same bits), the keys in
 * the order the CLI has always printed them. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fcast.h"
#include "core/error.h"

/* 95% normal quantile, as the CLI's interval of an LSM price has it. */
#define Z95 1.959963984540054

static const char *const TREE_NAMES[3] = {"bbsr", "bbs", "crr"};   /* by fcast_tree_kind */
static const char *const BARRIER_NAMES[4] = {"down-and-in", "up-and-in", "down-and-out", "up-and-out"};

static const char *option_name(int type) { return type == FCAST_CALL ? "call" : "put"; }

/* fmt's text, malloc'd; NULL (FC_ERR_MEMORY, naming fn) when out of memory. */
static char *format(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *format(const char *fn, const char *fmt, ...) {
    va_list ap, again;
    va_start(ap, fmt);
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *s = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (s) vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    if (!s) fc_error(FC_ERR_MEMORY, "%s: out of memory writing the JSON", fn);
    return s;
}

char *fcast_tree_option_json(const fcast_tree_option *o, double price, double bs_price) {
    if (!o || o->tree < 0 || o->tree > 2) {
        fc_error(FC_ERR_INVALID, "fcast_tree_option_json: o is NULL or o->tree is not a fcast_tree_kind");
        return NULL;
    }
    char bs[64] = "";
    if (!o->american) snprintf(bs, sizeof bs, ", \"bs_price\": %.17g", bs_price);
    return format("fcast_tree_option_json",
                  "{\"type\": \"%s\", \"option\": \"%s\", \"method\": \"binomial\", \"tree\": \"%s\", "
                  "\"steps\": %zu, \"price\": %.17g%s}", o->american ? "american" : "european",
                  option_name(o->type), TREE_NAMES[o->tree], o->steps, price, bs);
}

char *fcast_lsm_option_json(const fcast_lsm_option *o, const fcast_lsm_result *r) {
    if (!o || !r) {
        fc_error(FC_ERR_INVALID, "fcast_lsm_option_json: o and r are needed");
        return NULL;
    }
    return format("fcast_lsm_option_json",
                  "{\"type\": \"american\", \"option\": \"%s\", \"method\": \"lsm\", \"price\": %.17g, "
                  "\"stderr\": %.17g, \"ci_low\": %.17g, \"ci_high\": %.17g, \"paths\": %llu, "
                  "\"calibration_paths\": %llu, \"steps\": %zu, \"basis_degree\": %d, \"calibration_price\": %.17g}",
                  option_name(o->type), r->price, r->std_error, r->price - Z95 * r->std_error,
                  r->price + Z95 * r->std_error, (unsigned long long)r->paths,
                  (unsigned long long)r->calibration_paths, o->steps, o->degree, r->calibration_price);
}

char *fcast_barrier_option_json(const fcast_barrier_option *o, double price, const fcast_mc_result *mc) {
    if (!o || o->kind < 0 || o->kind > 3) {
        fc_error(FC_ERR_INVALID, "fcast_barrier_option_json: o is NULL or o->kind is not a fcast_barrier_kind");
        return NULL;
    }
    char tail[400] = "";
    if (mc)
        snprintf(tail, sizeof tail, ", \"mc_price\": %.17g, \"stderr\": %.17g, \"ci_low\": %.17g, \"ci_high\": %.17g, "
                 "\"paths\": %llu, \"steps\": %zu", mc->price, mc->std_error, mc->ci_low, mc->ci_high,
                 (unsigned long long)mc->paths, o->steps);
    return format("fcast_barrier_option_json",
                  "{\"type\": \"barrier\", \"option\": \"%s\", \"barrier\": \"%s\", \"level\": %.17g, "
                  "\"rebate\": %.17g, \"price\": %.17g%s}", option_name(o->type), BARRIER_NAMES[o->kind], o->barrier,
                  o->rebate, price, tail);
}

char *fcast_mc_greeks_json(const fcast_mc_option *o, const fcast_mc_result *r, const fcast_mc_detail *detail,
                           const double greeks[6], int method, const fcast_mc_greeks_result *k) {
    static const char fn[] = "fcast_mc_greeks_json";
    if (!k || (method != FCAST_GREEKS_PATHWISE && method != FCAST_GREEKS_LR)) {
        fc_error(FC_ERR_INVALID, "%s: k is NULL or method is not FCAST_GREEKS_PATHWISE or FCAST_GREEKS_LR", fn);
        return NULL;
    }
    char *s = fcast_mc_option_json(o, r, detail, greeks);
    if (!s) return NULL;
    size_t n = strlen(s);
    while (n && s[n - 1] != '}') n--;   /* the object's closing brace: the Greeks go before it */
    char gamma[128] = "";
    if (method == FCAST_GREEKS_LR)
        snprintf(gamma, sizeof gamma, ", \"mc_gamma\": %.17g, \"mc_gamma_stderr\": %.17g", k->gamma,
                 k->gamma_std_error);
    char *out = format(fn, "%.*s, \"greeks_method\": \"%s\", \"mc_delta\": %.17g, \"mc_delta_stderr\": %.17g%s, "
                       "\"mc_vega\": %.17g, \"mc_vega_stderr\": %.17g, \"greeks_paths\": %llu}",
                       (int)(n ? n - 1 : 0), s, method == FCAST_GREEKS_LR ? "lr" : "pathwise", k->delta,
                       k->delta_std_error, gamma, k->vega, k->vega_std_error, (unsigned long long)k->paths);
    free(s);
    return out;
}

char *fcast_implied_vol_json(int type, double S, double K, double r, double q, double T, double price, double vol) {
    return format("fcast_implied_vol_json",
                  "{\"type\": \"%s\", \"S\": %.17g, \"K\": %.17g, \"r\": %.17g, \"q\": %.17g, \"T\": %.17g, "
                  "\"price\": %.17g, \"implied_vol\": %.17g}", option_name(type), S, K, r, q, T, price, vol);
}
