/* JSON text that fcast serve writes by hand (answers whose numbers must be
 * printed as fcast predict prints them, which jansson's %.17g would not). */
#ifndef FC_SERVE_JSON_TEXT_H
#define FC_SERVE_JSON_TEXT_H

#include <stdio.h>

/* text as a JSON string (RFC 8259), quotes included. Bytes that are not
 * UTF-8 (ids from a CSV request, quotes of a client's input in an error)
 * are written as U+FFFD, so the answer stays valid JSON whatever came in. */
void fc_json_put_string(FILE *f, const char *text);

#endif
