/* Thread-local error message storage (see error.h). */
#include "core/error.h"

#include <stdarg.h>
#include <string.h>

static _Thread_local char fc_error_message[FC_ERROR_CAP];
/* The code of the last fc_error / fc_error_wrap, so the CLI can turn a
 * failure into its documented exit code without threading it through. */
static _Thread_local fc_status fc_error_code;

fc_status fc_error(fc_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fc_error_message, FC_ERROR_CAP, fmt, ap);
    va_end(ap);
    fc_error_code = code;
    return code;
}

fc_status fc_error_wrap(fc_status code, const char *fmt, ...) {
    char prefix[FC_ERROR_CAP];
    char old[FC_ERROR_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    memcpy(old, fc_error_message, FC_ERROR_CAP);
    size_t n = strlen(prefix), m = strlen(old);
    if (n > FC_ERROR_CAP - 1) n = FC_ERROR_CAP - 1;
    if (n + m > FC_ERROR_CAP - 1) m = FC_ERROR_CAP - 1 - n;   /* truncate the tail, keep the context */
    memcpy(fc_error_message, prefix, n);
    memcpy(fc_error_message + n, old, m);
    fc_error_message[n + m] = '\0';
    fc_error_code = code;
    return code;
}

void fc_error_clear(void) {
    fc_error_message[0] = '\0';
    fc_error_code = FC_OK;
}

fc_status fc_last_status(void) { return fc_error_code; }

const char *fc_last_error(void) { return fc_error_message; }

const char *fc_status_name(fc_status s) {
    switch (s) {
    case FC_OK: return "ok";
    case FC_ERR_IO: return "i/o error";
    case FC_ERR_PARSE: return "parse error";
    case FC_ERR_INVALID: return "invalid argument";
    case FC_ERR_MEMORY: return "out of memory";
    case FC_ERR_FORMAT: return "bad file format";
    case FC_ERR_BACKEND: return "backend error";
    case FC_ERR_INTERRUPTED: return "interrupted";
    }
    return "unknown error";
}

int fcast_exit_code(fc_status s) {
    switch (s) {
    case FC_OK: return 1;
    case FC_ERR_PARSE: return 3;
    case FC_ERR_INVALID: return 4;
    case FC_ERR_IO: return 5;
    case FC_ERR_MEMORY: return 6;
    case FC_ERR_FORMAT: return 7;
    case FC_ERR_BACKEND: return 8;
    case FC_ERR_INTERRUPTED: return 130;
    }
    return 1;
}

void *fc_malloc(size_t bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) fc_error(FC_ERR_MEMORY, "cannot allocate %zu bytes for %s", bytes, what);
    return p;
}

void *fc_calloc(size_t count, size_t size, const char *what) {
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p) fc_error(FC_ERR_MEMORY, "cannot allocate %zu x %zu bytes for %s", count, size, what);
    return p;
}

void *fc_realloc(void *p, size_t bytes, const char *what) {
    void *q = realloc(p, bytes ? bytes : 1);
    if (!q) fc_error(FC_ERR_MEMORY, "cannot grow %s to %zu bytes", what, bytes);
    return q;
}
