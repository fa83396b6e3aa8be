/* Work of the dense layers, for benchmarks: what a training step asks of
 * the matrix unit. Per window and linear layer (in -> out): forward 2*in*out,
 * weight gradient 2*in*out, input gradient 2*in*out (times its rows per
 * window for a layer applied at every step of a sequence) unless the layer reads
 * data (the first layer of the first block, or of the MLP). The N-BEATS
 * basis products, pooling, interpolation and element-wise work are left
 * out: they are a few percent of N-HiTS's work and no matrix unit runs them. */
#include "models/model.h"

static double layer_flops(const fc_linear *l, int input_gradient) {
    double io = 2.0 * (double)l->rows * (double)l->in * (double)l->out;
    return io * (input_gradient ? 3.0 : 2.0);
}

/* Visit 0 reads the data: no input gradient. */
static fc_status add_layer(const fc_linear *l, size_t index, void *ctx) {
    *(double *)ctx += layer_flops(l, index > 0);
    return FC_OK;
}

double fc_model_train_flops_per_window(const fc_model *m) {
    double f = 0.0;
    fc_model_for_each_linear(m, add_layer, &f);
    return f;
}
