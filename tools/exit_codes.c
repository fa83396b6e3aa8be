/* Exit codes: one per fc_status, the same for every command, so a script or
 * a scheduler can tell "fix the data" from "retry" from "resume" without
 * reading the message. Documented in docs/operations.md ("Exit codes"). */
#include <stdarg.h>
#include <stdio.h>

#include "cli.h"
#include "fcast.h"

/* The library's (fcast.h), which an MPI job's failing rank also exits with;
 * the CLI_EXIT_ names of cli.h spell the same numbers. */
int cli_exit_code(fc_status s) { return fcast_exit_code(s); }

_Static_assert(CLI_EXIT_PARSE == 3 && CLI_EXIT_INVALID == 4 && CLI_EXIT_IO == 5 && CLI_EXIT_MEMORY == 6 &&
               CLI_EXIT_FORMAT == 7 && CLI_EXIT_BACKEND == 8 && CLI_EXIT_INTERRUPTED == 130,
               "cli.h's exit codes are fcast_exit_code's");

/* A failure always says something: a library path that lost its message
 * (a probe on the error path once cleared it) is a bug, said as one, and
 * exits 1 rather than printing "fcast train: " and nothing after it. */
int cli_fail(const char *command) {
    const char *why = fc_last_error();
    if (!*why || fc_last_status() == FC_OK) {
        fprintf(stderr, "fcast %s: internal error: the command failed without saying why (status: %s%s%s); "
                "please report it\n", command, fc_status_name(fc_last_status()), *why ? ", last message: " : "",
                why);
        return CLI_EXIT_INTERNAL;
    }
    fprintf(stderr, "fcast %s: %s\n", command, why);
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
