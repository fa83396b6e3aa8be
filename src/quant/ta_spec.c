/* TA-Lib function specs, "name[:p1[:p2...]]" -> fc_ta_spec (quant/ta.h):
 * the registry's name, TA-Lib's parameters in order, its defaults and
 * ranges (fc_ta_params). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "quant/ta.h"

static fc_status parse_number(const char *quote, const fc_ta_func *f, int i, const char *s, size_t len,
                              double *out) {
    const char *what = i < f->desc.n_params ? f->desc.params[i].name : "parameter";
    if (i >= f->desc.n_params)
        return fc_error(FC_ERR_INVALID, "'%s': %s takes %d parameter%s (%s%s), got more", quote, f->desc.name,
                        f->desc.n_params, f->desc.n_params == 1 ? "" : "s",
                        f->desc.n_params ? f->desc.params[0].name : "none", f->desc.n_params > 1 ? ", ..." : "");
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return fc_error(FC_ERR_PARSE, "'%s': %s %s", quote, what, len ? "is too long" : "is empty");
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end = NULL;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || *end || errno == ERANGE || isnan(v))
        return fc_error(FC_ERR_PARSE, "'%s': %s must be %s, got '%s'", quote, what,
                        f->desc.params[i].type == FC_TA_PARAM_REAL ? "a number" : "an integer", buf);
    *out = v;
    return FC_OK;
}

static fc_status make_names(fc_ta_spec *out, const char *text, size_t len) {
    if (len >= FC_TA_SPEC_CAP)
        return fc_error(FC_ERR_PARSE, "'%.*s': spec longer than %d characters", (int)len, text, FC_TA_SPEC_CAP - 1);
    for (size_t i = 0; i < len; i++) {
        char c = (char)tolower((unsigned char)text[i]);
        out->text[i] = c;
        out->label[i] = c == ':' ? '_' : c;
    }
    out->text[len] = out->label[len] = '\0';
    return FC_OK;
}

fc_status fc_ta_spec_parse(const char *text, fc_ta_spec *out) {
    if (!text || !out) return fc_error(FC_ERR_INVALID, "fc_ta_spec_parse: NULL argument");
    while (isspace((unsigned char)*text)) text++;
    size_t len = strlen(text);
    while (len && isspace((unsigned char)text[len - 1])) len--;
    if (len == 0) return fc_error(FC_ERR_PARSE, "empty indicator spec (expected name[:p1[:p2...]], e.g. atr:14)");
    char quote[FC_TA_SPEC_CAP + 8], name[40];
    snprintf(quote, sizeof quote, "%.*s", (int)len, text);
    const char *colon = memchr(text, ':', len);
    size_t name_len = colon ? (size_t)(colon - text) : len;
    snprintf(name, sizeof name, "%.*s", (int)(name_len < sizeof name ? name_len : sizeof name - 1), text);
    memset(out, 0, sizeof *out);
    out->f = fc_ta_find(name);
    if (!out->f || name_len >= sizeof name)
        return fc_error(FC_ERR_INVALID, "'%s': unknown indicator '%.*s' (`fcast quant indicators --list` lists "
                        "TA-Lib's %zu functions)", quote, (int)name_len, text, fc_ta_count());
    double given[FC_TA_MAX_PARAMS];
    const char *p = colon, *end = text + len;
    while (p && p < end) {
        const char *field = p + 1, *next = memchr(field, ':', (size_t)(end - field));
        size_t flen = next ? (size_t)(next - field) : (size_t)(end - field);
        FC_TRY(parse_number(quote, out->f, out->n_given, field, flen, &given[out->n_given]));
        out->n_given++;
        p = next;
    }
    fc_status st = fc_ta_params(out->f, given, out->n_given, out->par);
    if (st != FC_OK) return fc_error_wrap(st, "'%s': ", quote);
    return make_names(out, text, len);
}

void fc_ta_spec_column(const fc_ta_spec *s, int k, char *buf, size_t cap) {
    if (s->f->desc.n_outputs == 1) snprintf(buf, cap, "%s", s->label);
    else snprintf(buf, cap, "%s_%s", s->label, s->f->desc.outputs[k]);
}
