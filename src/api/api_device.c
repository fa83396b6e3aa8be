/* fcast_device (fcast.h): where the analytics that have GPU kernels (Monte
 * Carlo prices) run. A GPU backend with the quant kernels, or nothing: on
 * the CPU src/quant runs its own OpenMP loops and needs no backend (a CPU
 * backend's oneDNN engine would sit idle), so auto's CPU fallback is
 * released at once, as `fcast quant option --device` does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "api/api_quant.h"
#include "core/error.h"

struct fcast_device {
    fc_backend *be;   /* a GPU's, or NULL: the CPU */
    char note[768];
};

/* A backend without the quant entries (the CPU's) adds nothing to src/quant's host loops. */
static int runs_quant(const fc_backend *be) { return be->mc_chunk_sums && be->indicator_segments; }

fc_status fcast_device_open(const char *device, fcast_device **out) {
    if (!out) return fc_error(FC_ERR_INVALID, "fcast_device_open: out is NULL");
    *out = NULL;
    fc_device_kind kind;
    int gpu;
    /* "--device 'gpu' is not a device": the flag in the API's words, device 'gpu' */
    if (fc_device_parse(device, &kind, &gpu) != FC_OK) return fc_api_words(fc_last_status());
    fcast_device *d = calloc(1, sizeof *d);
    if (!d) return fc_error(FC_ERR_MEMORY, "fcast_device_open: out of memory");
    snprintf(d->note, sizeof d->note, "device: cpu");
    if (kind != FC_DEVICE_CPU) {
        fc_status st = fc_backend_create(device, 0, &d->be, d->note, sizeof d->note);
        if (st != FC_OK) {
            free(d);
            return st;   /* "device cuda:0: no CUDA backend: ..." names the device and the check */
        }
        if (!runs_quant(d->be)) {
            int gpu_made = strcmp(d->be->name, "cpu") != 0;
            fc_backend_destroy(&d->be);   /* auto's CPU fallback: the host loops run without it */
            /* A GPU backend built from other sources than this fcast's: say so rather than run elsewhere. */
            if (gpu_made && kind == FC_DEVICE_CUDA) {
                free(d);
                return fc_error(FC_ERR_BACKEND, "device cuda:%d: the CUDA backend library has no quant kernels "
                                "(built from other sources than this fcast?)", gpu);
            }
            if (gpu_made)
                snprintf(d->note, sizeof d->note, "device: cpu (the CUDA backend library has no quant kernels)");
        }
    }
    *out = d;
    return FC_OK;
}

const char *fcast_device_note(const fcast_device *d) { return d ? d->note : "device: cpu"; }

void fcast_device_free(fcast_device *d) {
    if (!d) return;
    fc_backend_destroy(&d->be);
    free(d);
}

fc_backend *fc_api_device_backend(const fcast_device *d) { return d ? d->be : NULL; }

fc_status fcast_device_is_gpu(const char *device, int *gpu) {
    fc_device_kind kind;
    int index;
    if (!gpu) return fc_error(FC_ERR_INVALID, "fcast_device_is_gpu: gpu is NULL");
    if (fc_device_parse(device, &kind, &index) != FC_OK) return fc_api_words(fc_last_status());
    *gpu = kind == FC_DEVICE_CUDA;
    return FC_OK;
}
