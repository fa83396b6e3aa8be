/* N-HiTS (Challu et al., AAAI 2023) with neuralforecast's NHITS layout:
 * each block max-pools its input with kernel = stride = n_pool_kernel_size
 * (ceil_mode), runs the block MLP, and linearly interpolates
 * max(h // n_freq_downsample, 1) forecast knots to the horizon
 * (F.interpolate, align_corners=False). With Q outputs per point the
 * block emits Q rows of knots (quantile-major), each interpolated to h.
 * interpolation_mode "nearest" (--interpolation-mode) picks the nearest
 * knot instead, as F.interpolate(mode="nearest"), and "cubic" runs
 * torch's bicubic over the knots as a (1, K) image (one output only, as
 * neuralforecast).
 * Forward and backward are shared with N-BEATS in block_stack.c.
 * This file is N-HiTS's row of the kind table (model_kinds.h). */
#include <jansson.h>
#include <string.h>

#include "core/error.h"
#include "models/model_kinds.h"

/* NHITS(): 3 identity stacks, pooling 2, 2, 1, downsampling 4, 2, 1. */
void fc_nhits_defaults(fc_model_config *c) {
    const size_t pool[3] = {2, 2, 1}, down[3] = {4, 2, 1};
    fc_blocks_defaults(c);
    for (int i = 0; i < 3; i++) {
        c->stack_types[i] = FC_STACK_IDENTITY;
        c->n_pool_kernel_size[i] = pool[i];
        c->n_freq_downsample[i] = down[i];
    }
}

static fc_status check_stack(const fc_model_config *c, int i) {
    if (c->stack_types[i] != FC_STACK_IDENTITY)
        return fc_error(FC_ERR_INVALID, "NHITS: stack %d is '%s'; NHITS has identity stacks only", i,
                        fc_stack_type_name(c->stack_types[i]));
    if (c->n_pool_kernel_size[i] < 1 || c->n_freq_downsample[i] < 1 ||
        c->n_pool_kernel_size[i] > FC_MAX_DIM || c->n_freq_downsample[i] > FC_MAX_DIM)
        return fc_error(FC_ERR_INVALID, "NHITS: stack %d: pool kernel and freq downsample must be 1 to %zu", i,
                        FC_MAX_DIM);
    return FC_OK;
}

fc_status fc_nhits_check_config(const fc_model_config *c) {
    FC_TRY(fc_blocks_check_config(c, check_stack));
    if (c->interp_mode == FC_INTERP_CUBIC && c->n_outputs > 1)   /* neuralforecast raises the same */
        return fc_error(FC_ERR_INVALID, "NHITS: cubic interpolation is not available with multiple outputs (%zu "
                        "quantiles), as in neuralforecast; use linear or nearest", c->n_outputs);
    return FC_OK;
}

static void describe_block(fc_model *m, fc_block *b, int s, int bi) {
    const fc_model_config *c = &m->cfg;
    size_t pool = c->n_pool_kernel_size[s], knots = c->h / c->n_freq_downsample[s];
    if (knots < 1) knots = 1;
    b->pool_k = pool;
    b->basis = FC_BASIS_INTERP;
    b->n_knots = knots;
    fc_block_add_mlp(m, b, bi, (c->input_size + pool - 1) / pool, c->input_size + c->n_outputs * knots);
}

fc_status fc_nhits_build(fc_model *m) { return fc_blocks_build(m, describe_block); }

fc_status fc_nhits_forward(fc_model *m, float *forecast, const float *insample, const float *insample_mask,
                           size_t B) {
    return fc_blocks_forward(m, forecast, insample, insample_mask, B);
}

fc_status fc_nhits_backward(fc_model *m, float *dforecast, size_t B) { return fc_blocks_backward(m, dforecast, B); }

/* N-HiTS has no non-trainable tensors. */
fc_status fc_nhits_fill_buffers(fc_model *m) {
    (void)m;
    return FC_OK;
}

static const char *const INTERP_NAMES[] = {"linear", "nearest", "cubic"};   /* by fc_interp_mode */

/* -1 when name is none of them. */
static int interp_mode_parse(const char *name) {
    for (int i = 0; i < 3; i++)
        if (name && !strcmp(name, INTERP_NAMES[i])) return i;
    return -1;
}

/* interpolation_mode is written only when it is not neuralforecast's
 * default "linear", so files of linear models stay as they were (and
 * older fcast, which would read them as linear, never meets the key). */
void fc_nhits_config_to_json(const fc_model_config *c, json_t *o) {
    fc_stacks_to_json(c, o);
    json_object_set_new(o, "n_pool_kernel_size", fc_json_size_array(c->n_pool_kernel_size, c->n_stacks));
    json_object_set_new(o, "n_freq_downsample", fc_json_size_array(c->n_freq_downsample, c->n_stacks));
    if (c->interp_mode != FC_INTERP_LINEAR)
        json_object_set_new(o, "interpolation_mode", json_string(INTERP_NAMES[c->interp_mode]));
}

static fc_status interpolation_from_json(json_t *o, fc_model_config *c, const char *where) {
    json_t *v = json_object_get(o, "interpolation_mode");
    if (!v) return FC_OK;
    int mode = interp_mode_parse(json_string_value(v));
    if (mode < 0)
        return fc_error(FC_ERR_FORMAT, "%s: config field 'interpolation_mode' must be \"linear\", \"nearest\" or "
                        "\"cubic\"", where);
    c->interp_mode = (fc_interp_mode)mode;
    return FC_OK;
}

fc_status fc_nhits_config_from_json(json_t *o, fc_model_config *c, const char *where) {
    FC_TRY(fc_stacks_from_json(o, c, where));
    FC_TRY(fc_json_get_size_list(o, "n_pool_kernel_size", c->n_pool_kernel_size, c->n_stacks, where));
    FC_TRY(fc_json_get_size_list(o, "n_freq_downsample", c->n_freq_downsample, c->n_stacks, where));
    return interpolation_from_json(o, c, where);
}

/* --interpolation-mode linear|nearest|cubic. */
static fc_status apply_interpolation(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c) {
    (void)o, (void)size;
    int mode = interp_mode_parse(text);
    if (mode < 0) return fc_error(FC_ERR_INVALID, "--interpolation-mode '%s': expected linear, nearest or cubic", text);
    c->interp_mode = (fc_interp_mode)mode;
    return FC_OK;
}

/* Its flags, and the block stacks' that N-BEATS and NBEATSx read too
 * (their appliers: stack_options.c). */
static const fc_arch_option ARCH[] = {
    FC_ARCH_TEXT("mlp-units", "LIST", fc_arch_apply_mlp_units, "block MLP widths: 512,512,512 or 512:512,... (3 x [512,512])"),
    FC_ARCH_TEXT("stack-types", "LIST", fc_arch_apply_stack_types,
                 "N-BEATS stacks: identity,trend,seasonality (NBEATSx: also exogenous)"),
    FC_ARCH_STACK_LIST("n-blocks", n_blocks, "blocks per stack (1,1,1)"),
    FC_ARCH_STACK_LIST("n-pool-kernel-size", n_pool_kernel_size, "N-HiTS pooling kernels per stack (2,2,1)"),
    FC_ARCH_STACK_LIST("n-freq-downsample", n_freq_downsample, "N-HiTS downsampling per stack (4,2,1)"),
    FC_ARCH_PROBABILITY("dropout-prob-theta", dropout_prob_theta,
                        "N-HiTS, NBEATSx: dropout after each hidden ReLU of the block MLPs while training (0)"),
    FC_ARCH_TEXT("interpolation-mode", "linear|nearest|cubic", apply_interpolation,
                 "N-HiTS: knots to horizon by linear, nearest or cubic interpolation (linear)"),
};
const fc_arch_option_rows fc_nhits_arch_options = FC_ARCH_ROWS(ARCH);
