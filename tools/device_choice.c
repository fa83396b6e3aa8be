/* --device: see device_choice.h. */
#include <stdio.h>
#include <string.h>

#include "core/error.h"
#include "device_choice.h"

enum { MAX_THREADS = 100000 };   /* --threads is a size_t; the backend takes an int */

static fc_status create(const char *device, size_t threads, fc_backend **out, char *note, size_t cap) {
    return fc_backend_create(device, (int)(threads > MAX_THREADS ? MAX_THREADS : threads), out, note, cap);
}

fc_status device_backend_open(const char *device, size_t threads, int quiet, fc_backend **out) {
    char note[768];
    fc_status st = create(device, threads, out, note, sizeof note);
    if (st == FC_OK && !quiet) fprintf(stderr, "%s\n", note);
    return st;
}

/* A backend without the quant entries (the CPU's) adds nothing to src/quant's host loops. */
static int runs_quant(const fc_backend *be) { return be->mc_chunk_sums && be->indicator_segments; }

fc_status device_quant_open(const char *device, size_t threads, int verbose, fc_backend **out) {
    fc_device_kind kind;
    int gpu;
    char note[768] = "device: cpu";
    *out = NULL;
    FC_TRY(fc_device_parse(device, &kind, &gpu));
    if (kind != FC_DEVICE_CPU) {   /* for cpu no backend is built: its oneDNN engine would sit idle */
        FC_TRY(create(device, threads, out, note, sizeof note));
        if (!runs_quant(*out)) {
            int gpu_made = strcmp((*out)->name, "cpu") != 0;
            fc_backend_destroy(out);   /* auto's CPU fallback: the host loops run without it */
            /* A GPU backend built from other sources than this fcast's: say so rather than run elsewhere. */
            if (gpu_made && kind == FC_DEVICE_CUDA)
                return fc_error(FC_ERR_BACKEND, "device cuda:%d: the CUDA backend library has no quant kernels "
                                "(built from other sources than this fcast?)", gpu);
            if (gpu_made)
                snprintf(note, sizeof note, "device: cpu (the CUDA backend library has no quant kernels)");
        }
    }
    if (verbose) fprintf(stderr, "%s\n", note);
    return FC_OK;
}

fc_status device_cpu_only(const char *command, const char *device) {
    fc_device_kind kind;
    int gpu;
    FC_TRY(fc_device_parse(device, &kind, &gpu));
    if (kind == FC_DEVICE_CUDA)
        return fc_error(FC_ERR_INVALID, "--device %s: %s runs on the CPU only in this version (use --device cpu or auto)",
                        device, command);
    return FC_OK;
}
