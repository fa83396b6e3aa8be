/* The CUDA entry for TA-Lib's functions (backend/cuda/cuda_quant.cu's
 * fc_cuda_ta_segments) on the host, for tests and the stand-in backend: NaN
 * over the span, the segments visited last first (no order may matter),
 * each segment's scratch its own slice of one buffer of work * n_rows
 * doubles at its offset in the span, as the GPU's threads have it. */
#ifndef FC_TESTS_TA_GPU_EMULATION_H
#define FC_TESTS_TA_GPU_EMULATION_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "core/error.h"
#include "kernels/ta/ta_segment.h"

static inline fc_status fc_test_emulated_ta_segments(fc_backend *be, const struct fc_ta_job *j) {
    (void)be;
    double *dev_out[FC_TA_MAX_OUTPUTS] = {0};
    double *work = malloc(((size_t)j->work * j->n_rows + 1) * sizeof *work);
    fc_status st = work ? FC_OK : fc_error(FC_ERR_MEMORY, "emulated GPU: out of memory");
    for (int k = 0; st == FC_OK && k < j->n_outputs; k++) {
        if (!(dev_out[k] = malloc((j->row0 + j->n_rows + 1) * sizeof(double)))) {
            st = fc_error(FC_ERR_MEMORY, "emulated GPU: out of memory");
            break;
        }
        for (size_t r = j->row0; r < j->row0 + j->n_rows; r++) dev_out[k][r] = NAN;
    }
    for (size_t i = j->n_seg; st == FC_OK && i-- > 0;)
        fc_ta_segment_run(j, j->in, dev_out, &j->seg[i], work + (j->seg[i].begin - j->row0) * (size_t)j->work);
    for (int k = 0; st == FC_OK && k < j->n_outputs; k++)
        memcpy(j->out[k] + j->row0, dev_out[k] + j->row0, j->n_rows * sizeof(double));
    for (int k = 0; k < FC_TA_MAX_OUTPUTS; k++) free(dev_out[k]);
    free(work);
    return st;
}

#endif
