/* The KServe v2 inference protocol (JSON) for clients that speak it, on
 * POST /v2/models/{name}/infer: input windows in, forecasts out.
 *
 * Request:
 *   {"id": "optional", "inputs": [
 *      {"name": "insample_y", "shape": [B, L], "datatype": "FP32", "data": [...]},
 *      {"name": "insample_mask", "shape": [B, L], "datatype": "BOOL", "data": [...]}   (optional)
 *   ], "outputs": [{"name": "forecast"}] (optional), "parameters": {...} (ignored)}
 * L is the model's input size; data is row-major, flat or nested as the
 * protocol allows; a null value, or a 0 in insample_mask, is a missing
 * point (masked, as neuralforecast's available_mask). datatype FP32, FP64,
 * INT32 or INT64 for insample_y; BOOL, INT* or FP* (0 / 1) for the mask.
 *
 * Answer:
 *   {"model_name": "m", "model_version": "1", "id": "...", "outputs": [
 *      {"name": "forecast", "datatype": "FP32", "shape": [B, h], "data": [...]}]}
 * Row b is the forecast fcast predict gives a series whose last L points
 * are window b (same scaling, same forward pass). */
#ifndef FC_SERVE_KSERVE_CODEC_H
#define FC_SERVE_KSERVE_CODEC_H

#include <stddef.h>
#include "api/serve_engine.h"
#include "forecast_codec.h"

#define FC_KSERVE_ID_MAX 256

/* Parses the request into *ds (B series of L points each, in row order)
 * and the request's id (empty when absent). Errors name the field:
 * FC_ERR_PARSE malformed JSON, FC_ERR_INVALID wrong shape, type or value,
 * FC_ERR_MEMORY past the limits. */
fc_status fc_kserve_request(const char *body, size_t len, size_t L, const fc_forecast_limits *lim, fc_dataset **ds,
                            char id[FC_KSERVE_ID_MAX]);

/* The answer for B windows of h forecasts with Q outputs each (shape [B, h]
 * for a point forecast, [B, h, Q] for a quantile loss; malloc'd text, *len bytes). */
char *fc_kserve_response(const char *model, const char *id, size_t B, size_t h, size_t Q, const float *forecasts,
                         size_t *len);

#endif
