/* The table of model kinds: one row per line of model_kind_list.h (model_kinds.h). */
#include <stdio.h>
#include <strings.h>

#include "core/error.h"
#include "models/model_kinds.h"

/* One row per line of model_kind_list.h, at its enum value. */
static const fc_model_kind_ops KINDS[] = {
#define FC_MODEL_KIND(prefix, ENUM, ...) [FC_MODEL_##ENUM] = FC_MODEL_KIND_ROW(prefix, __VA_ARGS__),
#include "models/model_kind_list.h"
#undef FC_MODEL_KIND
};
/* The enum and the table are made from the same list; this guards the
 * expansion itself (a row missed would leave NULLs lookup refuses). */
_Static_assert(sizeof KINDS / sizeof *KINDS == FC_MODEL_KIND_COUNT, "one row of KINDS per fc_model_kind");

const fc_model_kind_ops *fc_model_kind_row(fc_model_kind k) {
    return (unsigned)k < FC_MODEL_KIND_COUNT ? &KINDS[k] : NULL;
}

/* Spelled out rather than walked by offset: function and data pointers
 * need not share a representation. */
const char *fc_model_kind_missing_entry(const fc_model_kind_ops *r) {
    if (!r->name) return "name";
    if (!r->flag_name) return "flag_name";
    if (!r->scaler_type) return "scaler_type";
    if (!r->defaults) return "defaults";
    if (!r->check_config) return "check_config";
    if (!r->build) return "build";
    if (!r->forward) return "forward";
    if (!r->backward) return "backward";
    if (!r->fill_buffers) return "fill_buffers";
    if (!r->config_to_json) return "config_to_json";
    if (!r->config_from_json) return "config_from_json";
    if (!r->arch_options) return "arch_options";
    return NULL;
}

void fc_model_kind_list(char *buf, size_t size) {
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < FC_MODEL_KIND_COUNT && n < size; k++) {
        const char *sep = k == 0 ? "" : k + 1 < FC_MODEL_KIND_COUNT ? ", " : " or ";
        int w = snprintf(buf + n, size - n, "%s%s", sep, KINDS[k].name ? KINDS[k].name : "?");
        if (w < 0) return;
        n += (size_t)w;
    }
}

fc_status fc_model_kind_lookup(fc_model_kind k, const fc_model_kind_ops **out) {
    *out = NULL;
    const fc_model_kind_ops *r = fc_model_kind_row(k);
    if (!r) {
        char kinds[128];
        fc_model_kind_list(kinds, sizeof kinds);
        return fc_error(FC_ERR_INVALID, "model: unknown kind %d (fcast has %s)", (int)k, kinds);
    }
    const char *missing = fc_model_kind_missing_entry(r);
    if (missing)
        return fc_error(FC_ERR_INVALID, "model kind %d (%s): its row in model_kinds.c has no '%s' entry", (int)k,
                        r->name ? r->name : "no name", missing);
    *out = r;
    return FC_OK;
}

const char *fc_model_kind_name(fc_model_kind k) {
    const fc_model_kind_ops *r = fc_model_kind_row(k);
    return r && r->name ? r->name : "?";
}

int fc_model_kind_num_lr_decays(fc_model_kind k) {
    const fc_model_kind_ops *r = fc_model_kind_row(k);
    return r ? r->num_lr_decays : -1;
}

int fc_model_kind_parse(const char *s, fc_model_kind *out) {
    for (int k = 0; k < FC_MODEL_KIND_COUNT; k++)
        if (KINDS[k].flag_name && !strcasecmp(s, KINDS[k].flag_name)) {
            *out = (fc_model_kind)k;
            return 0;
        }
    return -1;
}
