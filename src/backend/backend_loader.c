/* Loading the CUDA backend library (contract in backend.h) with dlopen, as
 * ggml's loadable backends do: nothing in fcast links against CUDA, so the
 * binary starts on machines without the CUDA runtime or driver, and only a
 * run that asks for a GPU (or looks for one, with --device auto) opens it.
 * A library that was opened stays open: backends it made, and the CUDA
 * runtime's own threads, may outlive any one caller. */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend/backend_loader.h"
#include "core/error.h"

/* The directory of the running binary, from /proc/self/exe ("" if unknown). */
static void exe_dir(char *dir, size_t cap) {
    ssize_t n = readlink("/proc/self/exe", dir, cap - 1);
    dir[n > 0 ? n : 0] = 0;
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    else dir[0] = 0;
}

/* Opens `path` if the file exists. One that exists but does not load (not a
 * library, or its CUDA runtime missing) is the answer, not a reason to try
 * the next place: "not found" about a file the user can see would mislead. */
static void *open_file(const char *path, int *present, char *why, size_t cap) {
    if (access(path, F_OK) != 0) return NULL;
    *present = 1;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(why, cap, "no CUDA backend: %s could not be loaded: %s", path, dlerror());
    return h;
}

/* Next to the binary, then in the install's lib dir, then the library path. */
static void *open_default(char *path, size_t path_cap, char *why, size_t cap) {
    char dir[PATH_MAX];
    exe_dir(dir, sizeof dir);
    const char *places[] = {"%s/" FC_CUDA_LIBRARY_NAME, "%s/../lib/" FC_CUDA_LIBRARY_NAME};
    int present = 0;
    for (size_t i = 0; dir[0] && i < sizeof places / sizeof *places; i++) {
        snprintf(path, path_cap, places[i], dir);
        void *h = open_file(path, &present, why, cap);
        if (h || present) return h;
    }
    snprintf(path, path_cap, "%s", FC_CUDA_LIBRARY_NAME);
    void *h = dlopen(FC_CUDA_LIBRARY_NAME, RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    const char *err = dlerror();
    if (err && strncmp(err, FC_CUDA_LIBRARY_NAME ": cannot open", strlen(FC_CUDA_LIBRARY_NAME ": cannot open")) != 0)
        snprintf(why, cap, "no CUDA backend: %s could not be loaded: %s", FC_CUDA_LIBRARY_NAME, err);
    else
        snprintf(why, cap, "no CUDA backend: " FC_CUDA_LIBRARY_NAME " not found next to fcast or on the library "
                 "path (built without nvcc?)");
    return NULL;
}

/* $FCAST_CUDA_BACKEND when set (an explicit choice: its failure is final),
 * else the default places. */
static void *open_library(char *path, size_t path_cap, char *why, size_t cap) {
    const char *env = getenv("FCAST_CUDA_BACKEND");
    if (!env || !*env) return open_default(path, path_cap, why, cap);
    snprintf(path, path_cap, "%s", env);
    int present = 0;
    void *h = open_file(env, &present, why, cap);
    if (!present) snprintf(why, cap, "no CUDA backend: FCAST_CUDA_BACKEND=%s: no such file", env);
    return h;
}

fc_status fc_cuda_backend_load(int device, fc_backend **out, char *why, size_t why_cap) {
    char path[PATH_MAX];
    *out = NULL;
    why[0] = 0;
    void *h = open_library(path, sizeof path, why, why_cap);
    if (!h) return FC_ERR_BACKEND;
    fc_cuda_entry entry;
    *(void **)&entry = dlsym(h, FC_CUDA_ENTRY_NAME);   /* POSIX's way to a function pointer */
    if (!entry) {
        snprintf(why, why_cap, "no CUDA backend: %s lacks %s (not an fcast CUDA backend)", path, FC_CUDA_ENTRY_NAME);
        dlclose(h);   /* nothing of it ran */
        return FC_ERR_BACKEND;
    }
    fc_status st = entry(FC_BACKEND_ABI, device, fc_error, out, why, why_cap);
    if (st == FC_OK && *out) return FC_OK;
    if (st == FC_OK) st = FC_ERR_BACKEND;   /* success without a backend breaks the contract */
    *out = NULL;
    if (!why[0]) snprintf(why, why_cap, "the CUDA backend (%s) failed without saying why", path);
    return st;
}
