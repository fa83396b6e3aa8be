/* POST /v1/quant/option's trees, Longstaff-Schwartz, barriers and Monte
 * Carlo Greeks (quant_option_methods.h), checked in the order and with
 * the messages of tools/cmd_quant_option*.c, priced through the library
 * API, answered with its fcast_*_json objects: the CLI's --json line. */
#include "quant_option_methods.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "fcast.h"
#include "quant_routes.h"

#define TREE_DEFAULT_STEPS 1000   /* the CLI's defaults (cmd_quant_option_american.c) */
#define LSM_DEFAULT_STEPS 50
#define BARRIER_DEFAULT_STEPS 50

/* ---- the library's messages in the CLI's flags ---- */

/* Whether msg names the field `word` at i (as the CLI's
 * quant_option_fail_in_api_fields reads it: the whole word followed by
 * ":", " =" or " " and a number; or the prefix, for a word ending in ": "). */
static int word_at(const char *msg, size_t i, const char *word, size_t n) {
    if (strncmp(msg + i, word, n)) return 0;
    if (!isalpha((unsigned char)word[n - 1])) return 1;
    char before = i ? msg[i - 1] : ' ', after = msg[i + n], next = after ? msg[i + n + 1] : '\0';
    if (isalnum((unsigned char)before) || before == '_' || before == '-') return 0;
    return after == ':' || (after == ' ' && (next == '=' || isdigit((unsigned char)next) || next == '-'));
}

/* The API's messages name its structs' fields ("vol"); the request's keys
 * are the CLI's flags, and its message names them as the CLI's does
 * ("--sigma"): the same table as tools/cmd_quant_option_american.c's
 * (tests/cli_serve_quant.sh compares the two messages). */
static fc_status in_flags(fc_status st) {
    static const char *const words[][2] = {
        {"fcast_tree_price: ", ""}, {"fcast_lsm_price: ", ""}, {"fcast_barrier_price: ", ""},
        {"fcast_barrier_mc_price: ", ""}, {"fcast_mc_greeks: ", ""}, {"barrier", "--barrier"},
        {"rebate", "--rebate"}, {"vol", "--sigma"}, {"expiry", "--T"}, {"spot", "--S"}, {"strike", "--K"},
        {"rate", "--r"}, {"div", "--q"}, {"steps", "--steps"}, {"calibration_paths", "--calibration-paths"},
        {"paths", "--paths"}, {"degree", "--basis-degree"}};
    enum { N_WORDS = sizeof words / sizeof *words };
    char out[1024];
    const char *msg = fc_last_error();
    size_t o = 0;
    for (size_t i = 0; msg[i] && o + 24 < sizeof out;) {
        size_t k = 0, n = 0;
        while (k < N_WORDS && !word_at(msg, i, words[k][0], n = strlen(words[k][0]))) k++;
        if (k == N_WORDS) {
            out[o++] = msg[i++];
            continue;
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "%s", words[k][1]);
        i += n;
    }
    out[o < sizeof out ? o : sizeof out - 1] = '\0';
    return fc_error(st, "%s", out);
}

/* A writer's answer: NULL is out of memory (its message set). */
static fc_status answered(char *json, char **text) {
    *text = json;
    return json ? FC_OK : FC_ERR_MEMORY;
}

static fc_status too_much(unsigned long long paths) {
    return fc_error(FC_ERR_MEMORY, "paths: %llu, more than the %llu paths a request may take on the server (fcast "
                    "quant option takes more)", paths, FC_QUANT_MAX_PATHS);
}

/* ---- --method binomial ---- */

static const char *const TREE_NAMES[3] = {"bbsr", "bbs", "crr"};   /* by fcast_tree_kind */

static fc_status tree_from_params(const fc_option_params *p, int american, fcast_tree_option *o) {
    if (p->type && strcmp(p->type, "european"))
        return fc_error(FC_ERR_INVALID, "--method binomial prices --type european options (with --exercise european "
                        "or american), not %s", p->type);
    if (p->paths_given || p->antithetic || p->seed_given || p->fixings_given || p->no_control_variate ||
        p->lsm_flags_given)
        return fc_error(FC_ERR_INVALID, "--paths, --antithetic, --seed, --fixings, --no-control-variate, "
                        "--calibration-paths and --basis-degree are Monte Carlo's: they do not apply to --method binomial");
    if (p->call == p->put) return fc_error(FC_ERR_INVALID, "give exactly one of --call and --put");
    int tree = -1;
    for (int k = 0; k < 3; k++)
        if (p->tree && !strcmp(p->tree, TREE_NAMES[k])) tree = k;
    if (tree < 0) return fc_error(FC_ERR_INVALID, "--tree: expected bbsr, bbs or crr, got '%s'", p->tree);
    if (p->steps_given && p->steps == 0) return fc_error(FC_ERR_INVALID, "--steps: expected at least 1 time step, got 0");
    /* steps: the library's own bound (100000, 4 s) is the service's */
    *o = (fcast_tree_option){.type = p->call ? FCAST_CALL : FCAST_PUT, .american = american, .spot = p->S,
                             .strike = p->K, .rate = p->r, .div = p->q, .vol = p->sigma, .expiry = p->T,
                             .steps = p->steps_given ? p->steps : TREE_DEFAULT_STEPS, .tree = tree};
    return FC_OK;
}

static fc_status tree(const fc_option_params *p, int american, char **text) {
    fcast_tree_option o;
    FC_TRY(tree_from_params(p, american, &o));
    double price, bs = 0.0;
    fc_status st = fcast_tree_price(&o, &price);
    if (st == FC_OK && !american) {
        const fcast_option_arrays one = {1, &o.type, &o.spot, &o.strike, &o.rate, &o.div, &o.vol, &o.expiry};
        st = fcast_bs_european(&one, &bs, NULL, NULL, NULL, NULL, NULL);
    }
    if (st != FC_OK) return in_flags(st);
    return answered(fcast_tree_option_json(&o, price, bs), text);
}

/* ---- --method lsm ---- */

static fc_status lsm_checks(const fc_option_params *p) {
    if (p->type && strcmp(p->type, "european"))
        return fc_error(FC_ERR_INVALID, "--method lsm prices American options (--exercise american), not --type %s",
                        p->type);
    if (p->antithetic || p->fixings_given || p->no_control_variate)
        return fc_error(FC_ERR_INVALID, "--antithetic, --fixings and --no-control-variate do not apply to --method lsm");
    if (p->call == p->put) return fc_error(FC_ERR_INVALID, "give exactly one of --call and --put");
    if ((p->steps_given && p->steps == 0) || p->paths < 2 || p->calibration_paths == 0 || p->degree == 0)
        return fc_error(FC_ERR_INVALID, "%s", p->paths < 2 ? "--paths: expected at least 2 paths"
                        : p->calibration_paths == 0 ? "--calibration-paths: expected at least 16 paths, got 0"
                        : p->degree == 0 ? "--basis-degree: expected 1 to 8, got 0"
                        : "--steps: expected at least 2 exercise dates, got 0");
    if (p->degree > 8) return fc_error(FC_ERR_INVALID, "--basis-degree: expected 1 to 8, got %zu", p->degree);
    return FC_OK;
}

/* Each exercise date of each path, pricing and calibration, is a step. */
static fc_status lsm_work(const fcast_lsm_option *o) {
    if (o->paths > FC_QUANT_MAX_PATHS) return too_much(o->paths);
    if (o->calibration_paths > FC_QUANT_MAX_PATHS || o->steps > 100000) return FC_OK;   /* the library's messages */
    double work = ((double)o->paths + (double)o->calibration_paths) * (double)o->steps;
    if (work > (double)FC_QUANT_MAX_LSM_PATH_STEPS)
        return fc_error(FC_ERR_MEMORY, "(paths %llu + calibration-paths %llu) x steps %zu = %.0f path steps, more "
                        "than the %llu a request may take on the server: use fewer paths or steps",
                        (unsigned long long)o->paths, (unsigned long long)o->calibration_paths, o->steps, work,
                        FC_QUANT_MAX_LSM_PATH_STEPS);
    return FC_OK;
}

static fc_status lsm(const fc_option_params *p, char **text) {
    FC_TRY(lsm_checks(p));
    fcast_lsm_option o = {.type = p->call ? FCAST_CALL : FCAST_PUT, .spot = p->S, .strike = p->K, .rate = p->r,
                          .div = p->q, .vol = p->sigma, .expiry = p->T,
                          .steps = p->steps_given ? p->steps : LSM_DEFAULT_STEPS, .paths = p->paths,
                          .calibration_paths = p->calibration_paths, .degree = (int)p->degree, .seed = p->seed};
    FC_TRY(lsm_work(&o));
    fcast_lsm_result r;
    if (fcast_lsm_price(&o, &r) != FC_OK) return in_flags(FC_ERR_INVALID);
    return answered(fcast_lsm_option_json(&o, &r), text);
}

/* ---- --barrier ---- */

static fc_status parse_barrier(const char *spec, fcast_barrier_option *o) {
    static const char *const kinds[4] = {"down-and-in", "up-and-in", "down-and-out", "up-and-out"};
    const char *colon = strchr(spec, ':');
    size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
    o->kind = -1;
    for (int k = 0; k < 4; k++)
        if (strlen(kinds[k]) == n && !strncmp(spec, kinds[k], n)) o->kind = k;
    char *end = NULL;
    o->barrier = colon ? strtod(colon + 1, &end) : NAN;
    if (o->kind < 0 || !colon || end == colon + 1 || *end)
        return fc_error(FC_ERR_INVALID, "--barrier '%s': expected KIND:LEVEL, KIND one of down-and-in, up-and-in, "
                        "down-and-out, up-and-out (e.g. down-and-out:90)", spec);
    return FC_OK;
}

static fc_status barrier_checks(const fc_option_params *p, int mc) {
    if (p->type && strcmp(p->type, "european"))
        return fc_error(FC_ERR_INVALID, "--barrier prices European barrier options, not --type %s", p->type);
    if (p->antithetic || p->fixings_given || p->no_control_variate || p->lsm_flags_given)
        return fc_error(FC_ERR_INVALID, "--antithetic, --fixings, --no-control-variate, --calibration-paths and "
                        "--basis-degree do not apply to --barrier");
    if (!mc && (p->paths_given || p->seed_given || p->steps_given))
        return fc_error(FC_ERR_INVALID, "--paths, --steps and --seed are for --method mc (the barrier's closed "
                        "form has none)");
    if (p->call == p->put) return fc_error(FC_ERR_INVALID, "give exactly one of --call and --put");
    return FC_OK;
}

static fc_status barrier_work(const fcast_barrier_option *o) {
    if (o->paths > FC_QUANT_MAX_PATHS) return too_much(o->paths);
    if ((double)o->paths * (double)o->steps > (double)FC_QUANT_MAX_BARRIER_PATH_STEPS)
        return fc_error(FC_ERR_MEMORY, "paths: %llu x steps %zu = %.0f path steps, more than the %llu a request may "
                        "take on the server: use fewer paths or steps", (unsigned long long)o->paths, o->steps,
                        (double)o->paths * (double)o->steps, FC_QUANT_MAX_BARRIER_PATH_STEPS);
    return FC_OK;
}

static fc_status barrier(const fc_option_params *p, int mc, char **text) {
    FC_TRY(barrier_checks(p, mc));
    fcast_barrier_option o = {.type = p->call ? FCAST_CALL : FCAST_PUT, .spot = p->S, .strike = p->K, .rate = p->r,
                              .div = p->q, .vol = p->sigma, .expiry = p->T, .rebate = p->rebate,
                              .steps = p->steps_given ? p->steps : BARRIER_DEFAULT_STEPS, .paths = p->paths,
                              .seed = p->seed};
    FC_TRY(parse_barrier(p->barrier, &o));
    if (mc && (o.steps == 0 || p->paths < 2))
        return fc_error(FC_ERR_INVALID, "%s", o.steps == 0 ? "--steps: expected at least 1 time step, got 0"
                                                           : "--paths: expected at least 2 paths");
    if (mc) FC_TRY(barrier_work(&o));
    double exact;
    fcast_mc_result r = {0};
    fc_status st = fcast_barrier_price(&o, &exact);
    if (st == FC_OK && mc) st = fcast_barrier_mc_price(&o, &r);
    if (st != FC_OK) return in_flags(st);
    return answered(fcast_barrier_option_json(&o, exact, mc ? &r : NULL), text);
}

/* ---- the dispatch, in cmd_quant_option()'s order ---- */

fc_status fc_quant_option_other(const fc_option_params *p, char **text) {
    *text = NULL;
    int american = p->exercise && !strcmp(p->exercise, "american");
    int binomial = p->method ? !strcmp(p->method, "binomial") : american && !p->barrier;
    if (p->tree_given && !binomial) return fc_error(FC_ERR_INVALID, "--tree is for --method binomial");
    if (p->greeks && (p->barrier || american || (p->method && strcmp(p->method, "mc"))))
        return fc_error(FC_ERR_INVALID, "--greeks is for the European Monte Carlo price (--method mc), not %s",
                        p->barrier ? "--barrier" : american ? "--exercise american" : "--method binomial");
    if (!american && p->exercise && strcmp(p->exercise, "european"))
        return fc_error(FC_ERR_INVALID, "--exercise: expected european or american, got '%s'", p->exercise);
    if (p->rebate_given && !p->barrier) return fc_error(FC_ERR_INVALID, "--rebate is for --barrier");
    if (p->barrier) {
        if (american) return fc_error(FC_ERR_INVALID, "--barrier options are European here: drop --exercise american");
        if (p->method && strcmp(p->method, "mc") && strcmp(p->method, "analytic"))
            return fc_error(FC_ERR_INVALID, "--barrier: --method analytic (the default) or mc, got '%s'", p->method);
        return barrier(p, p->method && !strcmp(p->method, "mc"), text);
    }
    const char *method = p->method ? p->method : american ? "binomial" : "mc";
    if (!strcmp(method, "binomial")) return tree(p, american, text);
    if (!strcmp(method, "lsm")) {
        if (!american) return fc_error(FC_ERR_INVALID, "--method lsm needs --exercise american");
        return lsm(p, text);
    }
    if (p->lsm_flags_given)
        return fc_error(FC_ERR_INVALID, "--calibration-paths and --basis-degree are for --method lsm");
    if (strcmp(method, "mc"))
        return fc_error(FC_ERR_INVALID, "--method: expected mc, binomial or lsm, got '%s'", method);
    if (american)
        return fc_error(FC_ERR_INVALID, "--exercise american: Monte Carlo is --method lsm (Longstaff-Schwartz); or "
                        "--method binomial");
    return FC_OK;   /* the European or Asian Monte Carlo: the caller's */
}

/* ---- --greeks ---- */

fc_status fc_quant_option_greeks(const fc_option_params *p, const fc_mc_option *o, const fc_mc_result *r,
                                 const fc_bs_greeks *g, char **text) {
    int method = !strcmp(p->greeks, "pathwise") ? FCAST_GREEKS_PATHWISE : !strcmp(p->greeks, "lr") ? FCAST_GREEKS_LR : 0;
    if (!method) return fc_error(FC_ERR_INVALID, "--greeks: expected pathwise or lr, got '%s'", p->greeks);
    if (o->asian) return fc_error(FC_ERR_INVALID, "--greeks is for --type european");
    /* the public API's option, as the CLI's option_from_args fills it */
    fcast_mc_option m = {.type = p->call ? FCAST_CALL : FCAST_PUT, .spot = p->S, .strike = p->K, .rate = p->r,
                         .div = p->q, .vol = p->sigma, .expiry = p->T, .steps = p->steps, .paths = p->paths,
                         .seed = p->seed, .antithetic = p->antithetic};
    fcast_mc_greeks_result k;
    if (fcast_mc_greeks(&m, method, &k) != FC_OK) return in_flags(FC_ERR_INVALID);
    fcast_mc_result pr = {r->price, r->std_error, r->ci_low, r->ci_high, r->paths};
    fcast_mc_detail d = {r->samples, r->plain_price, r->plain_std_error, r->geo_mc, r->geo_mc_std_error, r->geo_exact,
                         r->cv_beta};
    const double bs[6] = {g->price, g->delta, g->gamma, g->vega, g->theta, g->rho};
    return answered(fcast_mc_greeks_json(&m, &pr, &d, bs, method, &k), text);
}
