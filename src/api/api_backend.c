/* The backend a whole run computes on (api.h, fc_api_backend_open): the
 * device of its "device" key, and the one line saying which device runs
 * (and why not a GPU, under auto). */
#include <stdio.h>

#include "api/api_backend.h"
#include "api/api.h"
#include "core/error.h"

enum { MAX_THREADS = 100000 };   /* threads is a size_t; the backend takes an int */

fc_status fc_api_backend_open(const char *device, size_t threads, int verbose, fc_backend **out) {
    char note[768];
    int n = (int)(threads > MAX_THREADS ? MAX_THREADS : threads);
    fc_status st = fc_backend_create(device, n, out, note, sizeof note);
    if (st == FC_OK && verbose) fprintf(stderr, "%s\n", note);
    return st;
}

fc_status fc_api_open_backend(int threads, fc_backend **be) {
    return fc_api_backend_open(NULL, threads > 0 ? (size_t)threads : 0, 0, be);
}
