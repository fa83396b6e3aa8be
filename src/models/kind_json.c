/* JSON fields of model configurations, for the kinds' config_to_json and
 * config_from_json entries and io/model_config_json.c (the common fields):
 * integer readers with the model file's messages, and the fields N-HiTS
 * and N-BEATS share. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "models/model_kinds.h"

json_t *fc_json_size_array(const size_t *v, int n) {
    json_t *a = json_array();
    for (int i = 0; i < n; i++) json_array_append_new(a, json_integer((json_int_t)v[i]));
    return a;
}

fc_status fc_json_get_size(json_t *o, const char *key, size_t *out, int need, const char *where) {
    json_t *v = json_object_get(o, key);
    if (!v && !need) return FC_OK;
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (size_t)json_integer_value(v) > FC_MAX_DIM)
        return fc_error(FC_ERR_FORMAT, "%s: config field '%s' must be an integer from 0 to %zu", where, key, FC_MAX_DIM);
    *out = (size_t)json_integer_value(v);
    return FC_OK;
}

fc_status fc_json_get_bool(json_t *o, const char *key, int *out, const char *where) {
    json_t *v = json_object_get(o, key);
    if (!v) return FC_OK;
    if (!json_is_boolean(v)) return fc_error(FC_ERR_FORMAT, "%s: config field '%s' must be true or false", where, key);
    *out = json_is_true(v);
    return FC_OK;
}

fc_status fc_json_get_number(json_t *o, const char *key, double *out, const char *where) {
    json_t *v = json_object_get(o, key);
    if (!v) return FC_OK;
    if (!json_is_number(v)) return fc_error(FC_ERR_FORMAT, "%s: config field '%s' must be a number", where, key);
    *out = json_number_value(v);
    return FC_OK;
}

fc_status fc_json_get_size_list(json_t *o, const char *key, size_t *out, int n, const char *where) {
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

void fc_stacks_to_json(const fc_model_config *c, json_t *o) {
    json_t *types = json_array(), *blocks = json_array(), *units = json_array();
    for (int i = 0; i < c->n_stacks; i++) {
        json_array_append_new(types, json_string(fc_stack_type_name(c->stack_types[i])));
        json_array_append_new(blocks, json_integer(c->n_blocks[i]));
    }
    for (int i = 0; i < c->n_units; i++) json_array_append_new(units, fc_json_size_array(c->mlp_units[i], 2));
    json_object_set_new(o, "stack_types", types);
    json_object_set_new(o, "n_blocks", blocks);
    json_object_set_new(o, "mlp_units", units);
    /* only when set, so files without dropout stay as they were */
    if (c->dropout_prob_theta > 0.0) json_object_set_new(o, "dropout_prob_theta", json_real(c->dropout_prob_theta));
}

static fc_status units_from_json(json_t *units, fc_model_config *c, const char *where) {
    if (!json_is_array(units) || json_array_size(units) < 1 || json_array_size(units) > FC_MAX_UNITS)
        return fc_error(FC_ERR_FORMAT, "%s: config field 'mlp_units' must list 1 to %d layers", where, FC_MAX_UNITS);
    c->n_units = (int)json_array_size(units);
    for (int i = 0; i < c->n_units; i++) {
        json_t *pair = json_array_get(units, (size_t)i);
        json_t *wrap = json_pack("{s:O}", "u", pair);
        fc_status st = fc_json_get_size_list(wrap, "u", c->mlp_units[i], 2, where);
        json_decref(wrap);
        if (st != FC_OK) return fc_error(FC_ERR_FORMAT, "%s: config 'mlp_units'[%d] must be [in, out]", where, i);
    }
    return FC_OK;
}

fc_status fc_stacks_from_json(json_t *o, fc_model_config *c, const char *where) {
    json_t *types = json_object_get(o, "stack_types");
    if (!json_is_array(types) || json_array_size(types) < 1 || json_array_size(types) > FC_MAX_STACKS)
        return fc_error(FC_ERR_FORMAT, "%s: config field 'stack_types' must list 1 to %d stacks", where, FC_MAX_STACKS);
    c->n_stacks = (int)json_array_size(types);
    for (int i = 0; i < c->n_stacks; i++) {
        const char *t = json_string_value(json_array_get(types, (size_t)i));
        if (!t || fc_stack_type_parse(t, &c->stack_types[i]))
            return fc_error(FC_ERR_FORMAT, "%s: config 'stack_types'[%d] is not identity, trend, seasonality or "
                            "exogenous", where, i);
    }
    size_t nb[FC_MAX_STACKS];
    FC_TRY(fc_json_get_size_list(o, "n_blocks", nb, c->n_stacks, where));
    for (int i = 0; i < c->n_stacks; i++) c->n_blocks[i] = (int)nb[i];
    FC_TRY(fc_json_get_number(o, "dropout_prob_theta", &c->dropout_prob_theta, where));
    return units_from_json(json_object_get(o, "mlp_units"), c, where);
}

static const char *const EXOG_KEYS[3] = {"futr_exog_list", "hist_exog_list", "stat_exog_list"};

static fc_exog_list *exog_list_of(fc_model_config *c, int k) {
    return k == 0 ? &c->futr_exog : k == 1 ? &c->hist_exog : &c->stat_exog;
}

void fc_exog_lists_to_json(const fc_model_config *c, json_t *o) {
    for (int k = 0; k < 3; k++) {
        const fc_exog_list *l = exog_list_of((fc_model_config *)c, k);
        if (!l->n) continue;
        json_t *a = json_array();
        for (int i = 0; i < l->n; i++) json_array_append_new(a, json_string(l->name[i]));
        json_object_set_new(o, EXOG_KEYS[k], a);
    }
}

/* Absent or null (neuralforecast's default None) is an empty list. */
fc_status fc_exog_lists_from_json(json_t *o, fc_model_config *c, const char *where) {
    for (int k = 0; k < 3; k++) {
        json_t *a = json_object_get(o, EXOG_KEYS[k]);
        fc_exog_list *l = exog_list_of(c, k);
        l->n = 0;
        if (!a || json_is_null(a)) continue;
        if (!json_is_array(a) || json_array_size(a) > FC_MAX_EXOG)
            return fc_error(FC_ERR_FORMAT, "%s: config field '%s' must be a list of at most %d column names", where,
                            EXOG_KEYS[k], FC_MAX_EXOG);
        for (size_t i = 0; i < json_array_size(a); i++) {
            const char *name = json_string_value(json_array_get(a, i));
            if (!name || !*name || strlen(name) >= FC_EXOG_NAME_MAX)
                return fc_error(FC_ERR_FORMAT, "%s: config '%s'[%zu] must be a column name of 1 to %d bytes", where,
                                EXOG_KEYS[k], i, FC_EXOG_NAME_MAX - 1);
            snprintf(l->name[l->n++], FC_EXOG_NAME_MAX, "%s", name);
        }
    }
    return FC_OK;
}
