/* The architecture options of block stacks (N-HiTS, N-BEATS, NBEATSx):
 * the appliers of --mlp-units, --stack-types and the per-stack lists
 * (--n-blocks, --n-pool-kernel-size, --n-freq-downsample), whose rows are
 * N-HiTS's (nhits.c), the first kind with stacks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "models/model_kinds.h"

fc_status fc_arch_apply_mlp_units(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)o, (void)size;
    int n = 0;
    const char *p = text;
    while (*p && n < FC_MAX_UNITS) {
        char *end;
        if (*p < '0' || *p > '9') break;
        unsigned long a = strtoul(p, &end, 10), b = a;
        if (end == p || a == 0 || a > FC_MAX_DIM) break;
        if (*end == ':') {
            p = end + 1;
            if (*p < '0' || *p > '9') break;
            b = strtoul(p, &end, 10);
            if (end == p || b == 0 || b > FC_MAX_DIM) break;
        }
        c->mlp_units[n][0] = a;
        c->mlp_units[n][1] = b;
        n++;
        if (*end == ',') end++;
        else if (*end) break;
        p = end;
        if (!*p) { c->n_units = n; return FC_OK; }
    }
    return fc_error(FC_ERR_INVALID, "--mlp-units '%s': expected widths like 512,512,512 or pairs like 24:512,512:512 (at most %d)",
                    text, FC_MAX_UNITS);
}

fc_status fc_arch_apply_stack_types(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)o, (void)size;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text);
    int n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), n++) {
        if (n == FC_MAX_STACKS) return fc_error(FC_ERR_INVALID, "--stack-types: at most %d stacks", FC_MAX_STACKS);
        if (fc_stack_type_parse(tok, &c->stack_types[n]))
            return fc_error(FC_ERR_INVALID, "--stack-types: '%s' is not identity, trend, seasonality or exogenous "
                            "(NBEATSx)", tok);
        if (n >= c->n_stacks) {   /* a stack beyond the defaults: 1 block, no pooling, no downsampling */
            c->n_blocks[n] = 1;
            c->n_pool_kernel_size[n] = 1;
            c->n_freq_downsample[n] = 1;
        }
    }
    c->n_stacks = n;
    return FC_OK;
}

/* Parses "a,b,c" of positive integers; returns the count or -1. */
static int parse_list(const char *text, size_t *out, int cap) {
    int n = 0;
    const char *p = text;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9') return -1;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p || v == 0 || v > FC_MAX_DIM || n == cap) return -1;
        out[n++] = v;
        if (*end == ',') end++;
        else if (*end) return -1;
        p = end;
    }
    return n;
}

/* One integer per stack (after --stack-types, which sets their number). */
static fc_status stack_list(const fc_arch_option *o, const char *text, const fc_model_config *c, size_t *v) {
    if (parse_list(text, v, FC_MAX_STACKS) != c->n_stacks)
        return fc_error(FC_ERR_INVALID, "--%s '%s': expected %d integers from 1 to %zu separated by commas "
                        "(one per stack)", o->name, text, c->n_stacks, FC_MAX_DIM);
    return FC_OK;
}

fc_status fc_arch_apply_stack_ints(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)size;
    size_t v[FC_MAX_STACKS];
    FC_TRY(stack_list(o, text, c, v));
    int *out = (int *)((char *)c + o->offset);
    for (int i = 0; i < c->n_stacks; i++) out[i] = (int)v[i];
    return FC_OK;
}

fc_status fc_arch_apply_stack_sizes(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)size;
    size_t v[FC_MAX_STACKS];
    FC_TRY(stack_list(o, text, c, v));
    memcpy((char *)c + o->offset, v, (size_t)c->n_stacks * sizeof *v);
    return FC_OK;
}
