/* The KServe v2 inference request and answer (see kserve_codec.h), with
 * jansson for the parsing and a growing buffer for the answer. */
#include <jansson.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "api/serve_engine.h"
#include "json_text.h"
#include "kserve_codec.h"

/* One input tensor's values, flattened row-major: value and present flag,
 * and the datatype they must fit. */
typedef struct {
    double *v;
    unsigned char *present;
    size_t n, cap;
    const char *datatype;
} flat;

/* Whether a JSON scalar is a value of the declared datatype: BOOL takes
 * true / false, INT* integers, FP* numbers, FP32 within float's range. */
static const char *misfit(const json_t *x, const char *datatype) {
    if (json_is_null(x)) return NULL;
    if (!strcmp(datatype, "BOOL")) return json_is_boolean(x) ? NULL : "expected true or false (BOOL)";
    if (json_is_boolean(x)) return "a boolean in a numeric tensor";
    if (!strncmp(datatype, "INT", 3) || !strncmp(datatype, "UINT", 4))
        return json_is_integer(x) ? NULL : "expected an integer (the datatype is an integer type)";
    if (!json_is_number(x)) return "expected a number or null";
    if (!strcmp(datatype, "FP32") && fabs(json_number_value(x)) > FLT_MAX) return "beyond the FP32 range";
    return NULL;
}

static fc_status flatten(const json_t *data, const char *field, flat *out, size_t depth) {
    if (depth > 8) return fc_error(FC_ERR_INVALID, "%s: nested deeper than a [B, L] tensor", field);
    if (json_is_array(data)) {
        size_t i;
        const json_t *x;
        json_array_foreach(data, i, x) FC_TRY(flatten(x, field, out, depth + 1));
        return FC_OK;
    }
    if (out->n == out->cap) return fc_error(FC_ERR_INVALID, "%s: more values than its shape holds", field);
    const char *why = json_is_number(data) || json_is_boolean(data) || json_is_null(data)
                          ? misfit(data, out->datatype) : "expected a number or null";
    if (why) return fc_error(FC_ERR_INVALID, "%s.data[%zu]: %s", field, out->n, why);
    double v = json_is_boolean(data) ? (json_is_true(data) ? 1.0 : 0.0) : json_number_value(data);
    if (!isfinite(v)) return fc_error(FC_ERR_INVALID, "%s[%zu]: not a finite number", field, out->n);
    out->v[out->n] = json_is_null(data) ? 0.0 : v;
    out->present[out->n] = !json_is_null(data);
    out->n++;
    return FC_OK;
}

static int type_is(const char *t, const char *const *allowed) {
    for (; *allowed; allowed++)
        if (!strcmp(t, *allowed)) return 1;
    return 0;
}

/* shape [B, L] of input k, checked against the model's L and the limits. */
static fc_status input_shape(const json_t *in, const char *field, size_t L, const fc_forecast_limits *lim,
                             size_t *B) {
    const json_t *shape = json_object_get(in, "shape");
    if (!json_is_array(shape) || json_array_size(shape) != 2 || !json_is_integer(json_array_get(shape, 0)) ||
        !json_is_integer(json_array_get(shape, 1)))
        return fc_error(FC_ERR_INVALID, "%s.shape: expected [B, %zu]", field, L);
    json_int_t b = json_integer_value(json_array_get(shape, 0)), l = json_integer_value(json_array_get(shape, 1));
    if (b < 1 || l != (json_int_t)L)
        return fc_error(FC_ERR_INVALID, "%s.shape: [%lld, %lld], expected [B >= 1, %zu] (the model's input size)", field,
                        (long long)b, (long long)l, L);
    if ((lim && lim->max_series && (size_t)b > lim->max_series) ||
        (lim && lim->max_points && (unsigned long long)b > lim->max_points / L))
        return fc_error(FC_ERR_MEMORY, "%s.shape: %lld windows, more than this server takes in one request", field,
                        (long long)b);
    *B = (size_t)b;
    return FC_OK;
}

/* One input: its shape, datatype and data into f (allocated for B x L). */
static fc_status read_input(const json_t *in, const char *field, size_t L, const fc_forecast_limits *lim,
                            size_t body_len, const char *const *types, size_t *B, flat *f) {
    FC_TRY(input_shape(in, field, L, lim, B));
    /* Each value takes at least two bytes of the body (a digit and a comma):
     * a shape claiming more is refused before anything is allocated for it,
     * so a 100-byte request cannot make the server allocate megabytes. */
    if (*B * L > body_len / 2 + 1)
        return fc_error(FC_ERR_INVALID, "%s.shape: [%zu, %zu] holds more values than the body has", field, *B, L);
    const char *dt = json_string_value(json_object_get(in, "datatype"));
    if (!dt || !type_is(dt, types)) return fc_error(FC_ERR_INVALID, "%s.datatype: %s not taken here", field, dt ? dt : "missing");
    const json_t *data = json_object_get(in, "data");
    if (!json_is_array(data)) return fc_error(FC_ERR_INVALID, "%s.data: expected an array", field);
    f->datatype = dt;
    f->cap = *B * L;
    f->v = fc_malloc(f->cap * sizeof *f->v, "an input tensor");
    f->present = fc_malloc(f->cap, "an input tensor");
    if (!f->v || !f->present) return FC_ERR_MEMORY;
    FC_TRY(flatten(data, field, f, 0));
    if (f->n != f->cap) return fc_error(FC_ERR_INVALID, "%s.data: %zu values for shape [%zu, %zu]", field, f->n, *B, L);
    return FC_OK;
}

/* B windows of L points as B series of a dataset (ds 0..L-1: a forecast
 * reads only the values and the mask). */
static fc_status windows_dataset(const flat *y, const flat *mask, size_t B, size_t L, fc_dataset **out) {
    FC_TRY(fc_dataset_alloc(B, B * L, 0, out));
    fc_dataset *d = *out;
    d->ds_kind = FC_DS_INDEX;
    for (size_t b = 0; b <= B; b++) d->offsets[b] = b * L;
    for (size_t i = 0; i < B * L; i++) {
        int observed = y->present[i] && (!mask || (mask->present[i] && mask->v[i] != 0.0));
        d->y[i] = observed ? y->v[i] : 0.0;
        d->mask[i] = (uint8_t)observed;
        d->ds[i] = (int64_t)(i % L);
    }
    return FC_OK;
}

/* inputs[]: insample_y, and insample_mask when given; anything else is an error. */
static fc_status read_inputs(const json_t *inputs, size_t L, const fc_forecast_limits *lim, size_t body_len,
                             fc_dataset **ds) {
    static const char *const y_types[] = {"FP32", "FP64", "INT32", "INT64", NULL};
    static const char *const mask_types[] = {"BOOL", "FP32", "FP64", "INT8", "INT32", "INT64", "UINT8", NULL};
    flat y = {0}, mask = {0};
    size_t B = 0, Bm = 0, i;
    int have_y = 0, have_mask = 0;
    fc_status st = FC_OK;
    const json_t *in;
    json_array_foreach(inputs, i, in) {
        char field[48];
        snprintf(field, sizeof field, "inputs[%zu]", i);
        const char *name = json_string_value(json_object_get(in, "name"));
        if (!json_is_object(in) || !name) st = fc_error(FC_ERR_INVALID, "%s: expected an object with a name", field);
        else if (!strcmp(name, "insample_y") && !have_y++) st = read_input(in, field, L, lim, body_len, y_types, &B, &y);
        else if (!strcmp(name, "insample_mask") && !have_mask++) st = read_input(in, field, L, lim, body_len, mask_types, &Bm, &mask);
        else st = fc_error(FC_ERR_INVALID, "%s.name: '%s' (inputs are insample_y and, optionally, insample_mask, "
                           "once each)", field, name);
        if (st != FC_OK) break;
    }
    if (st == FC_OK && !have_y) st = fc_error(FC_ERR_INVALID, "inputs: no insample_y");
    if (st == FC_OK && have_mask && Bm != B)
        st = fc_error(FC_ERR_INVALID, "inputs: insample_mask has %zu rows, insample_y %zu", Bm, B);
    if (st == FC_OK) st = windows_dataset(&y, have_mask ? &mask : NULL, B, L, ds);
    free(y.v), free(y.present), free(mask.v), free(mask.present);
    return st;
}

static fc_status read_top(const json_t *root, char id[FC_KSERVE_ID_MAX]) {
    const char *key;
    const json_t *v;
    id[0] = '\0';
    if (!json_is_object(root)) return fc_error(FC_ERR_INVALID, "the body: expected a JSON object");
    json_object_foreach((json_t *)root, key, v) {
        if (!strcmp(key, "id")) {
            if (!json_is_string(v) || strlen(json_string_value(v)) >= FC_KSERVE_ID_MAX)
                return fc_error(FC_ERR_INVALID, "id: expected a string of at most %d bytes", FC_KSERVE_ID_MAX - 1);
            snprintf(id, FC_KSERVE_ID_MAX, "%s", json_string_value(v));
        } else if (strcmp(key, "inputs") && strcmp(key, "outputs") && strcmp(key, "parameters")) {
            return fc_error(FC_ERR_INVALID, "%s: not a field of an inference request (id, inputs, outputs, parameters)", key);
        }
    }
    const json_t *outputs = json_object_get(root, "outputs");
    size_t i;
    if (outputs && !json_is_array(outputs)) return fc_error(FC_ERR_INVALID, "outputs: expected an array");
    json_array_foreach(outputs, i, v) {
        const char *name = json_string_value(json_object_get(v, "name"));
        if (!name || strcmp(name, "forecast"))
            return fc_error(FC_ERR_INVALID, "outputs[%zu].name: the model's only output is 'forecast'", i);
    }
    if (!json_is_array(json_object_get(root, "inputs")))
        return fc_error(FC_ERR_INVALID, "inputs: expected an array");
    return FC_OK;
}

fc_status fc_kserve_request(const char *body, size_t len, size_t L, const fc_forecast_limits *lim, fc_dataset **ds,
                            char id[FC_KSERVE_ID_MAX]) {
    *ds = NULL;
    json_error_t err;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) return fc_error(FC_ERR_PARSE, "request: line %d, column %d: %s", err.line, err.column, err.text);
    fc_status st = read_top(root, id);
    if (st == FC_OK) st = read_inputs(json_object_get(root, "inputs"), L, lim, len, ds);
    json_decref(root);
    return st;
}


char *fc_kserve_response(const char *model, const char *id, size_t B, size_t h, size_t Q, const float *forecasts,
                         size_t *len) {
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (!f) {
        fc_error(FC_ERR_MEMORY, "out of memory writing the answer");
        return NULL;
    }
    fprintf(f, "{\"model_name\": ");
    fc_json_put_string(f, model);
    fprintf(f, ", \"model_version\": \"1\"");
    if (id && *id) {
        fprintf(f, ", \"id\": ");
        fc_json_put_string(f, id);
    }
    fprintf(f, ", \"outputs\": [{\"name\": \"forecast\", \"datatype\": \"FP32\", \"shape\": [%zu, %zu", B, h);
    if (Q > 1) fprintf(f, ", %zu", Q);   /* (B, h, Q): a quantile loss's outputs, quantile fastest */
    fprintf(f, "], \"data\": [");
    for (size_t i = 0; i < B * h * Q; i++) {
        if (i) fputc(',', f);
        if (isfinite(forecasts[i])) fprintf(f, FC_FORECAST_VALUE_FORMAT, (double)forecasts[i]);
        else fputs("null", f);
    }
    fprintf(f, "]}]}\n");
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(text);
        fc_error(FC_ERR_MEMORY, "out of memory writing the answer");
        return NULL;
    }
    *len = n;
    return text;
}
