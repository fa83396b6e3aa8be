/* Decimal number fields of a CSV: a fast, correctly rounded parser and the
 * pandas spellings of a missing value. */
#ifndef FC_DATA_NUMBER_PARSE_H
#define FC_DATA_NUMBER_PARSE_H

#include <stddef.h>

typedef enum {
    FC_NUM_OK = 0,    /* *out holds the value */
    FC_NUM_MISSING,   /* empty or a pandas NA token (NaN, nan, NA, NULL, ...) */
    FC_NUM_INFINITE,  /* inf, -Infinity, or a finite literal beyond DBL_MAX */
    FC_NUM_BAD        /* not a decimal number */
} fc_num_result;

/* Parses text[0..len) (no NUL needed; spaces and tabs around it ignored) as
 * [+-]digits[.digits][(e|E)[+-]digits]. Rounds to nearest like strtod in the
 * "C" locale: up to 19 significant digits with |exponent| <= 22 are computed
 * exactly (Clinger's fast path); anything else goes to strtod_l. */
fc_num_result fc_parse_number(const char *text, size_t len, double *out);

/* 1 if text is one of pandas' default NA strings (read_csv na_values). */
int fc_is_na_token(const char *text, size_t len);

#endif
