/* Architecture flags shared by the commands that build a model (train,
 * plan, bench): --mlp-units, --stack-types, --n-blocks, --n-pool-kernel-size,
 * --n-freq-downsample, --n-harmonics, --n-basis, --hidden-size, --num-layers,
 * LSTM's --encoder-n-layers, --encoder-hidden-size, --decoder-hidden-size,
 * --decoder-layers, and TiDE's --decoder-output-dim, --temporal-decoder-dim,
 * --temporal-width, --num-encoder-layers, --num-decoder-layers,
 * --layernorm, --dropout, and PatchTST's --encoder-layers, --n-heads,
 * --linear-hidden-size, --patch-len, --stride, --revin, --revin-affine,
 * --revin-subtract-last, --activation, --res-attention,
 * --batch-normalization, --learn-pos-embed, --attn-dropout, --head-dropout.
 * Unset flags keep neuralforecast's defaults for the model; a size flag
 * not given holds ARG_SIZE_UNSET, so that "--hidden-size 0" is an error,
 * never the default in disguise. */
#ifndef FC_TOOLS_MODEL_OPTIONS_H
#define FC_TOOLS_MODEL_OPTIONS_H

#include "args.h"
#include "models/model.h"

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
/* Appends the flag specs to `specs` (room for at least 36 entries). */
void fc_arch_specs(fc_arch_options *a, arg_spec *specs, size_t room);
/* Applies the flags that were given to cfg and validates the result
 * (FC_ERR_INVALID naming the flag and its range). */
fc_status fc_arch_apply(const fc_arch_options *a, fc_model_config *cfg);

#endif
