/* Loading the CUDA backend library at run time (backend_loader.c); the
 * contract that library implements is in backend.h. */
#ifndef FC_BACKEND_BACKEND_LOADER_H
#define FC_BACKEND_BACKEND_LOADER_H

#include <stddef.h>
#include "backend/backend.h"

/* The CUDA backend on GPU `device`. On failure (FC_ERR_BACKEND, or what the
 * library returned) *out is NULL and why holds one line naming the check
 * that failed; fcast's error state is not set (auto fallback is quiet). */
fc_status fc_cuda_backend_load(int device, fc_backend **out, char *why, size_t why_cap);

#endif
