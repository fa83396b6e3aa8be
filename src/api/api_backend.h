/* The backend of a whole run (api_backend.c), shared by the run calls of
 * api.h and by the server (api/serve_engine.h). */
#ifndef FC_API_API_BACKEND_H
#define FC_API_API_BACKEND_H

#include <stddef.h>

#include "backend/backend.h"

/* `device` (NULL: auto) with `threads` CPU threads (0: all cores), its
 * choice said on stderr when verbose ("device: cpu (no GPU: ...)"). */
fc_status fc_api_backend_open(const char *device, size_t threads, int verbose, fc_backend **out);

#endif
