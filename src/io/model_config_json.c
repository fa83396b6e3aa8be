/* Model configuration <-> JSON (jansson), with neuralforecast's argument
 * names, for the model file's __metadata__["config"]. */
#include <jansson.h>
#include <string.h>

#include "core/error.h"
#include "io/model_file.h"

static json_t *size_array(const size_t *v, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_integer((json_int_t)v[i]));
    return a;
}

static json_t *stacks_json(const fc_model_config *c, json_t *o) {
    json_t *types = json_array(), *blocks = json_array(), *units = json_array();
    for (int i = 0; i < c->n_stacks; i++) {
        json_array_append_new(types, json_string(fc_stack_type_name(c->stack_types[i])));
        json_array_append_new(blocks, json_integer(c->n_blocks[i]));
    }
    for (int i = 0; i < c->n_units; i++) json_array_append_new(units, size_array(c->mlp_units[i], 2));
    json_object_set_new(o, "stack_types", types);
    json_object_set_new(o, "n_blocks", blocks);
    json_object_set_new(o, "mlp_units", units);
    if (c->kind == FC_MODEL_NHITS) {
        json_object_set_new(o, "n_pool_kernel_size", size_array(c->n_pool_kernel_size, c->n_stacks));
        json_object_set_new(o, "n_freq_downsample", size_array(c->n_freq_downsample, c->n_stacks));
    } else {
        json_object_set_new(o, "n_harmonics", json_integer(c->n_harmonics));
        json_object_set_new(o, "n_basis", json_integer(c->n_basis));
    }
    return o;
}

char *fc_model_config_to_json(const fc_model_config *c) {
    json_t *o = json_object();
    json_object_set_new(o, "model", json_string(fc_model_kind_name(c->kind)));
    json_object_set_new(o, "h", json_integer((json_int_t)c->h));
    json_object_set_new(o, "input_size", json_integer((json_int_t)c->input_size));
    /* only when it is not 1: single-output files keep their bytes, and
     * files written before it existed read as 1 */
    if (c->n_outputs != 1) json_object_set_new(o, "n_outputs", json_integer((json_int_t)c->n_outputs));
    if (c->kind == FC_MODEL_MLP) {
        json_object_set_new(o, "hidden_size", json_integer((json_int_t)c->hidden_size));
        json_object_set_new(o, "num_layers", json_integer(c->num_layers));
    } else {
        stacks_json(c, o);
    }
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

/* Reads a non-negative integer field; `need` makes it mandatory. */
static fc_status get_size(json_t *o, const char *key, size_t *out, int need, const char *where) {
    json_t *v = json_object_get(o, key);
    if (!v && !need) return FC_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (size_t)json_integer_value(v) > FC_MAX_DIM)
        return fc_error(FC_ERR_FORMAT, "%s: config field '%s' must be an integer from 0 to %zu", where, key, FC_MAX_DIM);
    *out = (size_t)json_integer_value(v);
    return FC_OK;
}

static fc_status get_size_list(json_t *o, const char *key, size_t *out, int n, const char *where) {
    json_t *a = json_object_get(o, key);
    if (!json_is_array(a) || (int)json_array_size(a) != n)
        return fc_error(FC_ERR_FORMAT, "%s: config field '%s' must be a list of %d integers", where, key, n);
    for (int i = 0; i < n; i++) {
        json_t *v = json_array_get(a, (size_t)i);
        if (!json_is_integer(v) || json_integer_value(v) < 1 || (size_t)json_integer_value(v) > FC_MAX_DIM)
            return fc_error(FC_ERR_FORMAT, "%s: config field '%s'[%d] must be an integer from 1 to %zu", where, key, i,
                            FC_MAX_DIM);
        out[i] = (size_t)json_integer_value(v);
    }
    return FC_OK;
}

static fc_status parse_stacks(json_t *o, fc_model_config *c, const char *where) {
    json_t *types = json_object_get(o, "stack_types"), *units = json_object_get(o, "mlp_units");
    if (!json_is_array(types) || json_array_size(types) < 1 || json_array_size(types) > FC_MAX_STACKS)
        return fc_error(FC_ERR_FORMAT, "%s: config field 'stack_types' must list 1 to %d stacks", where, FC_MAX_STACKS);
    c->n_stacks = (int)json_array_size(types);
    for (int i = 0; i < c->n_stacks; i++) {
        const char *t = json_string_value(json_array_get(types, (size_t)i));
        if (t && !strcmp(t, "identity")) c->stack_types[i] = FC_STACK_IDENTITY;
        else if (t && !strcmp(t, "trend")) c->stack_types[i] = FC_STACK_TREND;
        else if (t && !strcmp(t, "seasonality")) c->stack_types[i] = FC_STACK_SEASONALITY;
        else return fc_error(FC_ERR_FORMAT, "%s: config 'stack_types'[%d] is not identity, trend or seasonality", where, i);
    }
    size_t nb[FC_MAX_STACKS];
    FC_TRY(get_size_list(o, "n_blocks", nb, c->n_stacks, where));
    for (int i = 0; i < c->n_stacks; i++) c->n_blocks[i] = (int)nb[i];
    if (!json_is_array(units) || json_array_size(units) < 1 || json_array_size(units) > FC_MAX_UNITS)
        return fc_error(FC_ERR_FORMAT, "%s: config field 'mlp_units' must list 1 to %d layers", where, FC_MAX_UNITS);
    c->n_units = (int)json_array_size(units);
    for (int i = 0; i < c->n_units; i++) {
        json_t *pair = json_array_get(units, (size_t)i);
        json_t *wrap = json_pack("{s:O}", "u", pair);
        fc_status st = get_size_list(wrap, "u", c->mlp_units[i], 2, where);
        json_decref(wrap);
        if (st != FC_OK) return fc_error(FC_ERR_FORMAT, "%s: config 'mlp_units'[%d] must be [in, out]", where, i);
    }
    if (c->kind == FC_MODEL_NHITS) {
        FC_TRY(get_size_list(o, "n_pool_kernel_size", c->n_pool_kernel_size, c->n_stacks, where));
        FC_TRY(get_size_list(o, "n_freq_downsample", c->n_freq_downsample, c->n_stacks, where));
    } else {
        size_t harmonics = (size_t)c->n_harmonics, basis = (size_t)c->n_basis;
        FC_TRY(get_size(o, "n_harmonics", &harmonics, 0, where));
        FC_TRY(get_size(o, "n_basis", &basis, 0, where));
        c->n_harmonics = (int)harmonics;
        c->n_basis = (int)basis;
    }
    return FC_OK;
}

static fc_status parse_object(json_t *o, fc_model_config *c, const char *where) {
    const char *kind = json_string_value(json_object_get(o, "model"));
    fc_model_kind k;
    if (!kind || fc_model_kind_parse(kind, &k))
        return fc_error(FC_ERR_FORMAT, "%s: config field 'model' must be NHITS, NBEATS or MLP", where);
    size_t h = 0, L = 0;
    FC_TRY(get_size(o, "h", &h, 1, where));
    FC_TRY(get_size(o, "input_size", &L, 1, where));
    fc_model_config_default(c, k, h, L);
    FC_TRY(get_size(o, "n_outputs", &c->n_outputs, 0, where));   /* bounded by fc_model_config_check */
    if (k == FC_MODEL_MLP) {
        size_t layers = (size_t)c->num_layers;
        FC_TRY(get_size(o, "hidden_size", &c->hidden_size, 1, where));
        FC_TRY(get_size(o, "num_layers", &layers, 1, where));
        c->num_layers = (int)layers;
    } else {
        FC_TRY(parse_stacks(o, c, where));
    }
    fc_status st = fc_model_config_check(c);
    return st == FC_OK ? FC_OK : fc_error_wrap(FC_ERR_FORMAT, "%s: ", where);
}

fc_status fc_model_config_from_json(const char *text, const char *where, fc_model_config *c) {
    json_error_t err;
    json_t *o = json_loads(text, 0, &err);
    if (!json_is_object(o)) {
        json_decref(o);
        return fc_error(FC_ERR_FORMAT, "%s: config is not a JSON object (%s)", where, err.text);
    }
    fc_status st = parse_object(o, c, where);
    json_decref(o);
    return st;
}
