/* Architecture options (see arch_options.h): the table gathered from the
 * kinds' rows, setting options by name, and the generic appliers. */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "models/model_kinds.h"

/* "Not given" is FC_ARCH_UNSET, not 0, so that 0 given on purpose is
 * refused (or, for --n-basis, honoured) rather than read as the default. */
void fc_arch_defaults(fc_arch_options *a) {
    for (size_t i = 0; i < FC_ARCH_MAX_OPTIONS; i++) {
        a->size[i] = FC_ARCH_UNSET;
        a->text[i] = NULL;
    }
}

/* One array, as the CLI and fcast_config_arch_key index it; gathered once
 * (the kinds' rows are in their own files, so no initialiser can). */
static fc_arch_option TABLE[FC_ARCH_MAX_OPTIONS];
static size_t TABLE_N;

static void gather(void) {
    for (int k = 0; k < FC_MODEL_KIND_COUNT; k++) {
        const fc_arch_option_rows *own = fc_model_kind_row((fc_model_kind)k)->arch_options;
        FC_ASSERT(TABLE_N + own->n <= FC_ARCH_MAX_OPTIONS);   /* raise FC_ARCH_MAX_OPTIONS and ARCH_FLAGS_MAX */
        for (size_t i = 0; i < own->n; i++) TABLE[TABLE_N++] = own->rows[i];
    }
}

const fc_arch_option *fc_arch_option_table(size_t *n) {
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, gather);
    *n = TABLE_N;
    return TABLE;
}

/* A non-negative integer, all of the text (strtoull alone takes " -1"): 0 on success. */
static int parse_size(const char *text, size_t *out) {
    if (text[0] < '0' || text[0] > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v >= (unsigned long long)FC_ARCH_UNSET) return -1;
    *out = (size_t)v;
    return 0;
}

fc_status fc_arch_set(fc_arch_options *a, const char *name, const char *value) {
    size_t n;
    const fc_arch_option *table = fc_arch_option_table(&n);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(table[i].name, name)) continue;
        if (!table[i].is_size) {
            a->text[i] = value;
            return FC_OK;
        }
        if (parse_size(value, &a->size[i]))
            return fc_error(FC_ERR_INVALID, "%s '%s': expected a non-negative integer", name, value);
        return FC_OK;
    }
    return fc_error(FC_ERR_INVALID, "unknown architecture option '%s'", name);
}

fc_status fc_arch_apply(const fc_arch_options *a, fc_model_config *c) {
    size_t n;
    const fc_arch_option *table = fc_arch_option_table(&n);
    for (size_t i = 0; i < n; i++) {
        int given = table[i].is_size ? a->size[i] != FC_ARCH_UNSET : a->text[i] != NULL;
        if (given) FC_TRY(table[i].apply(&table[i], a->size[i], a->text[i], c));
    }
    return fc_model_config_check(c);
}

/* The field of c that row o names. */
static void *field(const fc_arch_option *o, fc_model_config *c) { return (char *)c + o->offset; }

/* A size within the row's range, or an error naming the flag. */
static fc_status check_range(const fc_arch_option *o, size_t v) {
    if (v < o->lo || v > o->hi)
        return fc_error(FC_ERR_INVALID, "--%s %zu: must be from %zu to %zu (leave the flag out for the model's default)",
                        o->name, v, o->lo, o->hi);
    return FC_OK;
}

fc_status fc_arch_apply_size_field(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)text;
    FC_TRY(check_range(o, size));
    memcpy(field(o, c), &size, sizeof size);
    return FC_OK;
}

/* A count kept as int (layers, heads): hi is at most INT_MAX in every row. */
fc_status fc_arch_apply_int_field(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)text;
    FC_TRY(check_range(o, size));
    int v = (int)size;
    memcpy(field(o, c), &v, sizeof v);
    return FC_OK;
}

fc_status fc_arch_apply_switch(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)size;
    if (strcmp(text, "on") && strcmp(text, "off"))
        return fc_error(FC_ERR_INVALID, "--%s '%s': expected on or off", o->name, text);
    int v = !strcmp(text, "on");
    memcpy(field(o, c), &v, sizeof v);
    return FC_OK;
}

fc_status fc_arch_apply_probability(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)size;
    char *end;
    double p = strtod(text, &end);
    if (end == text || *end || !(p >= 0.0 && p < 1.0))
        return fc_error(FC_ERR_INVALID, "--%s '%s': expected a probability in [0, 1)", o->name, text);
    memcpy(field(o, c), &p, sizeof p);
    return FC_OK;
}
