/* Host<->device copy bandwidth of a backend, from pageable (malloc'd) and
 * from pinned (be->host_alloc) host memory: what fcast doctor reports for
 * a GPU, where the staging copies of every training step go through it. */
#ifndef FC_TRAIN_COPY_BANDWIDTH_H
#define FC_TRAIN_COPY_BANDWIDTH_H

#include <stddef.h>
#include "fcast/status.h"
#include "backend/backend.h"

typedef struct {
    double h2d_pageable, h2d_pinned;   /* host -> device, GB/s (1e9 bytes per second) */
    double d2h_pageable, d2h_pinned;   /* device -> host, GB/s */
} fc_copy_bandwidth;

/* Best of `rounds` timed copies of `bytes` in each direction from each kind
 * of host memory, after one untimed copy each. Allocates one device and two
 * host buffers of `bytes` through be and releases them before returning.
 * The copy entries return no status, so a failure they report (through
 * fc_error) is found by clearing the thread's error first and reading it
 * after: FC_ERR_BACKEND (or what the backend said) and *bw zeroed then. */
fc_status fc_copy_bandwidth_measure(fc_backend *be, size_t bytes, int rounds, fc_copy_bandwidth *bw);

#endif
