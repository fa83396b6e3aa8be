/* Errors are values: every fallible function returns an fc_status, and a
 * thread-local message says what failed, where, and with which input.
 * Library code never exits; internal invariants use FC_ASSERT, which aborts
 * with a message because a broken invariant is a bug, not bad input. */
#ifndef FC_CORE_ERROR_H
#define FC_CORE_ERROR_H

#include <stdio.h>
#include <stdlib.h>
#include "fcast/status.h"

/* The longest message kept, with its NUL (longer ones are cut). */
#define FC_ERROR_CAP 1024

/* Sets the thread-local message (printf format) and returns `code`, so a
 * caller can write `return fc_error(FC_ERR_PARSE, "%s:%zu: ...", ...)`. */
fc_status fc_error(fc_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prepends context ("while loading model X: ") to the current message. */
fc_status fc_error_wrap(fc_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void fc_error_clear(void);

/* The thread's error (status and message), kept aside by code that probes
 * or measures on the way (a kernel choice made the first time a name is
 * asked for, a GPU monitor that finds no driver) and may fail inside, so
 * that it never overwrites or clears a failure already being reported: a
 * probe run from an error path once erased the message, and the CLI said
 * "fcast train: " and nothing after it. */
typedef struct {
    fc_status code;
    char message[FC_ERROR_CAP];
} fc_error_state;
void fc_error_save(fc_error_state *s);
void fc_error_restore(const fc_error_state *s);

/* Propagates a non-OK status. */
#define FC_TRY(expr)                                                           \
    do {                                                                       \
        fc_status fc_try_status_ = (expr);                                     \
        if (fc_try_status_ != FC_OK) return fc_try_status_;                    \
    } while (0)

#define FC_ASSERT(cond)                                                        \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "fcast: internal error: %s (%s:%d)\n", #cond,      \
                    __FILE__, __LINE__);                                       \
            abort();                                                           \
        }                                                                      \
    } while (0)

/* malloc/calloc that set FC_ERR_MEMORY with the size and purpose on failure. */
void *fc_malloc(size_t bytes, const char *what);
void *fc_calloc(size_t count, size_t size, const char *what);
void *fc_realloc(void *p, size_t bytes, const char *what);

#endif
