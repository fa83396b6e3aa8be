/* Options through the library API (fcast.h): Black-Scholes prices and
 * Greeks and the geometric Asian closed form over arrays of options, and
 * one Monte Carlo pricing, on the CPU or on an fcast_device's GPU with the
 * estimate's detail (quant/black_scholes.h, quant/mc_options.h).
 * Every field is checked here first, so that messages name the API's
 * argument and index ("vol[3] = -0.2") where the engine's name the CLI's
 * flags; what only the engine checks (its work limits) comes back with
 * the flags renamed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_quant.h"
#include "core/error.h"
#include "quant/black_scholes.h"
#include "quant/mc_options.h"
#include "quant/quant_request.h"

/* Fewer options than this are not worth a team of threads. */
#define PARALLEL_MIN_OPTIONS 4096
/* exp(+-700) is near the end of double range (fc_bs_check's bound). */
#define EXP_LIMIT 700.0

/* One option's fields; idx is "[3]" for arrays, "" for a single option. */
static fc_status check_market(const char *fn, const char *idx, int type, const fc_bs_market *m) {
    if (type != FCAST_CALL && type != FCAST_PUT)
        return fc_error(FC_ERR_INVALID, "%s: type%s = %d: must be FCAST_CALL (1) or FCAST_PUT (0)", fn, idx, type);
    const struct { const char *name; double v; int positive; } f[6] = {
        {"spot", m->spot, 1}, {"strike", m->strike, 1}, {"vol", m->vol, 1},
        {"expiry", m->expiry, 1}, {"rate", m->rate, 0}, {"div", m->div, 0}};
    for (int k = 0; k < 6; k++) {
        if (f[k].positive && !(f[k].v > 0.0 && isfinite(f[k].v)))
            return fc_error(FC_ERR_INVALID, "%s: %s%s = %g: must be a positive number%s", fn, f[k].name, idx, f[k].v,
                            k == 3 ? " of years" : "");
        if (!isfinite(f[k].v))
            return fc_error(FC_ERR_INVALID, "%s: %s%s = %g: must be finite", fn, f[k].name, idx, f[k].v);
    }
    if (m->vol * m->vol * m->expiry > EXP_LIMIT)
        return fc_error(FC_ERR_INVALID, "%s: vol%s^2 expiry%s = %g: beyond %g, where prices are no longer "
                        "representable", fn, idx, idx, m->vol * m->vol * m->expiry, EXP_LIMIT);
    if (fabs(m->rate) * m->expiry > EXP_LIMIT || fabs(m->div) * m->expiry > EXP_LIMIT)
        return fc_error(FC_ERR_INVALID, "%s: |rate%s| expiry%s = %g and |div%s| expiry%s = %g: both must stay below %g",
                        fn, idx, idx, fabs(m->rate) * m->expiry, idx, idx, fabs(m->div) * m->expiry, EXP_LIMIT);
    return FC_OK;
}

static fc_bs_market market_at(const fcast_option_arrays *o, size_t i) {
    return (fc_bs_market){.spot = o->spot[i], .strike = o->strike[i], .rate = o->rate ? o->rate[i] : 0.0,
                          .div = o->div ? o->div[i] : 0.0, .vol = o->vol[i], .expiry = o->expiry[i]};
}

/* The arrays are there (rate and div may be NULL) and every option is valid. */
static fc_status check_arrays(const char *fn, const fcast_option_arrays *o) {
    if (!o) return fc_error(FC_ERR_INVALID, "%s: o is NULL", fn);
    const char *missing = !o->type ? "type" : !o->spot ? "spot" : !o->strike ? "strike" : !o->vol ? "vol"
                        : !o->expiry ? "expiry" : NULL;
    if (missing)
        return fc_error(FC_ERR_INVALID, "%s: o->%s is NULL (only rate and div may be: 0 then)", fn, missing);
    for (size_t i = 0; i < o->n; i++) {
        fc_bs_market m = market_at(o, i);
        if (check_market(fn, "", o->type[i], &m) == FC_OK) continue;
        char idx[32];   /* formatted for the message only */
        snprintf(idx, sizeof idx, "[%zu]", i);
        return check_market(fn, idx, o->type[i], &m);
    }
    return FC_OK;
}

static void store(double *dst, size_t i, double v) {
    if (dst) dst[i] = v;
}

fc_status fcast_bs_european(const fcast_option_arrays *o, double *price, double *delta, double *gamma,
                            double *vega, double *theta, double *rho) {
    FC_TRY(check_arrays("fcast_bs_european", o));
    /* checked above: fc_bs_european cannot fail */
#pragma omp parallel for schedule(static) if (o->n >= PARALLEL_MIN_OPTIONS)
    for (size_t i = 0; i < o->n; i++) {
        fc_bs_market m = market_at(o, i);
        fc_bs_greeks g = {NAN, NAN, NAN, NAN, NAN, NAN};
        (void)fc_bs_european(o->type[i] == FCAST_CALL ? FC_CALL : FC_PUT, &m, &g);
        store(price, i, g.price), store(delta, i, g.delta), store(gamma, i, g.gamma);
        store(vega, i, g.vega), store(theta, i, g.theta), store(rho, i, g.rho);
    }
    return FC_OK;
}

/* Fixing times: finite, from 0, sorted, none after `expiry` (named as expiry_name). */
static fc_status check_fixings(const char *fn, const double *t, size_t n, double expiry, const char *expiry_name) {
    for (size_t j = 0; j < n; j++) {
        if (!(t[j] >= 0.0) || !isfinite(t[j]))
            return fc_error(FC_ERR_INVALID, "%s: fixing_times[%zu] = %g: must be a time >= 0 in years", fn, j, t[j]);
        if (j && t[j] < t[j - 1])
            return fc_error(FC_ERR_INVALID, "%s: fixing_times[%zu] = %g < fixing_times[%zu] = %g: must be sorted", fn,
                            j, t[j], j - 1, t[j - 1]);
        if (t[j] > expiry)
            return fc_error(FC_ERR_INVALID, "%s: fixing_times[%zu] = %g is after %s = %g", fn, j, t[j], expiry_name,
                            expiry);
    }
    return FC_OK;
}

static fc_status asian_one(const fcast_option_arrays *o, size_t i, const double *fixing_times, size_t n_fixings,
                           double *times, double *price) {
    static const char fn[] = "fcast_asian_geometric";
    fc_bs_market m = market_at(o, i);
    if (fixing_times) {
        char name[40];
        snprintf(name, sizeof name, "expiry[%zu]", i);
        FC_TRY(check_fixings(fn, fixing_times, n_fixings, m.expiry, name));
    } else {
        for (size_t j = 0; j < n_fixings; j++) times[j] = m.expiry * (double)(j + 1) / (double)n_fixings;
        fixing_times = times;
    }
    fc_status st = fc_geometric_asian_price(o->type[i] == FCAST_CALL ? FC_CALL : FC_PUT, &m, fixing_times,
                                            n_fixings, price ? &price[i] : &(double){0});
    return st == FC_OK ? FC_OK : fc_error_wrap(st, "%s: option %zu: ", fn, i);
}

fc_status fcast_asian_geometric(const fcast_option_arrays *o, const double *fixing_times, size_t n_fixings,
                                double *price) {
    static const char fn[] = "fcast_asian_geometric";
    FC_TRY(check_arrays(fn, o));
    if (n_fixings == 0) return fc_error(FC_ERR_INVALID, "%s: n_fixings = 0: the average needs a fixing", fn);
    double *times = fixing_times ? NULL : fc_malloc(n_fixings * sizeof *times, "fixing times");
    if (!fixing_times && !times) return fc_error_wrap(FC_ERR_MEMORY, "%s: ", fn);
    fc_status st = FC_OK;
    for (size_t i = 0; st == FC_OK && i < o->n; i++) st = asian_one(o, i, fixing_times, n_fixings, times, price);
    free(times);
    return st;
}

/* The CLI flags of the engine's messages and the fcast_mc_option fields they set. */
static const char *const FLAGS[][2] = {{"--S", "spot"}, {"--K", "strike"}, {"--r", "rate"}, {"--q", "div"},
                                       {"--sigma", "vol"}, {"--T", "expiry"}, {"--paths", "paths"},
                                       {"--steps", "steps"}, {"--fixings", "n_fixings"}};
#define N_FLAGS (sizeof FLAGS / sizeof *FLAGS)

/* The flag that starts at p (whole: not followed by a letter or '-'), or N_FLAGS. */
static size_t flag_at(const char *p) {
    for (size_t k = 0; k < N_FLAGS; k++) {
        size_t len = strlen(FLAGS[k][0]);
        char next = p[0] == '-' && !strncmp(p, FLAGS[k][0], len) ? p[len] : 'x';
        if (!(next == '-' || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z'))) return k;
    }
    return N_FLAGS;
}

/* The engine's message with each CLI flag ("--sigma") renamed to the field
 * it comes from ("vol"), after "fn: ". */
static fc_status rename_flags(fc_status st, const char *fn) {
    char in[1024], out[1024];
    snprintf(in, sizeof in, "%s", fc_last_error());
    size_t o = 0;
    for (const char *p = in; *p && o + 1 < sizeof out;) {
        size_t k = flag_at(p);
        if (k < N_FLAGS) {
            o += (size_t)snprintf(out + o, sizeof out - o, "%s", FLAGS[k][1]);
            p += strlen(FLAGS[k][0]);
        } else {
            out[o++] = *p++;
        }
    }
    out[o < sizeof out ? o : sizeof out - 1] = '\0';
    return fc_error(st, "%s: %s", fn, out);
}

/* What fits one option type only is refused for the other, as the CLI does. */
static fc_status check_mc_fields(const char *fn, const fcast_mc_option *o) {
    FC_TRY(check_market(fn, "", o->type, &(fc_bs_market){o->spot, o->strike, o->rate, o->div, o->vol, o->expiry}));
    if (o->asian != 0 && o->asian != 1)
        return fc_error(FC_ERR_INVALID, "%s: asian = %d: must be 0 (European) or 1 (arithmetic-average Asian)", fn,
                        o->asian);
    if (o->asian && o->steps)
        return fc_error(FC_ERR_INVALID, "%s: steps = %zu: not for an Asian option, whose paths step from one "
                        "fixing to the next (leave it 0)", fn, o->steps);
    if (!o->asian && (o->n_fixings || o->fixing_times || o->no_control_variate))
        return fc_error(FC_ERR_INVALID, "%s: %s: only for an Asian option (asian = 1)", fn,
                        o->n_fixings ? "n_fixings" : o->fixing_times ? "fixing_times" : "no_control_variate");
    if (o->paths == 1) return fc_error(FC_ERR_INVALID, "%s: paths = 1: at least 2 (0: 1000000)", fn);
    if (o->asian && o->fixing_times && !o->n_fixings)
        return fc_error(FC_ERR_INVALID, "%s: fixing_times given with n_fixings = 0", fn);
    if (o->asian && o->fixing_times) FC_TRY(check_fixings(fn, o->fixing_times, o->n_fixings, o->expiry, "expiry"));
    return FC_OK;
}

/* fcast_mc_price and fcast_mc_price_on, under the name fn. */
static fc_status mc_price(const char *fn, const fcast_mc_option *o, const fcast_device *dev, fcast_mc_result *out,
                          fcast_mc_detail *detail) {
    if (!o || !out) return fc_error(FC_ERR_INVALID, "%s: %s is NULL", fn, !o ? "o" : "out");
    FC_TRY(check_mc_fields(fn, o));
    fc_mc_option m = {
        .type = o->type == FCAST_CALL ? FC_CALL : FC_PUT, .asian = o->asian,
        .market = {o->spot, o->strike, o->rate, o->div, o->vol, o->expiry},
        .fixing_times = o->fixing_times, .n_fixings = o->asian ? (o->n_fixings ? o->n_fixings : 12) : 0,
        .steps = o->asian ? 0 : (o->steps ? o->steps : 1), .paths = o->paths ? o->paths : 1000000,
        .antithetic = o->antithetic != 0, .control_variate = !o->no_control_variate, .seed = o->seed,
        .backend = fc_api_device_backend(dev)};
    fc_mc_result r;
    fc_status st = fc_mc_price(&m, &r);
    if (st != FC_OK) return rename_flags(st, fn);
    *out = (fcast_mc_result){r.price, r.std_error, r.ci_low, r.ci_high, r.paths};
    if (detail)
        *detail = (fcast_mc_detail){r.samples, r.plain_price, r.plain_std_error, r.geo_mc, r.geo_mc_std_error,
                                    r.geo_exact, r.cv_beta};
    return FC_OK;
}

fc_status fcast_mc_price(const fcast_mc_option *o, fcast_mc_result *out) {
    return mc_price("fcast_mc_price", o, NULL, out, NULL);
}

fc_status fcast_mc_price_on(const fcast_mc_option *o, const fcast_device *dev, fcast_mc_result *out,
                            fcast_mc_detail *detail) {
    return mc_price("fcast_mc_price_on", o, dev, out, detail);
}

char *fcast_mc_option_json(const fcast_mc_option *o, const fcast_mc_result *r, const fcast_mc_detail *detail,
                           const double greeks[6]) {
    if (!o || !r || !detail || !greeks) {
        fc_error(FC_ERR_INVALID, "fcast_mc_option_json: o, r, detail and greeks are needed");
        return NULL;
    }
    fc_mc_option m = {.type = o->type == FCAST_CALL ? FC_CALL : FC_PUT, .asian = o->asian};
    fc_mc_result res = {.price = r->price, .std_error = r->std_error, .ci_low = r->ci_low, .ci_high = r->ci_high,
                        .paths = r->paths, .plain_price = detail->plain_price,
                        .plain_std_error = detail->plain_std_error, .geo_exact = detail->geo_exact};
    fc_bs_greeks g = {greeks[0], greeks[1], greeks[2], greeks[3], greeks[4], greeks[5]};
    return fc_option_json(&m, &res, &g);   /* the service's answer too (quant/quant_request.c) */
}
