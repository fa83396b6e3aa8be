/* A stand-in for libfcast-cuda.so (the contract is in src/backend/backend.h)
 * on a machine with the CUDA runtime but no GPU, so cli_device checks the
 * loader's whole path, dlopen to the entry point's refusal, without CUDA.
 * Built as libfake_cuda_backend.so next to the fcast binary (see the CMake
 * lines in CMakeLists.txt); tests point FCAST_CUDA_BACKEND at it. Needs only
 * fcast.h for fc_status: it links nothing of fcast, as the real one links
 * only what it uses. */
#include <stdio.h>

#include "fcast.h"

typedef struct fc_backend fc_backend;
typedef fc_status (*fc_error_fn)(fc_status code, const char *fmt, ...);

fc_status fc_backend_cuda_create(int abi, int device, fc_error_fn report, fc_backend **out, char *why,
                                 size_t why_cap);

fc_status fc_backend_cuda_create(int abi, int device, fc_error_fn report, fc_backend **out, char *why,
                                 size_t why_cap) {
    (void)abi;
    (void)device;
    (void)report;
    *out = NULL;
    snprintf(why, why_cap, "no CUDA device: cudaGetDeviceCount returned 0");
    return FC_ERR_BACKEND;
}
