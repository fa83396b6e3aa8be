/* What the trading analytics of the library API share among their files
 * (api_device.c, api_options.c, api_indicators.c, api_indicator_set.c,
 * api_backtest.c): the backend a public fcast_device holds, the grouped
 * layout read as offsets. */
#ifndef FC_API_API_QUANT_H
#define FC_API_API_QUANT_H

#include "backend/backend.h"
#include "fcast.h"

/* indptr (n_series + 1, the grouped layout) as the engine's offsets,
 * checked (NULL, indptr[0] != 0, decreasing are errors naming fn):
 * *out is malloc'd. */
fc_status fc_api_offsets_from_indptr(const char *fn, size_t n_series, const int64_t *indptr, size_t **out);

/* One spec as a set of one (api_indicator_set.c), messages naming fn's
 * spec argument ("fn: spec 'sma:0': ..."); prefer_ta: TA-Lib's own body
 * even for the batched engine's names. */
fc_status fc_api_indicator_one(const char *fn, const char *spec, int prefer_ta, fcast_indicator_set **out);
/* TA-Lib's lookback of spec j of s. */
size_t fc_api_indicator_lookback(const fcast_indicator_set *s, size_t j);

/* The GPU backend d runs on, or NULL for the CPU (d NULL too). */
fc_backend *fc_api_device_backend(const fcast_device *d);

#endif
