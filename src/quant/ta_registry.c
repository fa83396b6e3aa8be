/* The registry of TA-Lib's functions: TA-Lib's descriptions (ta_functions.inc,
 * generated from the inventory the TA-Lib package wrote) joined by name to
 * the bodies of each group's table (quant/ta_impl.h). */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/error.h"
#include "quant/ta.h"
#include "quant/ta_impl.h"

/* Every function, its body NULL until join_bodies finds it. */
static fc_ta_func registry[] = {
#include "quant/ta_functions.inc"
};
#define REGISTRY_COUNT (sizeof registry / sizeof registry[0])

static pthread_once_t joined = PTHREAD_ONCE_INIT;

static void join_bodies(void) {
    for (const fc_ta_impl *e = fc_ta_impls; e->name; e++)
        for (size_t i = 0; i < REGISTRY_COUNT; i++)
            if (!strcmp(registry[i].desc.name, e->name)) registry[i].impl = e;
}

size_t fc_ta_count(void) { return REGISTRY_COUNT; }

/* TA-Lib's unstable periods, by function (0: TA-Lib's default). */
static _Atomic int unstable_periods[REGISTRY_COUNT];
static _Atomic int unstable_set;   /* how many are not 0 */

static void set_one(size_t i, int period) {
    int before = atomic_exchange(&unstable_periods[i], period);
    atomic_fetch_add(&unstable_set, (period != 0) - (before != 0));
}

fc_status fc_ta_set_unstable_period(const char *name, int period) {
    if (period < 0) return fc_error(FC_ERR_INVALID, "unstable period of %s: %d: must be >= 0", name, period);
    int all = !strcasecmp(name, "ALL");
    const fc_ta_func *f = all ? NULL : fc_ta_find(name);
    if (!all && (!f || !f->desc.unstable))
        return fc_error(FC_ERR_INVALID, "unstable period: %s %s", name,
                        f ? "has none (TA-Lib lets one set it for ADX, ATR, CMO, DX, EMA, HA, HT_*, KAMA, MAMA, "
                            "MINUS_DI, MINUS_DM, NATR, PLUS_DI, PLUS_DM, RMA, RSI, RVI, T3)"
                          : "is not one of TA-Lib's functions");
    for (size_t i = 0; i < REGISTRY_COUNT; i++)
        if (registry[i].desc.unstable && (all || &registry[i] == f)) set_one(i, period);
    return FC_OK;
}

int fc_ta_unstable_period(const fc_ta_func *f) {
    return f->desc.unstable ? atomic_load(&unstable_periods[f - registry]) : 0;
}

int fc_ta_any_unstable_period(void) { return atomic_load(&unstable_set) != 0; }

const fc_ta_func *fc_ta_at(size_t i) {
    pthread_once(&joined, join_bodies);
    return i < REGISTRY_COUNT ? &registry[i] : NULL;
}

const fc_ta_func *fc_ta_find(const char *name) {
    pthread_once(&joined, join_bodies);
    for (size_t i = 0; i < REGISTRY_COUNT; i++)
        if (!strcasecmp(registry[i].desc.name, name)) return &registry[i];
    return NULL;
}

unsigned fc_ta_index_outputs(const fc_ta_func *f) {
    size_t len = strlen(f->desc.name);
    int is_index = len > 5 && !strcmp(f->desc.name + len - 5, "INDEX");
    return is_index ? (1u << f->desc.n_outputs) - 1u : 0u;
}

static void format_limit(double v, char *buf, size_t cap) {
    if (fabs(v) >= 1e30) snprintf(buf, cap, "%s3e37", v < 0 ? "-" : "");
    else snprintf(buf, cap, "%.15g", v);
}

static fc_status check_param(const fc_ta_func *f, const fc_ta_param *p, double v) {
    if (isnan(v)) return fc_error(FC_ERR_INVALID, "%s: %s is NaN", f->desc.name, p->name);
    if (p->type != FC_TA_PARAM_REAL && v != floor(v))
        return fc_error(FC_ERR_INVALID, "%s: %s must be an integer, got %.17g", f->desc.name, p->name, v);
    if (v < p->min || v > p->max) {
        char lo[32], hi[32];
        format_limit(p->min, lo, sizeof lo);
        format_limit(p->max, hi, sizeof hi);
        return fc_error(FC_ERR_INVALID, "%s: %s must be in [%s, %s], got %.17g", f->desc.name, p->name,
                        lo, hi, v);
    }
    return FC_OK;
}

fc_status fc_ta_params(const fc_ta_func *f, const double *given, int n_given, double *par) {
    if (n_given > f->desc.n_params)
        return fc_error(FC_ERR_INVALID, "%s takes %d parameter(s), got %d", f->desc.name, f->desc.n_params,
                        n_given);
    for (int i = 0; i < f->desc.n_params; i++) {
        const fc_ta_param *p = &f->desc.params[i];
        double v = i < n_given ? given[i] : p->def;
        FC_TRY(check_param(f, p, v));
        par[i] = v;
    }
    return FC_OK;
}

int fc_ta_lookback(const fc_ta_func *f, const double *par) {
    return f->impl ? f->impl->lookback(par) : -1;
}
