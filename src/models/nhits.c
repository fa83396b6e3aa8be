/* N-HiTS (Challu et al., AAAI 2023) with neuralforecast's NHITS layout:
 * each block max-pools its input with kernel = stride = n_pool_kernel_size
 * (ceil_mode), runs the block MLP, and linearly interpolates
 * max(h // n_freq_downsample, 1) forecast knots to the horizon
 * (F.interpolate, align_corners=False). Forward and backward are shared
 * with N-BEATS in block_stack.c. */
#include "core/error.h"
#include "models/model.h"

fc_status fc_nhits_build(fc_model *m) {
    const fc_model_config *c = &m->cfg;
    size_t L = c->input_size, H = c->h;
    int bi = 0;
    for (int s = 0; s < c->n_stacks; s++)
        for (int k = 0; k < c->n_blocks[s]; k++, bi++) {
            fc_block *b = &m->blocks[bi];
            size_t pool = c->n_pool_kernel_size[s];
            size_t knots = H / c->n_freq_downsample[s];
            if (knots < 1) knots = 1;
            b->pool_k = pool;
            b->basis = FC_BASIS_INTERP;
            b->n_knots = knots;
            fc_block_add_mlp(m, b, bi, (L + pool - 1) / pool, L + knots);
        }
    m->n_blocks = bi;
    fc_blocks_plan(m);
    return FC_OK;
}
