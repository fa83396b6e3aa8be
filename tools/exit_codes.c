/* Exit codes: one per fc_status, the same for every command, so a script or
 * a scheduler can tell "fix the data" from "retry" from "resume" without
 * reading the message. Documented in docs/operations.md ("Exit codes"). */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "fcast.h"

int cli_exit_code(fc_status s) {
    switch (s) {
    case FC_OK: return CLI_EXIT_INTERNAL;   /* a failure with no status set is a bug */
    case FC_ERR_PARSE: return CLI_EXIT_PARSE;
    case FC_ERR_INVALID: return CLI_EXIT_INVALID;
    case FC_ERR_IO: return CLI_EXIT_IO;
    case FC_ERR_MEMORY: return CLI_EXIT_MEMORY;
    case FC_ERR_FORMAT: return CLI_EXIT_FORMAT;
    case FC_ERR_BACKEND: return CLI_EXIT_BACKEND;
    case FC_ERR_INTERRUPTED: return CLI_EXIT_INTERRUPTED;
    }
    return CLI_EXIT_INTERNAL;
}

int cli_fail(const char *command) {
    fprintf(stderr, "fcast %s: %s\n", command, fc_last_error());
    return cli_exit_code(fc_last_status());
}

int cli_refuse(const char *command, int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fcast %s: ", command);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}
