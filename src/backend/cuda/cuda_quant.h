/* The quant entries of the CUDA backend (cuda_quant.cu): the optional
 * Monte Carlo and indicator entries of backend.h's table, which
 * cuda_backend.cu's fill_table sets. Contracts are in backend.h. */
#ifndef FC_BACKEND_CUDA_QUANT_H
#define FC_BACKEND_CUDA_QUANT_H

#include "backend/cuda/cuda_internal.h"

fc_status fc_cuda_mc_chunk_sums(fc_backend *be, const struct fc_mc_spec *spec, uint64_t seed, uint64_t n_draws,
                                uint32_t chunk_draws, struct fc_mc_sums *chunk_sums);

fc_status fc_cuda_indicator_segments(fc_backend *be, const struct fc_ind_plan *plans, size_t n_specs,
                                     const double *x, size_t row0, size_t n_rows, const struct fc_ind_seg *seg,
                                     size_t n_seg, double *const *const *outs);

#endif
