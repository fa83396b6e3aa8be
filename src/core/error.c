/* Thread-local error message storage (see error.h). */
#include "core/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char fc_error_message[FC_ERROR_CAP];
/* The code of the last fc_error / fc_error_wrap, so the CLI can turn a
 * failure into its documented exit code without threading it through. */
static _Thread_local fc_status fc_error_code;

/* A message longer than the buffer loses its middle, never its end: the
 * reason comes last ("--out <a 100 KB path>: directory ... does not
 * exist"), and the start names what failed. */
static const char cut_mark[] = " [...] ";

static void store_message(const char *text, size_t len) {
    if (len < FC_ERROR_CAP) {
        memmove(fc_error_message, text, len + 1);
        return;
    }
    size_t mark = sizeof cut_mark - 1, head = (FC_ERROR_CAP - 1 - mark) / 2;
    size_t tail = FC_ERROR_CAP - 1 - mark - head;
    memmove(fc_error_message, text, head);
    memcpy(fc_error_message + head, cut_mark, mark);
    memmove(fc_error_message + head + mark, text + len - tail, tail);
    fc_error_message[FC_ERROR_CAP - 1] = '\0';
}

/* fmt's text, formatted apart from fc_error_message (callers pass
 * fc_last_error() as an argument), then stored whole or cut. */
static void set_message(const char *fmt, va_list ap) {
    char small[FC_ERROR_CAP];
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(small, sizeof small, fmt, copy);
    va_end(copy);
    if (n < 0) small[0] = '\0', n = 0;
    char *all = (size_t)n < sizeof small ? NULL : malloc((size_t)n + 1);
    if (all) vsnprintf(all, (size_t)n + 1, fmt, ap);
    if (all) store_message(all, (size_t)n);
    else store_message(small, strlen(small));   /* short, or no memory for the long form: its start */
    free(all);
}

fc_status fc_error(fc_status code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    set_message(fmt, ap);
    va_end(ap);
    fc_error_code = code;
    return code;
}

/* The new context, then the old message: the whole formatted apart
 * before it is stored, so it may be cut in its middle like any other. */
fc_status fc_error_wrap(fc_status code, const char *fmt, ...) {
    char prefix[FC_ERROR_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    return fc_error(code, "%s%s", prefix, fc_error_message);
}

void fc_error_save(fc_error_state *s) {
    s->code = fc_error_code;
    memcpy(s->message, fc_error_message, FC_ERROR_CAP);
}

void fc_error_restore(const fc_error_state *s) {
    fc_error_code = s->code;
    memcpy(fc_error_message, s->message, FC_ERROR_CAP);
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
