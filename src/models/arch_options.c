/* Architecture options (see arch_options.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "models/arch_options.h"

/* "Not given" is FC_ARCH_UNSET, not 0, so that 0 given on purpose is
 * refused (or, for --n-basis, honoured) rather than read as the default. */
void fc_arch_defaults(fc_arch_options *a) {
    memset(a, 0, sizeof *a);
    a->n_harmonics = a->n_basis = a->hidden_size = a->num_layers = FC_ARCH_UNSET;
    a->encoder_n_layers = a->encoder_hidden_size = a->decoder_hidden_size = a->decoder_layers = FC_ARCH_UNSET;
    a->decoder_output_dim = a->temporal_decoder_dim = a->temporal_width = FC_ARCH_UNSET;
    a->num_encoder_layers = a->num_decoder_layers = FC_ARCH_UNSET;
    a->encoder_layers = a->n_heads = a->linear_hidden_size = a->patch_len = a->stride = FC_ARCH_UNSET;
}

#define SIZE_OPT(name, field, meta, help) {name, 1, offsetof(fc_arch_options, field), meta, help}
#define TEXT_OPT(name, field, meta, help) {name, 0, offsetof(fc_arch_options, field), meta, help}

static const fc_arch_option OPTIONS[] = {
    TEXT_OPT("mlp-units", mlp_units, "LIST", "block MLP widths: 512,512,512 or 512:512,... (3 x [512,512])"),
    TEXT_OPT("stack-types", stack_types, "LIST", "N-BEATS stacks: identity,trend,seasonality (NBEATSx: also exogenous)"),
    TEXT_OPT("n-blocks", n_blocks, "LIST", "blocks per stack (1,1,1)"),
    TEXT_OPT("n-pool-kernel-size", pool, "LIST", "N-HiTS pooling kernels per stack (2,2,1)"),
    TEXT_OPT("n-freq-downsample", downsample, "LIST", "N-HiTS downsampling per stack (4,2,1)"),
    SIZE_OPT("n-harmonics", n_harmonics, "N", "N-BEATS seasonality harmonics (2)"),
    SIZE_OPT("n-basis", n_basis, "N", "N-BEATS trend polynomial degree (2; 0 = constant; NBEATSx's n_polynomials)"),
    SIZE_OPT("hidden-size", hidden_size, "N", "MLP (1024), TiDE (512) and PatchTST (128) hidden width"),
    SIZE_OPT("num-layers", num_layers, "N", "MLP hidden layers (2)"),
    SIZE_OPT("encoder-n-layers", encoder_n_layers, "N", "LSTM encoder layers (2)"),
    SIZE_OPT("encoder-hidden-size", encoder_hidden_size, "N", "LSTM encoder width (128)"),
    SIZE_OPT("decoder-hidden-size", decoder_hidden_size, "N", "LSTM decoder MLP width (128)"),
    SIZE_OPT("decoder-layers", decoder_layers, "N", "LSTM decoder MLP layers, the output one included (2)"),
    SIZE_OPT("decoder-output-dim", decoder_output_dim, "N", "TiDE features per horizon step (32)"),
    SIZE_OPT("temporal-decoder-dim", temporal_decoder_dim, "N", "TiDE temporal decoder width (128)"),
    SIZE_OPT("temporal-width", temporal_width, "N", "TiDE projected width of the exogenous columns (4)"),
    SIZE_OPT("num-encoder-layers", num_encoder_layers, "N", "TiDE dense encoder blocks (1)"),
    SIZE_OPT("num-decoder-layers", num_decoder_layers, "N", "TiDE dense decoder blocks (1)"),
    TEXT_OPT("layernorm", layernorm, "on|off", "TiDE: layer norm after each residual block (on)"),
    TEXT_OPT("dropout", dropout, "P", "TiDE (0.3) and PatchTST (0.2): dropout probability in [0, 1) "
                                               "while training"),
    SIZE_OPT("encoder-layers", encoder_layers, "N", "PatchTST Transformer encoder layers (3)"),
    SIZE_OPT("n-heads", n_heads, "N", "PatchTST attention heads, dividing --hidden-size (16)"),
    SIZE_OPT("linear-hidden-size", linear_hidden_size, "N", "PatchTST feed-forward width (256)"),
    SIZE_OPT("patch-len", patch_len, "N", "PatchTST patch length (16; at most input size + stride)"),
    SIZE_OPT("stride", stride, "N", "PatchTST stride between patches (8)"),
    TEXT_OPT("revin", revin, "on|off", "PatchTST: RevIN normalisation of each window (on)"),
    TEXT_OPT("revin-affine", revin_affine, "on|off", "PatchTST: RevIN's learned weight and bias (off)"),
    TEXT_OPT("revin-subtract-last", revin_subtract_last, "on|off",
             "PatchTST: RevIN subtracts the last value, else the mean (on)"),
    TEXT_OPT("activation", activation, "gelu|relu", "PatchTST feed-forward activation (gelu)"),
    TEXT_OPT("res-attention", res_attention, "on|off", "PatchTST: each layer adds the previous layer's "
                                                                "attention scores (on)"),
    TEXT_OPT("batch-normalization", batch_normalization, "on|off",
             "PatchTST: BatchNorm before each sublayer instead of after it (off)"),
    TEXT_OPT("learn-pos-embed", learn_pos_embed, "on|off", "PatchTST: train the positional embedding (on)"),
    TEXT_OPT("attn-dropout", attn_dropout, "P", "PatchTST: dropout of the attention weights (0)"),
    TEXT_OPT("head-dropout", head_dropout, "P", "PatchTST: dropout of the forecast head (0)"),
};

const fc_arch_option *fc_arch_option_table(size_t *n) {
    *n = sizeof OPTIONS / sizeof *OPTIONS;
    return OPTIONS;
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
    for (size_t i = 0; i < sizeof OPTIONS / sizeof *OPTIONS; i++) {
        const fc_arch_option *o = &OPTIONS[i];
        if (strcmp(o->name, name)) continue;
        char *at = (char *)a + o->offset;
        if (!o->is_size) {
            memcpy(at, &value, sizeof value);
            return FC_OK;
        }
        size_t v;
        if (parse_size(value, &v)) return fc_error(FC_ERR_INVALID, "%s '%s': expected a non-negative integer", name, value);
        memcpy(at, &v, sizeof v);
        return FC_OK;
    }
    return fc_error(FC_ERR_INVALID, "unknown architecture option '%s'", name);
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

/* A size flag that was given, checked against [lo, hi] and stored in *out. */
static fc_status apply_size(const char *flag, size_t v, size_t lo, size_t hi, size_t *out) {
    if (v == FC_ARCH_UNSET) return FC_OK;
    if (v < lo || v > hi)
        return fc_error(FC_ERR_INVALID, "--%s %zu: must be from %zu to %zu (leave the flag out for the model's default)",
                        flag, v, lo, hi);
    *out = v;
    return FC_OK;
}

/* An on|off flag that was given, into *out. */
static fc_status apply_switch(const char *flag, const char *v, int *out) {
    if (!v) return FC_OK;
    if (strcmp(v, "on") && strcmp(v, "off")) return fc_error(FC_ERR_INVALID, "--%s '%s': expected on or off", flag, v);
    *out = !strcmp(v, "on");
    return FC_OK;
}

/* A probability flag that was given, into *out. */
static fc_status apply_probability(const char *flag, const char *v, double *out) {
    if (!v) return FC_OK;
    char *end;
    double p = strtod(v, &end);
    if (end == v || *end || !(p >= 0.0 && p < 1.0))
        return fc_error(FC_ERR_INVALID, "--%s '%s': expected a probability in [0, 1)", flag, v);
    *out = p;
    return FC_OK;
}

static fc_status apply_patchtst(const fc_arch_options *a, fc_model_config *c) {
    size_t layers = (size_t)c->encoder_layers, heads = (size_t)c->n_heads;
    FC_TRY(apply_size("encoder-layers", a->encoder_layers, 1, FC_PATCHTST_MAX_LAYERS, &layers));
    FC_TRY(apply_size("n-heads", a->n_heads, 1, FC_MAX_DIM, &heads));
    FC_TRY(apply_size("linear-hidden-size", a->linear_hidden_size, 1, FC_MAX_DIM, &c->linear_hidden_size));
    FC_TRY(apply_size("patch-len", a->patch_len, 1, FC_MAX_DIM, &c->patch_len));
    FC_TRY(apply_size("stride", a->stride, 1, FC_MAX_DIM, &c->stride));
    c->encoder_layers = (int)layers;
    c->n_heads = (int)heads;
    FC_TRY(apply_switch("revin", a->revin, &c->revin));
    FC_TRY(apply_switch("revin-affine", a->revin_affine, &c->revin_affine));
    FC_TRY(apply_switch("revin-subtract-last", a->revin_subtract_last, &c->revin_subtract_last));
    FC_TRY(apply_switch("res-attention", a->res_attention, &c->res_attention));
    FC_TRY(apply_switch("batch-normalization", a->batch_normalization, &c->batch_normalization));
    FC_TRY(apply_switch("learn-pos-embed", a->learn_pos_embed, &c->learn_pos_embed));
    if (a->activation && strcmp(a->activation, "gelu") && strcmp(a->activation, "relu"))
        return fc_error(FC_ERR_INVALID, "--activation '%s': expected gelu or relu", a->activation);
    if (a->activation) c->gelu = !strcmp(a->activation, "gelu");
    FC_TRY(apply_probability("attn-dropout", a->attn_dropout, &c->attn_dropout));
    return apply_probability("head-dropout", a->head_dropout, &c->head_dropout);
}

static fc_status apply_tide(const fc_arch_options *a, fc_model_config *c) {
    size_t enc = (size_t)c->num_encoder_layers, dec = (size_t)c->num_decoder_layers;
    FC_TRY(apply_size("decoder-output-dim", a->decoder_output_dim, 1, FC_MAX_DIM, &c->decoder_output_dim));
    FC_TRY(apply_size("temporal-decoder-dim", a->temporal_decoder_dim, 1, FC_MAX_DIM, &c->temporal_decoder_dim));
    FC_TRY(apply_size("temporal-width", a->temporal_width, 1, FC_MAX_DIM, &c->temporal_width));
    FC_TRY(apply_size("num-encoder-layers", a->num_encoder_layers, 1, FC_TIDE_MAX_LAYERS, &enc));
    FC_TRY(apply_size("num-decoder-layers", a->num_decoder_layers, 1, FC_TIDE_MAX_LAYERS, &dec));
    c->num_encoder_layers = (int)enc;
    c->num_decoder_layers = (int)dec;
    FC_TRY(apply_switch("layernorm", a->layernorm, &c->layernorm));
    return apply_probability("dropout", a->dropout, &c->dropout);
}

fc_status fc_arch_apply(const fc_arch_options *a, fc_model_config *c) {
    if (a->mlp_units) FC_TRY(apply_units(a->mlp_units, c));
    FC_TRY(apply_stacks(a, c));
    size_t harmonics = (size_t)c->n_harmonics, basis = (size_t)c->n_basis, layers = (size_t)c->num_layers;
    FC_TRY(apply_size("n-harmonics", a->n_harmonics, 1, FC_MAX_HARMONICS, &harmonics));
    FC_TRY(apply_size("n-basis", a->n_basis, 0, FC_MAX_BASIS, &basis));
    FC_TRY(apply_size("hidden-size", a->hidden_size, 1, FC_MAX_DIM, &c->hidden_size));
    FC_TRY(apply_size("num-layers", a->num_layers, 1, FC_MAX_LINEARS - 1, &layers));
    c->n_harmonics = (int)harmonics;
    c->n_basis = (int)basis;
    c->num_layers = (int)layers;
    size_t enc = (size_t)c->encoder_n_layers, dec = (size_t)c->decoder_layers;
    FC_TRY(apply_size("encoder-n-layers", a->encoder_n_layers, 1, FC_LSTM_MAX_LAYERS, &enc));
    FC_TRY(apply_size("encoder-hidden-size", a->encoder_hidden_size, 1, FC_MAX_DIM, &c->encoder_hidden_size));
    FC_TRY(apply_size("decoder-hidden-size", a->decoder_hidden_size, 1, FC_MAX_DIM, &c->decoder_hidden_size));
    FC_TRY(apply_size("decoder-layers", a->decoder_layers, 1, FC_LSTM_MAX_LAYERS, &dec));
    c->encoder_n_layers = (int)enc;
    c->decoder_layers = (int)dec;
    FC_TRY(apply_tide(a, c));
    FC_TRY(apply_patchtst(a, c));
    return fc_model_config_check(c);
}
