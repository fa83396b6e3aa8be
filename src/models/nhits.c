/* N-HiTS (Challu et al., AAAI 2023) with neuralforecast's NHITS layout:
 * each block max-pools its input with kernel = stride = n_pool_kernel_size
 * (ceil_mode), runs the block MLP, and linearly interpolates
 * max(h // n_freq_downsample, 1) forecast knots to the horizon
 * (F.interpolate, align_corners=False). With Q outputs per point the
 * block emits Q rows of knots (quantile-major), each interpolated to h.
 * Forward and backward are shared with N-BEATS in block_stack.c. */
#include "core/error.h"
#include "models/model.h"

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
