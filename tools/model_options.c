/* Architecture flags (see model_options.h). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "model_options.h"

void fc_arch_defaults(fc_arch_options *a) { memset(a, 0, sizeof *a); }

void fc_arch_specs(fc_arch_options *a, arg_spec *s, size_t room) {
    arg_spec list[] = {
        {"mlp-units", ARG_STR, &a->mlp_units, "LIST", "block MLP widths: 512,512,512 or 512:512,... (3 x [512,512])", 0, 0},
        {"stack-types", ARG_STR, &a->stack_types, "LIST", "N-BEATS stacks: identity,trend,seasonality", 0, 0},
        {"n-blocks", ARG_STR, &a->n_blocks, "LIST", "blocks per stack (1,1,1)", 0, 0},
        {"n-pool-kernel-size", ARG_STR, &a->pool, "LIST", "N-HiTS pooling kernels per stack (2,2,1)", 0, 0},
        {"n-freq-downsample", ARG_STR, &a->downsample, "LIST", "N-HiTS downsampling per stack (4,2,1)", 0, 0},
        {"n-harmonics", ARG_SIZE, &a->n_harmonics, "N", "N-BEATS seasonality harmonics (2)", 0, 0},
        {"n-basis", ARG_SIZE, &a->n_basis, "N", "N-BEATS trend polynomial degree (2)", 0, 0},
        {"hidden-size", ARG_SIZE, &a->hidden_size, "N", "MLP hidden width (1024)", 0, 0},
        {"num-layers", ARG_SIZE, &a->num_layers, "N", "MLP hidden layers (2)", 0, 0},
    };
    size_t n = sizeof list / sizeof *list;
    FC_ASSERT(room > n);
    memcpy(s, list, sizeof list);
    memset(&s[n], 0, sizeof *s);
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

static fc_status apply_units(const char *text, fc_model_config *c) {
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

static fc_status apply_stacks(const fc_arch_options *a, fc_model_config *c) {
    if (a->stack_types) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", a->stack_types);
        int n = 0;
        for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","), n++) {
            if (n == FC_MAX_STACKS) return fc_error(FC_ERR_INVALID, "--stack-types: at most %d stacks", FC_MAX_STACKS);
            if (!strcmp(tok, "identity")) c->stack_types[n] = FC_STACK_IDENTITY;
            else if (!strcmp(tok, "trend")) c->stack_types[n] = FC_STACK_TREND;
            else if (!strcmp(tok, "seasonality")) c->stack_types[n] = FC_STACK_SEASONALITY;
            else return fc_error(FC_ERR_INVALID, "--stack-types: '%s' is not identity, trend or seasonality", tok);
            if (n >= c->n_stacks) {   /* a stack beyond the defaults: 1 block, no pooling, no downsampling */
                c->n_blocks[n] = 1;
                c->n_pool_kernel_size[n] = 1;
                c->n_freq_downsample[n] = 1;
            }
        }
        c->n_stacks = n;
    }
    size_t v[FC_MAX_STACKS];
    const char *lists[3] = {a->n_blocks, a->pool, a->downsample};
    const char *names[3] = {"--n-blocks", "--n-pool-kernel-size", "--n-freq-downsample"};
    for (int k = 0; k < 3; k++) {
        if (!lists[k]) continue;
        if (parse_list(lists[k], v, FC_MAX_STACKS) != c->n_stacks)
            return fc_error(FC_ERR_INVALID, "%s '%s': expected %d integers from 1 to %zu separated by commas "
                            "(one per stack)", names[k], lists[k], c->n_stacks, FC_MAX_DIM);
        for (int i = 0; i < c->n_stacks; i++) {
            if (k == 0) c->n_blocks[i] = (int)v[i];
            else if (k == 1) c->n_pool_kernel_size[i] = v[i];
            else c->n_freq_downsample[i] = v[i];
        }
    }
    return FC_OK;
}

fc_status fc_arch_apply(const fc_arch_options *a, fc_model_config *c) {
    if (a->mlp_units) FC_TRY(apply_units(a->mlp_units, c));
    FC_TRY(apply_stacks(a, c));
    if (a->n_harmonics > FC_MAX_HARMONICS || a->n_basis > FC_MAX_BASIS || a->num_layers > FC_MAX_LINEARS)
        return fc_error(FC_ERR_INVALID, "--n-harmonics must be at most %d, --n-basis %d, --num-layers %d",
                        FC_MAX_HARMONICS, FC_MAX_BASIS, FC_MAX_LINEARS - 1);
    if (a->n_harmonics) c->n_harmonics = (int)a->n_harmonics;
    if (a->n_basis) c->n_basis = (int)a->n_basis;
    if (a->hidden_size) c->hidden_size = a->hidden_size;
    if (a->num_layers) c->num_layers = (int)a->num_layers;
    return fc_model_config_check(c);
}
