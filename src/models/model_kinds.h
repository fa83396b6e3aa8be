/* The table of model kinds (as ggml's table of operations): everything
 * that differs between N-HiTS, N-BEATS, MLP, ... is one entry of one row,
 * and the rest of fcast reaches a kind only through its row. A kind is one
 * file (nhits.c, nbeats.c, mlp.c, ...) defining the functions below with
 * its prefix, and one line of model_kind_list.h, from which its enum
 * value, these declarations and its FC_MODEL_KIND_ROW in model_kinds.c
 * are made (docs/models.md).
 *
 * A kind that lacks an entry cannot be built: the row macro names every
 * function from the kind's prefix, so a missing one is an undeclared or
 * unresolved symbol naming the kind and the entry; a row left out of the
 * table is refused by fc_model_kind_lookup (and test_model_kinds), never
 * filled in with another kind's code. */
#ifndef FC_MODELS_MODEL_KINDS_H
#define FC_MODELS_MODEL_KINDS_H

#include "models/arch_options.h"
#include "models/model.h"

struct json_t;   /* jansson's object: only the JSON entries and kind_json.c see it */

/* The entries, as function types so that the row and the declarations
 * below cannot drift apart. */
/* The kind's own fields at neuralforecast's defaults (kind, h, input_size
 * and n_outputs are set already). */
typedef void fc_kind_defaults_fn(fc_model_config *c);
/* The kind's own fields (the common ones are checked already). */
typedef fc_status fc_kind_check_fn(const fc_model_config *c);
/* Tensor table, layer layout and activation plan of m->cfg. */
typedef fc_status fc_kind_build_fn(fc_model *m);
typedef fc_status fc_kind_forward_fn(fc_model *m, float *forecast, const float *insample,
                                     const float *insample_mask, size_t B);
typedef fc_status fc_kind_backward_fn(fc_model *m, float *dforecast, size_t B);
/* Non-trainable tensors in m->params (N-BEATS bases); FC_OK when none. */
typedef fc_status fc_kind_fill_fn(fc_model *m);
/* The kind's own config fields, in neuralforecast's names and in the order
 * model files have always had them (their bytes must not change). */
typedef void fc_kind_to_json_fn(const fc_model_config *c, struct json_t *o);
typedef fc_status fc_kind_from_json_fn(struct json_t *o, fc_model_config *c, const char *where);

/* The exogenous inputs a kind takes (neuralforecast's EXOGENOUS_FUTR,
 * EXOGENOUS_HIST, EXOGENOUS_STAT), or'ed. */
enum { FC_EXOG_NONE = 0, FC_EXOG_FUTR = 1, FC_EXOG_HIST = 2, FC_EXOG_STAT = 4, FC_EXOG_ALL = 7 };

typedef struct fc_model_kind_ops {
    const char *name;        /* "NHITS": model files, forecast columns */
    const char *flag_name;   /* "nhits": --model, the kind's prefix */
    int num_lr_decays;       /* neuralforecast's default (-1: none) */
    unsigned exog;           /* FC_EXOG_*: asking a kind for others is an error naming them */
    /* neuralforecast's training defaults that differ by model, used when
     * --scaler, --windows-batch-size, --lr or --max-steps is not given */
    const char *scaler_type;
    size_t windows_batch_size;
    double learning_rate;
    size_t max_steps;
    fc_kind_defaults_fn *defaults;
    fc_kind_check_fn *check_config;
    fc_kind_build_fn *build;
    fc_kind_forward_fn *forward;
    fc_kind_backward_fn *backward;
    fc_kind_fill_fn *fill_buffers;
    fc_kind_to_json_fn *config_to_json;
    fc_kind_from_json_fn *config_from_json;
    /* Its architecture flags (arch_options.h), gathered into
     * fc_arch_option_table in the kinds' order. */
    const fc_arch_option_rows *arch_options;
} fc_model_kind_ops;

/* Declares the entries of a kind: fc_<kind>_defaults, ..., and its
 * option rows fc_<kind>_arch_options (FC_ARCH_ROWS of its flags, none:
 * {NULL, 0}). */
#define FC_MODEL_KIND_DECLARE(kind)                           \
    fc_kind_defaults_fn fc_##kind##_defaults;                 \
    fc_kind_check_fn fc_##kind##_check_config;                \
    fc_kind_build_fn fc_##kind##_build;                       \
    fc_kind_forward_fn fc_##kind##_forward;                   \
    fc_kind_backward_fn fc_##kind##_backward;                 \
    fc_kind_fill_fn fc_##kind##_fill_buffers;                 \
    fc_kind_to_json_fn fc_##kind##_config_to_json;            \
    fc_kind_from_json_fn fc_##kind##_config_from_json;        \
    extern const fc_arch_option_rows fc_##kind##_arch_options

/* One row of the table; every argument is required. */
#define FC_MODEL_KIND_ROW(kind, NAME, LR_DECAYS, EXOG, SCALER, WBS, LR, STEPS)               \
    {                                                                                         \
        .name = NAME, .flag_name = #kind, .num_lr_decays = LR_DECAYS, .exog = EXOG,           \
        .scaler_type = SCALER, .windows_batch_size = WBS, .learning_rate = LR,                \
        .max_steps = STEPS,                                                                   \
        .defaults = fc_##kind##_defaults, .check_config = fc_##kind##_check_config,           \
        .build = fc_##kind##_build, .forward = fc_##kind##_forward,                           \
        .backward = fc_##kind##_backward, .fill_buffers = fc_##kind##_fill_buffers,           \
        .config_to_json = fc_##kind##_config_to_json,                                         \
        .config_from_json = fc_##kind##_config_from_json,                                     \
        .arch_options = &fc_##kind##_arch_options,                                            \
    }

#define FC_MODEL_KIND(prefix, ...) FC_MODEL_KIND_DECLARE(prefix);
#include "models/model_kind_list.h"
#undef FC_MODEL_KIND

/* The row of kind k: FC_ERR_INVALID naming the kind when k is out of
 * range, or naming the entry its row lacks. */
fc_status fc_model_kind_lookup(fc_model_kind k, const fc_model_kind_ops **out);
/* The row of kind k, NULL when k is out of range (names, no dispatch). */
const fc_model_kind_ops *fc_model_kind_row(fc_model_kind k);
/* The first entry row k lacks ("name", "build", ...), NULL when complete. */
const char *fc_model_kind_missing_entry(const fc_model_kind_ops *row);
/* FC_ERR_INVALID unless the row takes every kind of exogenous input c
 * names, and the names are usable (model_config.c). */
fc_status fc_model_kind_check_exog(const fc_model_kind_ops *row, const fc_model_config *c);
/* "NHITS, NBEATS or MLP", for messages. */
void fc_model_kind_list(char *buf, size_t size);

/* Shared by N-HiTS and N-BEATS (residual block stacks). */
/* block_stack.c: forward and backward; the block MLP with neuralforecast's
 * layer layout and names; the plan of all activations. */
fc_status fc_blocks_forward(fc_model *m, float *forecast, const float *insample,
                            const float *insample_mask, size_t B);
fc_status fc_blocks_backward(fc_model *m, float *dforecast, size_t B);
void fc_block_add_mlp(fc_model *m, fc_block *blk, int block_index, size_t in, size_t n_theta);
void fc_blocks_plan(fc_model *m);
/* Calls describe(m, block, stack, block index) for every block of every
 * stack, in state_dict order, then plans the activations. */
typedef void (*fc_block_describer)(fc_model *m, fc_block *b, int stack, int block_index);
fc_status fc_blocks_build(fc_model *m, fc_block_describer describe);
/* model_config.c: mlp_units = 3 * [[512, 512]], 3 stacks of 1 block; and
 * the checks of stacks, blocks and mlp_units, with check_stack(c, i) run
 * on each stack in turn (NULL: none). */
void fc_blocks_defaults(fc_model_config *c);
/* stack_options.c: the appliers of the block stacks' flags (their rows
 * are N-HiTS's); a per-stack list into an int or size_t array field. */
fc_arch_apply_fn fc_arch_apply_mlp_units, fc_arch_apply_stack_types, fc_arch_apply_stack_ints,
    fc_arch_apply_stack_sizes;
#define FC_ARCH_STACK_LIST(name, field, help)                                                                 \
    {name, 0, "LIST", help,                                                                                   \
     _Generic(FC_ARCH_FIELD(field)[0], int: fc_arch_apply_stack_ints, size_t: fc_arch_apply_stack_sizes),  \
     offsetof(fc_model_config, field), 0, 0}
typedef fc_status (*fc_stack_check)(const fc_model_config *c, int stack);
fc_status fc_blocks_check_config(const fc_model_config *c, fc_stack_check check_stack);

/* kind_json.c: JSON fields of configurations. get_size reads an integer
 * from 0 to FC_MAX_DIM (mandatory when need), get_size_list n integers
 * from 1 to FC_MAX_DIM; stacks_* the fields N-HiTS and N-BEATS share
 * (stack_types, n_blocks, mlp_units). */
struct json_t *fc_json_size_array(const size_t *v, int n);
fc_status fc_json_get_size(struct json_t *o, const char *key, size_t *out, int need, const char *where);
fc_status fc_json_get_size_list(struct json_t *o, const char *key, size_t *out, int n, const char *where);
/* Optional fields: *out keeps its value when the key is absent. */
fc_status fc_json_get_bool(struct json_t *o, const char *key, int *out, const char *where);
fc_status fc_json_get_number(struct json_t *o, const char *key, double *out, const char *where);
void fc_stacks_to_json(const fc_model_config *c, struct json_t *o);
fc_status fc_stacks_from_json(struct json_t *o, fc_model_config *c, const char *where);
/* The exogenous lists as neuralforecast's futr_exog_list, hist_exog_list
 * and stat_exog_list, written only when not empty (model files without
 * them keep their bytes). */
void fc_exog_lists_to_json(const fc_model_config *c, struct json_t *o);
fc_status fc_exog_lists_from_json(struct json_t *o, fc_model_config *c, const char *where);

/* residual_mlp.c: neuralforecast's MLPResidual (fc_resmlp in model.h).
 * add: its tensors, state_dict order (norm, lin1, lin2, skip) under
 * prefix; plan: its activations; forward reads x (B rows x r->rows, in)
 * and returns its output; backward from dout (may be overwritten) writes
 * dx (NULL: x is data) and accumulates the gradients; scratch: 4 buffers,
 * each at least as wide per window as fc_resmlp_scratch raises slot[i] to. */
void fc_resmlp_add(fc_model *m, fc_resmlp *r, const char *prefix, size_t in, size_t hidden, size_t out, size_t rows,
                   int layernorm);
void fc_resmlp_plan(fc_model *m, fc_resmlp *r);
void fc_resmlp_scratch(const fc_resmlp *r, size_t slot[4]);
fc_status fc_resmlp_forward(fc_model *m, fc_resmlp *r, const float *x, size_t B, const float **out);
fc_status fc_resmlp_backward(fc_model *m, fc_resmlp *r, const float *x, float *dout, float *dx, float *const scratch[4],
                             size_t B);

/* nbeats.c, shared with NBEATSx: a block of stack s; the JSON fields with
 * the trend degree under degree_key. */
void fc_nbeats_describe_block(fc_model *m, fc_block *b, int s, int bi);
void fc_nbeats_fields_to_json(const fc_model_config *c, struct json_t *o, const char *degree_key);
fc_status fc_nbeats_fields_from_json(struct json_t *o, fc_model_config *c, const char *degree_key,
                                     const char *where);

#endif
