/* What the trading analytics of the library API share among their files
 * (api_device.c, api_options.c): the backend a public fcast_device holds. */
#ifndef FC_API_API_QUANT_H
#define FC_API_API_QUANT_H

#include "backend/backend.h"
#include "fcast.h"

/* The GPU backend d runs on, or NULL for the CPU (d NULL too). */
fc_backend *fc_api_device_backend(const fcast_device *d);

#endif
