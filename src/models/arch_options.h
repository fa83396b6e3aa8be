/* Architecture options, by the names of the flags of the commands that
 * build a model (train, plan, bench) and of the library's
 * fcast_config_set: --mlp-units, --stack-types, --n-blocks, --n-pool-kernel-size,
 * --n-freq-downsample, --n-harmonics, --n-basis, --hidden-size, --num-layers,
 * LSTM's --encoder-n-layers, --encoder-hidden-size, --decoder-hidden-size,
 * --decoder-layers, and TiDE's --decoder-output-dim, --temporal-decoder-dim,
 * --temporal-width, --num-encoder-layers, --num-decoder-layers,
 * --layernorm, --dropout, and PatchTST's --encoder-layers, --n-heads,
 * --linear-hidden-size, --patch-len, --stride, --revin, --revin-affine,
 * --revin-subtract-last, --activation, --res-attention,
 * --batch-normalization, --learn-pos-embed, --attn-dropout, --head-dropout.
 * Unset flags keep neuralforecast's defaults for the model; a size flag
 * not given holds FC_ARCH_UNSET, so that "--hidden-size 0" is an error,
 * never the default in disguise. One table (fc_arch_option_table) names
 * them for both: the CLI makes its flag specs from it, the library sets
 * them by name. */
#ifndef FC_MODELS_ARCH_OPTIONS_H
#define FC_MODELS_ARCH_OPTIONS_H

#include "models/model.h"

/* A size option not given (so "--hidden-size 0" is refused, never read as
 * the default): the CLI's ARG_SIZE_UNSET has the same value. */
#define FC_ARCH_UNSET ((size_t)-1)

typedef struct {
    const char *mlp_units, *stack_types, *n_blocks, *pool, *downsample;
    size_t n_harmonics, n_basis, hidden_size, num_layers;
    size_t encoder_n_layers, encoder_hidden_size, decoder_hidden_size, decoder_layers;   /* LSTM */
    size_t decoder_output_dim, temporal_decoder_dim, temporal_width, num_encoder_layers, num_decoder_layers;  /* TiDE */
    const char *layernorm, *dropout;   /* TiDE: on|off, a probability (NULL: the model's default) */
    size_t encoder_layers, n_heads, linear_hidden_size, patch_len, stride;   /* PatchTST */
    const char *revin, *revin_affine, *revin_subtract_last, *res_attention, *batch_normalization,
        *learn_pos_embed;                          /* PatchTST: on|off */
    const char *activation, *attn_dropout, *head_dropout;   /* PatchTST: gelu|relu, probabilities */
} fc_arch_options;

void fc_arch_defaults(fc_arch_options *a);

/* One option: its flag name (without "--"), whether it takes a size or
 * text, where it lives in fc_arch_options, and its help line. */
typedef struct {
    const char *name;
    int is_size;          /* 1: size_t field; 0: const char * field */
    size_t offset;        /* offsetof(fc_arch_options, field) */
    const char *meta, *help;
} fc_arch_option;

/* The options in --help's order; *n their count. */
const fc_arch_option *fc_arch_option_table(size_t *n);
/* Sets option `name` from its text (a size is parsed and must be a
 * non-negative integer; the ranges are checked by fc_arch_apply).
 * FC_ERR_INVALID naming it when unknown or malformed. `value` is kept by
 * pointer for a text option: it must outlive a. */
fc_status fc_arch_set(fc_arch_options *a, const char *name, const char *value);
/* Applies the flags that were given to cfg and validates the result
 * (FC_ERR_INVALID naming the flag and its range). */
fc_status fc_arch_apply(const fc_arch_options *a, fc_model_config *cfg);

#endif
