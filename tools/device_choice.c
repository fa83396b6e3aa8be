/* --device: see device_choice.h. */
#include <stdio.h>

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

fc_status device_cpu_only(const char *command, const char *device) {
    fc_device_kind kind;
    int gpu;
    FC_TRY(fc_device_parse(device, &kind, &gpu));
    if (kind == FC_DEVICE_CUDA)
        return fc_error(FC_ERR_INVALID, "--device %s: %s runs on the CPU only in this version (use --device cpu or auto)",
                        device, command);
    return FC_OK;
}
