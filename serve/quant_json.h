/* What the quant endpoints (quant_routes.c and the quant_*_route.c files)
 * share: the body as a JSON object, the messages for an unknown key or a
 * value of the wrong kind, reading numbers, and the answer. Keys are the
 * CLI's flag names without "--", so that a request reads like the
 * command line it stands for. */
#ifndef FC_SERVE_QUANT_JSON_H
#define FC_SERVE_QUANT_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "fcast/status.h"
#include "http_server.h"

#define FC_QUANT_JSON "application/json"

/* {"error": the last error} with the HTTP status of st. */
void fc_quant_reply_failure(fc_http_response *rs, fc_status st);

/* The body as a JSON object; a key given twice is an error, not a choice.
 * Any JSON is decoded, so that "5" or "[...]" gets the same message. */
fc_status fc_quant_load_object(const fc_http_request *rq, json_t **root);

/* An unknown key is refused, so that a typo is not silently ignored. */
fc_status fc_quant_unknown_key(const char *key, const char *known);

/* "an object", "an array", "a string", "a number", "a boolean", "null". */
const char *fc_quant_json_kind(const json_t *v);

/* A non-negative integer; 1e6 (a real with an integer value, as some JSON
 * writers print large numbers) is accepted up to 2^53, where doubles still
 * hold every integer. */
fc_status fc_quant_read_size(const char *key, const json_t *v, size_t *out);

/* The library's messages name the CLI's flags ("--target-return 0.1 a
 * year is below ..."); a request has keys: the last error again with the
 * same words without "--", and st returned. */
fc_status fc_quant_keys_not_flags(fc_status st);

/* The answer text plus a newline, as the CLI prints it; takes text. */
void fc_quant_reply_line(fc_http_response *rs, char *text);

/* The answer as JSON (json_dumps' default separators, keys in insertion
 * order, reals as %.17g): takes a reference to v. */
void fc_quant_reply_json(fc_http_response *rs, json_t *v);

#endif
