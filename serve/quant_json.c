/* The quant endpoints' shared JSON handling (quant_json.h). */
#include "quant_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"

void fc_quant_reply_failure(fc_http_response *rs, fc_status st) {
    fc_http_reply_error(rs, fc_http_status_of(st), fc_last_error());
}

fc_status fc_quant_load_object(const fc_http_request *rq, json_t **root) {
    json_error_t err;
    size_t flags = JSON_REJECT_DUPLICATES | JSON_DECODE_ANY;
    *root = json_loadb(rq->body ? rq->body : "", rq->body ? rq->len : 0, flags, &err);
    if (!*root)
        return fc_error(FC_ERR_PARSE, "request: invalid JSON at line %d, column %d: %s", err.line, err.column,
                        err.text);
    if (json_is_object(*root)) return FC_OK;
    json_decref(*root);
    *root = NULL;
    return fc_error(FC_ERR_INVALID, "request: expected a JSON object {...}");
}

fc_status fc_quant_unknown_key(const char *key, const char *known) {
    return fc_error(FC_ERR_INVALID, "%.80s: unknown key (known: %s)", key, known);
}

const char *fc_quant_json_kind(const json_t *v) {
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

fc_status fc_quant_read_size(const char *key, const json_t *v, size_t *out) {
    if (json_is_integer(v) && json_integer_value(v) >= 0) {
        *out = (size_t)json_integer_value(v);
        return FC_OK;
    }
    double x = json_is_real(v) ? json_real_value(v) : -1.0;
    if (x >= 0 && x <= 9007199254740992.0 && x == floor(x)) {
        *out = (size_t)x;
        return FC_OK;
    }
    if (json_is_number(v))
        return fc_error(FC_ERR_INVALID, "%s: expected a non-negative integer, got %.17g", key, json_number_value(v));
    return fc_error(FC_ERR_INVALID, "%s: expected a non-negative integer, got %s", key, fc_quant_json_kind(v));
}

void fc_quant_reply_line(fc_http_response *rs, char *text) {
    size_t n = strlen(text);
    char *body = realloc(text, n + 2);
    if (!body) {
        free(text);
        fc_http_reply_error(rs, 500, "out of memory writing the answer");
        return;
    }
    memcpy(body + n, "\n", 2);
    *rs = (fc_http_response){.status = 200, .content_type = FC_QUANT_JSON, .body = body, .len = n + 1};
}

void fc_quant_reply_json(fc_http_response *rs, json_t *v) {
    char *text = v ? json_dumps(v, JSON_REAL_PRECISION(17)) : NULL;
    json_decref(v);
    if (!text) {
        fc_http_reply_error(rs, 500, "out of memory writing the answer");
        return;
    }
    fc_quant_reply_line(rs, text);
}

fc_status fc_quant_keys_not_flags(fc_status st) {
    char text[FC_ERROR_CAP];
    size_t n = 0;
    for (const char *m = fc_last_error(); *m && n + 1 < sizeof text; m++) {
        int flag = m[0] == '-' && m[1] == '-' && m[2] >= 'a' && m[2] <= 'z' &&
                   (n == 0 || text[n - 1] == ' ' || text[n - 1] == '\'' || text[n - 1] == '(');
        if (flag) m++;
        else text[n++] = *m;
    }
    text[n] = '\0';
    return fc_error(st, "%s", text);
}
