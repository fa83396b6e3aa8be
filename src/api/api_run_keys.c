/* The operations keys of a configuration (fcast.h): how and where a run
 * goes (device, memory limit, data store, files, checkpoints, run log),
 * none of which changes the trained weights (messages start with the key:
 * fcast_config_set writes it as the flag for the CLI); and the configuration's
 * settings as the JSON that model files and run logs keep. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"
#include "train/memory_plan.h"

/* on | off (also true/false, 1/0, as YAML and Python write them). */
static fc_status parse_switch(const char *key, const char *v, int *out) {
    if (!strcmp(v, "on") || !strcmp(v, "true") || !strcmp(v, "1")) return *out = 1, FC_OK;
    if (!strcmp(v, "off") || !strcmp(v, "false") || !strcmp(v, "0")) return *out = 0, FC_OK;
    return fc_error(FC_ERR_INVALID, "%s '%s': expected on or off", key, v);
}

/* A text key: its value kept by the configuration. */
static fc_status set_text(fcast_config *c, const char *key, const char *v, const char **slot) {
    if (!*v) return fc_error(FC_ERR_INVALID, "%s: empty value", key);
    if (!(*slot = fc_api_keep(c, v))) return fc_error(FC_ERR_MEMORY, "fcast_config_set: too many settings");
    return FC_OK;
}

static fc_status set_device(fcast_config *c, const char *key, const char *v) {
    fc_device_kind kind;
    int gpu;
    if (fc_device_parse(v, &kind, &gpu) != FC_OK)
        return fc_error(FC_ERR_INVALID, "%s '%s': expected %s", key, v, FC_DEVICE_FORMS);
    return set_text(c, key, v, &c->run.device);
}

static fc_status set_graphs(fcast_config *c, const char *key, const char *v) {
    int on = 1;
    FC_TRY(parse_switch(key, v, &on));
    c->train.no_graphs = !on;
    return FC_OK;
}

/* The keys whose value is a switch, a text or a count, by where it goes. */
static int *switch_slot(fcast_config *c, const char *key) {
    return !strcmp(key, "tf32") ? &c->run.tf32 : !strcmp(key, "verbose") ? &c->run.verbose
         : !strcmp(key, "profile") ? &c->run.profile
         : !strcmp(key, "deterministic-reduce") ? &c->train.deterministic_reduce
         : !strcmp(key, "drop-last") ? &c->train.drop_last
         : !strcmp(key, "start-padding") ? &c->train.start_padding : NULL;
}

static const char **text_slot(fcast_config *c, const char *key) {
    fc_api_run_keys *r = &c->run;
    static const char *const names[] = {"store-dir", "freq", "stat-exog-file", "out", "checkpoint", "resume",
                                        "log-file"};
    const char **slots[] = {&r->store_dir, &r->freq, &r->stat_file, &r->out, &r->checkpoint, &r->resume,
                            &r->log_file};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(key, names[i])) return slots[i];
    return NULL;
}

int fc_api_set_run_key(fcast_config *c, const char *key, const char *value, fc_status *st) {
    int *flag = switch_slot(c, key);
    const char **text = text_slot(c, key);
    if (flag) *st = parse_switch(key, value, flag);
    else if (text) *st = set_text(c, key, value, text);
    else if (!strcmp(key, "device")) *st = set_device(c, key, value);
    else if (!strcmp(key, "cuda-graph")) *st = set_graphs(c, key, value);
    else if (!strcmp(key, "checkpoint-every")) *st = fc_api_parse_count(key, value, 0, &c->run.checkpoint_every);
    else if (!strcmp(key, "memory-limit")) *st = fc_memory_limit_parse(value, &c->run.memory_limit);
    else if (!strcmp(key, "parallel")) *st = fc_api_parse_count(key, value, 0, &c->run.parallel);
    else if (!strcmp(key, "data-store")) *st = fc_data_store_parse(value, &c->run.data_store);
    else if (!strcmp(key, "windows-batch-size") && !strcmp(value, "auto")) c->run.auto_batch = 1;
    else return 1;
    return 0;
}

/* The keys that say how a run goes, not what it makes (the table's
 * FCAST_KEY_RUN and FCAST_KEY_TRAIN_RUN): left out of a model file's
 * description, so a resumed run writes the file an uninterrupted one
 * would. */
static int is_operations_key(const char *key) {
    const fcast_train_key_info *k = fc_api_train_key(key);
    return k && (k->role == FCAST_KEY_RUN || k->role == FCAST_KEY_TRAIN_RUN);
}

/* A setting's value in JSON: a number when all of it is one, a boolean
 * for on/off, else the text. */
static json_t *setting_value(const char *v) {
    char *end;
    double x = strtod(v, &end);
    if (*v && !*end && isfinite(x) && !strchr(v, ',')) {
        long long i = strtoll(v, &end, 10);
        return *end ? json_real(x) : json_integer(i);
    }
    if (!strcmp(v, "on") || !strcmp(v, "off")) return json_boolean(!strcmp(v, "on"));
    return json_string(v);
}

char *fc_api_settings_json(const fcast_config *c, int operations, const char *data) {
    json_t *o = json_object();
    if (!o) return NULL;
    if (data) json_object_set_new(o, "data", json_string(data));
    json_object_set_new(o, "model", json_string(c->model_name));
    json_object_set_new(o, "h", json_integer((json_int_t)c->model.h));
    json_object_set_new(o, "input-size", json_integer((json_int_t)c->model.input_size));
    for (size_t i = 0; i < c->n_settings; i++)
        if (operations || !is_operations_key(c->settings[i].key))
            json_object_set_new(o, c->settings[i].key, setting_value(c->settings[i].value));
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return text;
}
