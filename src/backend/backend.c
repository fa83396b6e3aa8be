/* Backend lifetime shared by every backend: each *_create fills the table,
 * including its own `destroy`, which fc_backend_destroy calls; and the
 * factory that turns a device name into a backend. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <omp.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend.h"
#include "backend/backend_loader.h"
#include "core/error.h"
#include "core/local_rank.h"

enum { MAX_GPU_INDEX = 1023 };   /* far past any machine; keeps the number an int */

fc_status fc_device_parse(const char *name, fc_device_kind *kind, int *index) {
    *index = -1;
    if (!name || !strcmp(name, "auto")) { *kind = FC_DEVICE_AUTO; return FC_OK; }
    if (!strcmp(name, "cpu")) { *kind = FC_DEVICE_CPU; return FC_OK; }
    *kind = FC_DEVICE_CUDA;
    if (!strcmp(name, "cuda")) { *index = 0; return FC_OK; }
    if (!strncmp(name, "cuda:", 5) && name[5] >= '0' && name[5] <= '9') {
        char *end;
        long n = strtol(name + 5, &end, 10);
        if (!*end && n <= MAX_GPU_INDEX) { *index = (int)n; return FC_OK; }
    }
    return fc_error(FC_ERR_INVALID, "--device '%s' is not a device: use " FC_DEVICE_FORMS " (N a GPU number from 0)",
                    name);
}

/* The loader's reason without its "no CUDA backend: " head, which the
 * auto note's "no GPU:" already says. */
static const char *reason(const char *why) {
    static const char head[] = "no CUDA backend: ";
    return strncmp(why, head, sizeof head - 1) ? why : why + sizeof head - 1;
}

/* auto without an NVIDIA driver on the machine: the CUDA library is not
 * even loaded, since cuBLASLt's relocations alone would add ~150 MB to the
 * resident memory of every CPU run. The driver shows as /dev/nvidiactl
 * (also inside containers given a GPU) or /proc/driver/nvidia. A library
 * named by $FCAST_CUDA_BACKEND is always loaded: an explicit choice. */
static int no_nvidia_driver(char *why, size_t cap) {
    const char *env = getenv("FCAST_CUDA_BACKEND");
    if ((env && *env) || access("/dev/nvidiactl", F_OK) == 0 || access("/proc/driver/nvidia", F_OK) == 0) return 0;
    snprintf(why, cap, "no NVIDIA driver: neither /dev/nvidiactl nor /proc/driver/nvidia exists");
    return 1;
}

fc_status fc_backend_create(const char *device, int threads, fc_backend **out, char *note, size_t note_cap) {
    fc_device_kind kind;
    int gpu;
    char why[640] = "", name[32];
    *out = NULL;
    if (note && note_cap) note[0] = 0;
    FC_TRY(fc_device_parse(device, &kind, &gpu));
    int local = fc_local_rank();
    if (kind != FC_DEVICE_CPU && (!device || !strchr(device, ':')))   /* auto and cuda: GPU 0, or in a job */
        gpu = local < 0 ? 0 : -1 - local;   /* the library takes the local rank modulo its GPUs (backend.h) */
    if (kind == FC_DEVICE_CUDA || (kind == FC_DEVICE_AUTO && !no_nvidia_driver(why, sizeof why))) {
        if (gpu >= 0) snprintf(name, sizeof name, "cuda:%d", gpu);
        else snprintf(name, sizeof name, "cuda (local rank %d)", local);
        fc_status st = fc_cuda_backend_load(gpu, out, why, sizeof why);
        if (st == FC_OK) {
            if (note && note_cap) snprintf(note, note_cap, "device: %s (%s)", name, (*out)->name);
            return FC_OK;
        }
        if (kind == FC_DEVICE_CUDA) return fc_error(st, "device %s: %s", name, why);
    }
    FC_TRY(fc_backend_cpu_create(threads, out));
    if (note && note_cap && kind == FC_DEVICE_AUTO) snprintf(note, note_cap, "device: cpu (no GPU: %s)", reason(why));
    else if (note && note_cap) snprintf(note, note_cap, "device: cpu");
    return FC_OK;
}

fc_status fc_backend_create_like(const fc_backend *be, int threads, fc_backend **out) {
    *out = NULL;
    if (be->gpu < 0) {
        int callers = omp_get_max_threads();   /* creating sets the creating thread's count: not the caller's */
        fc_status st = fc_backend_cpu_create(threads, out);
        omp_set_num_threads(callers);
        FC_TRY(st);
    } else {
        char why[640] = "";
        fc_status st = fc_cuda_backend_load(be->gpu, out, why, sizeof why);
        if (st != FC_OK) return fc_error(st, "another backend on cuda:%d: %s", be->gpu, why);
    }
    (*out)->tf32 = be->tf32;
    return FC_OK;
}

fc_status fc_backend_loss(fc_backend *be, double *loss, float *grad, float grad_scale, const fc_loss_call *c) {
    *loss = NAN;
    double *d_loss = be->alloc(be, sizeof *d_loss);
    if (!d_loss) return FC_ERR_MEMORY;
    be->masked_loss(be, d_loss, 1, 1.0, grad, grad_scale, c);
    be->to_host(be, loss, d_loss, sizeof *loss);
    be->release(be, d_loss);
    fc_status st = be->status(be);
    if (st != FC_OK) *loss = NAN;
    return st;
}

fc_status fc_backend_masked_loss(fc_backend *be, double *loss, float *grad, float grad_scale, const float *yhat,
                                 const float *y, const float *mask, size_t n, int kind) {
    fc_loss_call c = {.spec = {.kind = kind, .n_q = 1}, .yhat = yhat, .y = y, .mask = mask, .n = n, .h = n ? n : 1};
    return fc_backend_loss(be, loss, grad, grad_scale, &c);
}

static fc_backend_destroy_hook destroy_hook;

void fc_backend_set_destroy_hook(fc_backend_destroy_hook hook) { destroy_hook = hook; }

void fc_backend_destroy(fc_backend **be) {
    if (!be || !*be) return;
    if (destroy_hook) destroy_hook(*be);   /* dist/: its GPU group ends with it */
    (*be)->destroy(*be);
    *be = NULL;
}
