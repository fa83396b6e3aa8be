/* The dense-layer peak of a backend: GFLOP/s of one linear forward (bias
 * and ReLU fused), the best of timed rounds. The yardstick fcast bench
 * divides training by, and the matrix-product peak fcast doctor reports.
 * On the CPU the shape is N-HiTS's hidden layer, 1024 x 512 by 512 x 512,
 * which a CPU runs at its peak. On a GPU that product is a few microseconds
 * of launch overhead: an H200 ran it at 24 (fp32) and 50 (bf16) TFLOP/s
 * against about 67 and 989 dense, so bench printed 175-286 % of "peak".
 * There the shape is 8192 cubed, large enough to fill the chip. */
#ifndef FC_TRAIN_DENSE_PEAK_H
#define FC_TRAIN_DENSE_PEAK_H

#include "fcast/status.h"
#include "backend/backend.h"

/* Best GFLOP/s over `rounds` rounds of 20 forward calls after 10 untimed
 * ones, in precision prec, in *gflops. Allocates through be and releases
 * everything before returning. */
fc_status fc_dense_peak_gflops(fc_backend *be, fc_precision prec, int rounds, double *gflops);

/* The product's shape on be: B windows, I inputs, O outputs; as text. */
#define FC_DENSE_PEAK_CPU_SHAPE "1024x512 by 512x512"
#define FC_DENSE_PEAK_GPU_SHAPE "8192x8192 by 8192x8192"
void fc_dense_peak_shape(const fc_backend *be, size_t *B, size_t *I, size_t *O);

#endif
