/* Backtests through the library API (fcast.h): a rule's parameter grid
 * built from range texts (quant/param_range.h, quant/backtest.h) and run
 * over every series of the grouped layout, as `fcast quant backtest` does.
 * The engine's checks name a parameter by its flag ("--fast: ..."); here
 * the parameter's name ("fast: ...") is the word. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_quant.h"
#include "core/error.h"
#include "quant/backtest.h"
#include "quant/param_range.h"

struct fcast_grid {
    fc_rule_kind rule;
    fc_rule_params *combos;
    size_t n, skipped;
};

/* The ranges a parameter takes when none is given (`fcast quant backtest`'s). */
static const char *const DEFAULTS[3][FC_RULE_MAX_PARAMS] = {
    {"5:50:5", "20:200:10", NULL}, {"14", "30", "70"}, {"20", "2", NULL}};

static int known(fcast_rule r) { return r == FCAST_RULE_SMA_CROSS || r == FCAST_RULE_RSI || r == FCAST_RULE_BBANDS; }

/* st with the "--" that starts the message at `at` dropped: the flag as the parameter's name. */
static fc_status unflag(fc_status st, size_t at) {
    const char *msg = fc_last_error();
    if (strlen(msg) < at + 2 || strncmp(msg + at, "--", 2)) return st;
    char copy[1024];   /* fc_error rewrites the message it reads */
    snprintf(copy, sizeof copy, "%s", msg);
    return fc_error(st, "%.*s%s", (int)at, copy, copy + at + 2);
}

fc_status fcast_rule_parse(const char *name, fcast_rule *out) {
    if (!name || !out) return fc_error(FC_ERR_INVALID, "fcast_rule_parse: %s is NULL", !name ? "name" : "out");
    fc_rule_kind k;
    fc_status st = fc_rule_parse(name, &k);
    if (st != FC_OK) return unflag(st, 0);   /* "rule: unknown rule 'macd' (expected ...)" */
    *out = (fcast_rule)k;
    return FC_OK;
}

const char *fcast_rule_name(fcast_rule r) { return known(r) ? fc_rule_name((fc_rule_kind)r) : NULL; }

size_t fcast_rule_n_params(fcast_rule r) { return known(r) ? fc_rule_param_count((fc_rule_kind)r) : 0; }

const char *fcast_rule_param_name(fcast_rule r, size_t i) {
    return i < fcast_rule_n_params(r) ? fc_rule_param_name((fc_rule_kind)r, i) : NULL;
}

void fcast_grid_free(fcast_grid *g) {
    if (!g) return;
    free(g->combos);
    free(g);
}

/* The product of the ranges, its invalid combinations skipped, each kept one checked. */
static fc_status build(fcast_grid *g, const char *const *ranges, size_t n_ranges) {
    fc_range r[FC_RULE_MAX_PARAMS];
    for (size_t i = 0; i < fc_rule_param_count(g->rule); i++) {
        const char *text = i < n_ranges && ranges && ranges[i] ? ranges[i] : DEFAULTS[g->rule][i];
        FC_TRY(fc_range_parse(fc_rule_param_name(g->rule, i), text, fc_rule_param_is_integer(g->rule, i), &r[i]));
    }
    FC_TRY(fc_rule_grid_build(g->rule, r, &g->combos, &g->n, &g->skipped));
    if (g->n == 0) return fc_error(FC_ERR_INVALID, "the parameter grid has no valid combination (%zu skipped: %s)",
                                   g->skipped, g->rule == FC_RULE_SMA_CROSS ? "fast >= slow" : "lower >= upper");
    for (size_t c = 0; c < g->n; c++) {   /* parameter errors now, not after a long run */
        fc_status st = fc_rule_check(&g->combos[c], (size_t)-1, NULL);
        if (st != FC_OK) return unflag(st, 0);
    }
    return FC_OK;
}

fc_status fcast_grid_new(fcast_rule rule, const char *const *ranges, size_t n_ranges, fcast_grid **out) {
    static const char fn[] = "fcast_grid_new";
    if (!out) return fc_error(FC_ERR_INVALID, "%s: out is NULL", fn);
    *out = NULL;
    if (!known(rule)) return fc_error(FC_ERR_INVALID, "%s: rule = %d is not a rule", fn, (int)rule);
    if (n_ranges > fcast_rule_n_params(rule))
        return fc_error(FC_ERR_INVALID, "%s: n_ranges = %zu, but rule %s has %zu parameters", fn, n_ranges,
                        fcast_rule_name(rule), fcast_rule_n_params(rule));
    fcast_grid *g = calloc(1, sizeof *g);
    if (!g) return fc_error(FC_ERR_MEMORY, "%s: out of memory", fn);
    g->rule = (fc_rule_kind)rule;
    fc_status st = build(g, ranges, n_ranges);
    if (st != FC_OK) {
        fcast_grid_free(g);
        return st;
    }
    *out = g;
    return FC_OK;
}

size_t fcast_grid_size(const fcast_grid *g) { return g ? g->n : 0; }

size_t fcast_grid_skipped(const fcast_grid *g) { return g ? g->skipped : 0; }

fcast_rule fcast_grid_rule(const fcast_grid *g) { return g ? (fcast_rule)g->rule : FCAST_RULE_SMA_CROSS; }

const double *fcast_grid_params(const fcast_grid *g, size_t c) { return g && c < g->n ? g->combos[c].p : NULL; }
