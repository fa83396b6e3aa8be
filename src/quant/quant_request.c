/* The quant requests shared by the CLI and the service (quant_request.h):
 * options' validation, pricing and JSON answer; indicators' NaN policy. */
#include "quant/quant_request.h"

#include <jansson.h>
#include <string.h>
#include "core/error.h"

fc_option_params fc_option_params_default(void) {
    return (fc_option_params){.type = "european", .paths = 1000000, .steps = 1, .fixings = 12, .seed = 42,
                              .exercise = "european", .tree = "bbsr", .calibration_paths = 100000, .degree = 3};
}

/* A flag of the other option type is refused rather than ignored: a user
 * who sets it expects it to change the price. */
static fc_status check_type_flags(const fc_option_params *p, int asian) {
    if (asian && p->steps_given)
        return fc_error(FC_ERR_INVALID, "--steps does not apply to %s options (%s)", p->type,
                        "Asian paths step from one fixing to the next");
    if (!asian && p->fixings_given)
        return fc_error(FC_ERR_INVALID, "--fixings does not apply to %s options (%s)", p->type,
                        "--fixings is for Asian options");
    return FC_OK;
}

fc_status fc_option_from_params(const fc_option_params *p, fc_mc_option *o) {
    memset(o, 0, sizeof *o);
    if (!p->type || !strcmp(p->type, "european")) o->asian = 0;
    else if (!strcmp(p->type, "asian")) o->asian = 1;
    else return fc_error(FC_ERR_INVALID, "--type: expected european or asian, got '%s'", p->type);
    if (p->call == p->put) return fc_error(FC_ERR_INVALID, "give exactly one of --call and --put");
    FC_TRY(check_type_flags(p, o->asian));
    o->type = p->call ? FC_CALL : FC_PUT;
    o->market = (fc_bs_market){p->S, p->K, p->r, p->q, p->sigma, p->T};
    o->steps = p->steps;
    o->n_fixings = p->fixings;
    o->paths = p->paths;
    o->antithetic = p->antithetic;
    o->control_variate = !p->no_control_variate;
    o->seed = p->seed;
    return FC_OK;
}

fc_status fc_option_price(const fc_mc_option *o, fc_mc_result *r, fc_bs_greeks *g) {
    memset(g, 0, sizeof *g);
    FC_TRY(fc_mc_price(o, r));
    return o->asian ? FC_OK : fc_bs_european(o->type, &o->market, g);
}

static void set_real(json_t *j, const char *key, double v) { json_object_set_new(j, key, json_real(v)); }

char *fc_option_json(const fc_mc_option *o, const fc_mc_result *r, const fc_bs_greeks *g) {
    json_t *j = json_object();
    json_object_set_new(j, "type", json_string(o->asian ? "asian" : "european"));
    json_object_set_new(j, "option", json_string(o->type == FC_CALL ? "call" : "put"));
    set_real(j, "price", r->price);
    set_real(j, "stderr", r->std_error);
    set_real(j, "ci_low", r->ci_low);
    set_real(j, "ci_high", r->ci_high);
    json_object_set_new(j, "paths", json_integer((json_int_t)r->paths));
    if (o->asian) {
        set_real(j, "geometric_price", r->geo_exact);
        set_real(j, "price_without_control_variate", r->plain_price);
        set_real(j, "stderr_without_control_variate", r->plain_std_error);
    } else {
        set_real(j, "bs_price", g->price);
        set_real(j, "delta", g->delta);
        set_real(j, "gamma", g->gamma);
        set_real(j, "vega", g->vega);
        set_real(j, "theta", g->theta);
        set_real(j, "rho", g->rho);
    }
    /* 17 digits: every double reads back as the same bits. Keys keep their
     * insertion order (jansson >= 2.8), which is the order above. */
    char *s = j ? json_dumps(j, JSON_REAL_PRECISION(17)) : NULL;
    json_decref(j);
    if (!s) fc_error(FC_ERR_MEMORY, "out of memory writing the option's JSON");
    return s;
}

fc_status fc_ind_parse_nan_policy(const char *text, fc_nan_policy *out) {
    if (!strcmp(text, "poison")) *out = FC_NAN_POISON;
    else if (!strcmp(text, "restart")) *out = FC_NAN_RESTART;
    else return fc_error(FC_ERR_PARSE, "--nan: expected 'poison' or 'restart', got '%s'", text);
    return FC_OK;
}
