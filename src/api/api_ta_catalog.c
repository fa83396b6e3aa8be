/* fcast_ta_functions_json (fcast.h): the registry of TA-Lib's functions
 * (quant/ta.h) as JSON, built once, for `fcast quant indicators --list`,
 * Python's fcast.ta (which makes its functions from it) and serve. */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fcast.h"
#include "core/error.h"
#include "quant/ta.h"

typedef struct {
    char *buf;
    size_t len, cap;
} text;

static void put(text *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (!t->buf || n < 0) return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->cap + (size_t)n + 1) * 2;
        char *b = realloc(t->buf, cap);
        if (!b) {
            free(t->buf);
            t->buf = NULL;
            return;
        }
        t->buf = b, t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static const char *type_name(fc_ta_param_type type) {
    return type == FC_TA_PARAM_REAL ? "real" : type == FC_TA_PARAM_MATYPE ? "matype" : "integer";
}

static void put_function(text *t, const fc_ta_func *f) {
    const fc_ta_desc *d = &f->desc;
    put(t, "{\"name\":\"%s\",\"group\":\"%s\",\"display_name\":\"%s\",\"inputs\":[", d->name, d->group, d->display);
    for (int i = 0; i < d->n_inputs; i++)
        put(t, "%s{\"role\":\"%s\",\"column\":\"%s\"}", i ? "," : "", d->inputs[i].role, d->inputs[i].column);
    put(t, "],\"parameters\":[");
    for (int i = 0; i < d->n_params; i++) {
        const fc_ta_param *p = &d->params[i];
        put(t, "%s{\"name\":\"%s\",\"type\":\"%s\",\"default\":%.17g,\"min\":%.17g,\"max\":%.17g}", i ? "," : "",
            p->name, type_name(p->type), p->def, p->min, p->max);
    }
    put(t, "],\"outputs\":[");
    for (int k = 0; k < d->n_outputs; k++) put(t, "%s\"%s\"", k ? "," : "", d->outputs[k]);
    put(t, "],\"integer_outputs\":[");
    for (int k = 0, first = 1; k < d->n_outputs; k++)
        if ((d->int_outputs >> k) & 1u) put(t, "%s\"%s\"", first ? "" : ",", d->outputs[k]), first = 0;
    put(t, "],\"lookback\":%d,\"unstable_period\":%s,\"unstable_affected\":%s,\"available\":%s}",
        d->default_lookback, d->unstable ? "true" : "false", d->unstable_affected ? "true" : "false",
        f->impl ? "true" : "false");
}

static char *catalog;
static pthread_once_t built = PTHREAD_ONCE_INIT;

static void build(void) {
    text t = {malloc(1 << 16), 0, 1 << 16};
    put(&t, "[");
    for (size_t i = 0; i < fc_ta_count(); i++) {
        if (i) put(&t, ",");
        put_function(&t, fc_ta_at(i));
    }
    put(&t, "]");
    catalog = t.buf;
}

const char *fcast_ta_functions_json(void) {
    pthread_once(&built, build);
    return catalog ? catalog : "[]";
}

size_t fcast_ta_count(void) { return fc_ta_count(); }

_Static_assert(FCAST_TA_MAX_INPUTS == FC_TA_MAX_INPUTS && FCAST_TA_MAX_PARAMS == FC_TA_MAX_PARAMS &&
                   FCAST_TA_MAX_OUTPUTS == FC_TA_MAX_OUTPUTS,
               "fcast/quant.h's TA limits are kernels/ta/ta_call.h's");

fc_status fcast_ta_describe(size_t i, fcast_ta_info *out) {
    if (!out) return fc_error(FC_ERR_INVALID, "fcast_ta_describe: out is NULL");
    if (i >= fc_ta_count())
        return fc_error(FC_ERR_INVALID, "fcast_ta_describe: i = %zu: there are %zu functions", i, fc_ta_count());
    const fc_ta_func *f = fc_ta_at(i);
    const fc_ta_desc *d = &f->desc;
    memset(out, 0, sizeof *out);
    out->name = d->name, out->group = d->group, out->display_name = d->display;
    out->n_inputs = (size_t)d->n_inputs;
    for (int k = 0; k < d->n_inputs; k++) out->inputs[k] = d->inputs[k].column;
    out->n_params = (size_t)d->n_params;
    for (int k = 0; k < d->n_params; k++) {
        out->param_names[k] = d->params[k].name;
        out->param_types[k] = type_name(d->params[k].type);
        out->param_defaults[k] = d->params[k].def;
        out->param_min[k] = d->params[k].min;
        out->param_max[k] = d->params[k].max;
    }
    out->n_outputs = (size_t)d->n_outputs;
    for (int k = 0; k < d->n_outputs; k++) out->outputs[k] = d->outputs[k];
    out->integer_outputs = d->int_outputs;
    out->lookback = (size_t)d->default_lookback;
    out->unstable_period = d->unstable, out->available = f->impl != NULL;
    return FC_OK;
}

fc_status fcast_ta_set_unstable_period(const char *name, size_t period) {
    if (!name) return fc_error(FC_ERR_INVALID, "fcast_ta_set_unstable_period: name is NULL");
    if (period > 100000)
        return fc_error(FC_ERR_INVALID, "fcast_ta_set_unstable_period: %s: period %zu: at most 100000", name, period);
    return fc_ta_set_unstable_period(name, (int)period);
}

fc_status fcast_ta_unstable_period(const char *name, size_t *period) {
    const fc_ta_func *f = name ? fc_ta_find(name) : NULL;
    if (!f || !period)
        return fc_error(FC_ERR_INVALID, "fcast_ta_unstable_period: %s", !period ? "period is NULL" : "no such function");
    *period = (size_t)fc_ta_unstable_period(f);
    return FC_OK;
}
