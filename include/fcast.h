/* fcast: neural time-series forecasting and trading analytics in C.
 *
 * The one public header. Structures are opaque; every fallible call returns
 * an fc_status and, on failure, fc_last_error() says what failed, where and
 * with which input (file, line, column, series id, field). */
#ifndef FCAST_H
#define FCAST_H

#include <stddef.h>
#include <stdint.h>

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
const char *fc_version(void);

#ifdef __cplusplus
}
#endif
#endif
