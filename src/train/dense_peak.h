/* The dense-layer peak of a backend: GFLOP/s of one linear forward (bias
 * and ReLU fused) at the N-HiTS hidden shape, 1024 x 512 by 512 x 512, the
 * best of timed rounds. The yardstick fcast bench divides training by, and
 * the matrix-product peak fcast doctor reports. */
#ifndef FC_TRAIN_DENSE_PEAK_H
#define FC_TRAIN_DENSE_PEAK_H

#include "fcast.h"
#include "backend/backend.h"

/* Best GFLOP/s over `rounds` rounds of 20 forward calls after 10 untimed
 * ones, in precision prec, in *gflops. Allocates through be and releases
 * everything before returning. */
fc_status fc_dense_peak_gflops(fc_backend *be, fc_precision prec, int rounds, double *gflops);

#endif
