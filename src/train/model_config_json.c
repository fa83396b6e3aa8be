/* Model configuration <-> JSON (jansson), with neuralforecast's argument
 * names, for the model file's __metadata__["config"]. The fields every
 * kind has are written and read here; each kind's own by its row of the
 * kind table (config_to_json, config_from_json in nhits.c, ...). */
#include <jansson.h>

#include "core/error.h"
#include "train/model_file.h"
#include "models/model_kinds.h"

char *fc_model_config_to_json(const fc_model_config *c) {
    const fc_model_kind_ops *ops;
    if (fc_model_kind_lookup(c->kind, &ops) != FC_OK) return NULL;
    json_t *o = json_object();
    json_object_set_new(o, "model", json_string(ops->name));
    json_object_set_new(o, "h", json_integer((json_int_t)c->h));
    json_object_set_new(o, "input_size", json_integer((json_int_t)c->input_size));
    /* only when it is not 1: single-output files keep their bytes, and
     * files written before it existed read as 1 */
    if (c->n_outputs != 1) json_object_set_new(o, "n_outputs", json_integer((json_int_t)c->n_outputs));
    ops->config_to_json(c, o);
    fc_exog_lists_to_json(c, o);
    char *s = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return s;
}

static fc_status parse_object(json_t *o, fc_model_config *c, const char *where) {
    const char *kind = json_string_value(json_object_get(o, "model"));
    fc_model_kind k;
    const fc_model_kind_ops *ops;
    if (!kind || fc_model_kind_parse(kind, &k)) {
        char kinds[128];
        fc_model_kind_list(kinds, sizeof kinds);
        return fc_error(FC_ERR_FORMAT, "%s: config field 'model' must be %s", where, kinds);
    }
    FC_TRY(fc_model_kind_lookup(k, &ops));
    size_t h = 0, L = 0;
    FC_TRY(fc_json_get_size(o, "h", &h, 1, where));
    FC_TRY(fc_json_get_size(o, "input_size", &L, 1, where));
    fc_model_config_default(c, k, h, L);
    FC_TRY(fc_json_get_size(o, "n_outputs", &c->n_outputs, 0, where));   /* bounded by fc_model_config_check */
    FC_TRY(ops->config_from_json(o, c, where));
    FC_TRY(fc_exog_lists_from_json(o, c, where));
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
