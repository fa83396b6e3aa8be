/* The trial log (see trial_log.h), written with jansson. */
#include "tune/trial_log.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

fc_status fc_trial_log_open(const char *path, FILE **out) {
    if (!(*out = fopen(path, "a"))) return fc_error(FC_ERR_IO, "--log %s: cannot open for appending: %s", path,
                                                    strerror(errno));
    return FC_OK;
}

/* Writes o as one line and frees it. */
static fc_status write_line(FILE *f, const char *path, json_t *o) {
    char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(o);
    if (!text) return fc_error(FC_ERR_MEMORY, "--log %s: out of memory", path);
    int bad = fprintf(f, "%s\n", text) < 0 || fflush(f) != 0;
    free(text);
    return bad ? fc_error(FC_ERR_IO, "--log %s: cannot write: %s", path, strerror(errno)) : FC_OK;
}

/* A number JSON can hold, or null (NaN and infinities have no spelling). */
static json_t *number_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *string_or_null(const char *s) {
    json_t *v = s ? json_string(s) : NULL;
    return v ? v : json_null();
}

fc_status fc_trial_log_search(FILE *f, const char *path, const fc_search_record *r) {
    json_t *o = json_object();
    json_object_set_new(o, "event", json_string("search"));
    json_object_set_new(o, "space", string_or_null(r->space));
    json_object_set_new(o, "sampler", json_string(r->sampler));
    json_object_set_new(o, "metric", json_string(r->metric));
    json_object_set_new(o, "model", string_or_null(r->model));
    json_object_set_new(o, "seed", json_integer((json_int_t)r->seed));
    json_object_set_new(o, "max_trials", r->max_trials ? json_integer((json_int_t)r->max_trials) : json_null());
    json_object_set_new(o, "time_budget_s", r->time_budget > 0 ? json_real(r->time_budget) : json_null());
    return write_line(f, path, o);
}

static json_t *typed(fc_value_type t, const char *text) {
    switch (t) {
    case FC_VALUE_INT: return json_integer((json_int_t)strtoll(text, NULL, 10));
    case FC_VALUE_REAL: return number_or_null(strtod(text, NULL));
    case FC_VALUE_BOOL: return json_boolean(!strcmp(text, "true"));
    case FC_VALUE_TEXT: break;
    }
    return string_or_null(text);
}

fc_status fc_trial_log_trial(FILE *f, const char *path, const fc_trial_record *r) {
    json_t *o = json_object(), *params = json_object(), *values = json_object();
    for (size_t i = 0; i < r->n_params; i++) {
        json_object_set_new(params, r->names[i], string_or_null(r->texts[i]));
        json_object_set_new(values, r->names[i], typed(r->types[i], r->texts[i]));
    }
    json_object_set_new(o, "event", json_string("trial"));
    json_object_set_new(o, "trial", json_integer((json_int_t)r->trial));
    json_object_set_new(o, "status", json_string(r->status));
    json_object_set_new(o, "metric", json_string(r->metric));
    json_object_set_new(o, "score", number_or_null(r->score));
    json_object_set_new(o, "points", json_integer((json_int_t)r->points));
    json_object_set_new(o, "seconds", json_real(r->seconds));
    json_object_set_new(o, "params", params);
    json_object_set_new(o, "values", values);
    json_object_set_new(o, "error", string_or_null(r->error));
    return write_line(f, path, o);
}

fc_status fc_trial_log_close(FILE *f, const char *path) {
    if (f && fclose(f) != 0) return fc_error(FC_ERR_IO, "--log %s: cannot write: %s", path, strerror(errno));
    return FC_OK;
}
