/* Minimal assertion helpers for the ctest executables: each test file is one
 * program; a failed CHECK prints the location and marks the run failed. */
#ifndef FC_TESTS_CHECK_H
#define FC_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_failures __attribute__((unused)) = 0;
static int check_count __attribute__((unused)) = 0;

#define CHECK(cond)                                                            \
    do {                                                                       \
        check_count++;                                                         \
        if (!(cond)) {                                                         \
            check_failures++;                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__,   \
                    #cond);                                                    \
        }                                                                      \
    } while (0)

#define CHECK_MSG(cond, ...)                                                   \
    do {                                                                       \
        check_count++;                                                         \
        if (!(cond)) {                                                         \
            check_failures++;                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__,   \
                    #cond);                                                    \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

/* |a - b| <= atol + rtol * |b| */
#define CHECK_CLOSE(a, b, atol, rtol)                                          \
    do {                                                                       \
        double ca_ = (double)(a), cb_ = (double)(b);                           \
        CHECK_MSG(fabs(ca_ - cb_) <= (atol) + (rtol) * fabs(cb_),              \
                  "%s = %.9g, %s = %.9g", #a, ca_, #b, cb_);                   \
    } while (0)

/* The error message must contain `needle`. */
#define CHECK_CONTAINS(haystack, needle)                                       \
    CHECK_MSG(strstr((haystack), (needle)) != NULL, "\"%s\" lacks \"%s\"",     \
              (haystack), (needle))

/* Resident-size measurements mean nothing under AddressSanitizer (its
 * shadow memory and the quarantine of freed blocks): tests that compare
 * them skip those checks there (LeakSanitizer checks leaks instead). */
#ifdef __SANITIZE_ADDRESS__
#define CHECK_RESIDENT_SIZES 0
#else
#define CHECK_RESIDENT_SIZES 1
#endif

/* Writes text to path for a test's input file; a file that cannot be
 * opened is a failed check. */
static inline void check_write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK_MSG(f != NULL, "cannot write %s", path);
    if (!f) return;
    fputs(text, f);
    fclose(f);
}

/* Ends main(): prints a summary and returns the process status. */
#define CHECK_DONE()                                                           \
    (printf("%d checks, %d failed\n", check_count, check_failures),            \
     check_failures ? 1 : 0)

#endif
