/* A command's figures as one compact JSON line on stdout (`--json`), the
 * last line a script reads. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

void cli_print_json_line(json_t *j) {
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    if (text) printf("%s\n", text);
    free(text);
    json_decref(j);
}
