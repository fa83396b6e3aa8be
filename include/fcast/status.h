/* fcast's status codes and error messages: what every part of fcast, the
 * engine's own files too, needs of the public API (fcast.h includes it;
 * docs/c-api.md). */
#ifndef FCAST_STATUS_H
#define FCAST_STATUS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    FC_OK = 0,
    FC_ERR_IO,          /* a file could not be opened, read or written */
    FC_ERR_PARSE,       /* malformed user input (CSV, JSON, arguments) */
    FC_ERR_INVALID,     /* well-formed but unusable input (shapes, ranges) */
    FC_ERR_MEMORY,      /* an allocation failed or a budget was exceeded */
    FC_ERR_FORMAT,      /* a model or data file is corrupt or incompatible */
    FC_ERR_BACKEND,     /* the compute backend reported a failure */
    FC_ERR_INTERRUPTED  /* stopped by a signal; state was saved */
} fc_status;

/* The message of the last failure on this thread ("" if none). */
const char *fc_last_error(void);
/* The status that went with that message (FC_OK if none). */
fc_status fc_last_status(void);
const char *fc_status_name(fc_status s);
/* The exit code of a failure with status s, one per status and the same
 * for every fcast command (docs/operations.md, "Exit codes"), so a script
 * or a scheduler tells "fix the data" from "retry" from "resume": 3 parse,
 * 4 invalid, 5 I/O, 6 memory, 7 file format, 8 backend, 130 interrupted;
 * 1 for FC_OK or an unknown status (a failure without a status is a bug).
 * A rank of an MPI job that fails ends the job with it (MPI_Abort). */
int fcast_exit_code(fc_status s);
const char *fc_version(void);
/* For a signal handler about to _exit: removes the temporary file of the
 * library's write in progress (files are written to a temporary name and
 * renamed), so an interrupted write leaves neither a half-written file
 * nor a stray temporary. Async-signal-safe. */
void fcast_abandon_writes(void);

#ifdef __cplusplus
}
#endif
#endif
