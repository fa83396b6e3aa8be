/* Host<->device copy bandwidth (see copy_bandwidth.h). */
#include "train/copy_bandwidth.h"

#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/clock.h"

typedef enum { TO_DEVICE, TO_HOST } direction;

static void copy_once(fc_backend *be, direction d, void *dev, void *host, size_t bytes) {
    if (d == TO_DEVICE) be->to_device(be, dev, host, bytes);
    else be->to_host(be, host, dev, bytes);
}

/* GB/s of the fastest round. The clock starts and stops on a synced
 * device: a copy from pinned memory returns before it has finished. */
static double best_rate(fc_backend *be, direction d, void *dev, void *host, size_t bytes, int rounds) {
    double best = 0;
    copy_once(be, d, dev, host, bytes);   /* untimed: the driver maps the buffers on first use */
    for (int r = 0; r < rounds && be->status(be) == FC_OK; r++) {
        be->sync(be);
        double t0 = fc_now();
        copy_once(be, d, dev, host, bytes);
        be->sync(be);
        double dt = fc_now() - t0;
        if (dt > 0 && (best == 0 || dt < best)) best = dt;
    }
    return best > 0 ? (double)bytes / best * 1e-9 : 0;
}

/* Both directions between dev and one host buffer. */
static void measure_host(fc_backend *be, void *dev, void *host, size_t bytes, int rounds, double *h2d,
                         double *d2h) {
    memset(host, 1, bytes);   /* fault the pages in before the clock runs */
    *h2d = best_rate(be, TO_DEVICE, dev, host, bytes, rounds);
    *d2h = best_rate(be, TO_HOST, dev, host, bytes, rounds);
}

fc_status fc_copy_bandwidth_measure(fc_backend *be, size_t bytes, int rounds, fc_copy_bandwidth *bw) {
    memset(bw, 0, sizeof *bw);
    if (!bytes || rounds < 1) return fc_error(FC_ERR_INVALID, "copy bandwidth: bytes and rounds must be positive");
    fc_error_clear();
    void *dev = be->alloc(be, bytes);
    void *pageable = dev ? fc_malloc(bytes, "pageable copy buffer") : NULL;
    void *pinned = pageable ? be->host_alloc(be, bytes) : NULL;
    if (pinned) {
        measure_host(be, dev, pageable, bytes, rounds, &bw->h2d_pageable, &bw->d2h_pageable);
        if (be->status(be) == FC_OK) measure_host(be, dev, pinned, bytes, rounds, &bw->h2d_pinned, &bw->d2h_pinned);
    }
    be->sync(be);   /* nothing may still read a buffer released below */
    if (pinned) be->host_release(be, pinned);
    free(pageable);
    if (dev) be->release(be, dev);
    fc_status st = be->status(be);   /* a copy's failure (the copies return nothing) */
    if (st == FC_OK && !pinned) st = fc_error(FC_ERR_MEMORY, "copy bandwidth: cannot allocate %zu bytes", bytes);
    if (st != FC_OK) memset(bw, 0, sizeof *bw);
    return st;
}
