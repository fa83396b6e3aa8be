/* The CPU backend's few functions beyond the table (fc_backend_cpu_create is
 * declared in backend/backend.h). Free of oneDNN types so tests and tools
 * can include it. */
#ifndef FC_BACKEND_CPU_CPU_BACKEND_H
#define FC_BACKEND_CPU_CPU_BACKEND_H

#include <stddef.h>
#include "backend/backend.h"

/* How many oneDNN matmul primitives this backend has created so far: one per
 * distinct (kind, shape, activation, bias) seen. Lets tests check that the
 * steady state builds nothing. */
size_t fc_backend_cpu_primitives_created(const fc_backend *be);

#endif
