/* Fast decimal parsing for CSV fields (see number_parse.h).
 *
 * Written by hand because strtod needs a NUL-terminated copy of every field
 * and is locale dependent (a program that set LC_NUMERIC to de_DE would read
 * "1.5" as 1). The fast path is exact: a mantissa m < 2^53 and a power of
 * ten 10^e with |e| <= 22 are both exactly representable doubles, so m * 10^e
 * or m / 10^e is one correctly rounded IEEE operation (Clinger, 1990). */
#include "data/number_parse.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const double exact_pow10[23] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

static const char *const na_tokens[] = {
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
    "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a",
    "nan", "null"};

int fc_is_na_token(const char *text, size_t len) {
    for (size_t i = 0; i < sizeof na_tokens / sizeof na_tokens[0]; i++)
        if (strlen(na_tokens[i]) == len && memcmp(na_tokens[i], text, len) == 0) return 1;
    return 0;
}

static int is_infinity_token(const char *p, size_t n) {
    if (n && (*p == '+' || *p == '-')) p++, n--;
    return (n == 3 && strncasecmp(p, "inf", 3) == 0) ||
           (n == 8 && strncasecmp(p, "infinity", 8) == 0);
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;
static void c_locale_init(void) { c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

/* The slow path for long mantissas and large exponents: strtod_l in the "C"
 * locale on a NUL-terminated copy. The text was validated by the caller. */
static fc_num_result parse_slow(const char *p, size_t n, double *out) {
    char small[128];
    char *buf = n < sizeof small ? small : malloc(n + 1);
    if (!buf) return FC_NUM_BAD;
    memcpy(buf, p, n);
    buf[n] = '\0';
    pthread_once(&c_locale_once, c_locale_init);
    double v = c_locale ? strtod_l(buf, NULL, c_locale) : strtod(buf, NULL);
    if (buf != small) free(buf);
    if (isinf(v)) return FC_NUM_INFINITE;
    *out = v;
    return FC_NUM_OK;
}

typedef struct {
    uint64_t mantissa;  /* first 19 significant digits */
    int digits;         /* significant digits seen (may exceed 19) */
    int64_t exponent;   /* value = mantissa * 10^exponent when digits <= 19 */
    int negative;
} decimal;

/* Reads the exponent after 'e'/'E'; clamps it so huge ones cannot overflow
 * (anything past 1e5 is 0 or infinite anyway, and strtod decides). */
static const char *scan_exponent(const char *p, const char *end, int64_t *exp) {
    int neg = 0;
    if (p < end && (*p == '+' || *p == '-')) neg = *p++ == '-';
    if (p == end || (unsigned)(*p - '0') > 9) return NULL;
    int64_t e = 0;
    for (; p < end && (unsigned)(*p - '0') <= 9; p++)
        if (e < 100000) e = e * 10 + (*p - '0');
    *exp = neg ? -e : e;
    return p;
}

static inline void add_digit(decimal *d, int digit, int after_point) {
    if (d->digits == 0 && digit == 0) {  /* leading zeros are not significant */
        d->exponent -= after_point;
        return;
    }
    if (d->digits < 19) {
        d->mantissa = d->mantissa * 10 + (uint64_t)digit;
        d->exponent -= after_point;
    } else if (!after_point) {
        d->exponent++;  /* dropped integer digit: only matters for the fast-path test */
    }
    d->digits++;
}

/* Validates the grammar and collects the significant digits. */
static int scan_decimal(const char *p, const char *end, decimal *d) {
    memset(d, 0, sizeof *d);
    if (p < end && (*p == '+' || *p == '-')) d->negative = *p++ == '-';
    int any = 0;
    for (; p < end && (unsigned)(*p - '0') <= 9; p++, any = 1) add_digit(d, *p - '0', 0);
    if (p < end && *p == '.')
        for (p++; p < end && (unsigned)(*p - '0') <= 9; p++, any = 1) add_digit(d, *p - '0', 1);
    if (!any) return 0;
    if (p < end && (*p == 'e' || *p == 'E')) {
        int64_t e;
        if (!(p = scan_exponent(p + 1, end, &e))) return 0;
        d->exponent += e;
    }
    return p == end;
}

fc_num_result fc_parse_number(const char *text, size_t len, double *out) {
    const char *p = text, *end = text + len;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t')) end--;
    size_t n = (size_t)(end - p);
    if (n == 0) return FC_NUM_MISSING;
    decimal d;
    if (!scan_decimal(p, end, &d)) {  /* the rare spellings only once digits failed */
        if (fc_is_na_token(p, n)) return FC_NUM_MISSING;
        return is_infinity_token(p, n) ? FC_NUM_INFINITE : FC_NUM_BAD;
    }
    if (d.mantissa == 0 && d.digits == 0) {
        *out = d.negative ? -0.0 : 0.0;
        return FC_NUM_OK;
    }
    if (d.digits <= 19 && d.mantissa <= (UINT64_C(1) << 53) && d.exponent >= -22 &&
        d.exponent <= 22) {
        double v = (double)d.mantissa;
        v = d.exponent < 0 ? v / exact_pow10[-d.exponent] : v * exact_pow10[d.exponent];
        *out = d.negative ? -v : v;
        return FC_NUM_OK;
    }
    return parse_slow(p, n, out);
}
