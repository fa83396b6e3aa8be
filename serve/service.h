/* The endpoints of fcast serve (docs/serving.md): the request handler the
 * HTTP layer calls, over the models, the batcher and the metrics.
 *
 *   GET  /v2/health/live              200 while the process runs
 *   GET  /v2/health/ready             200 when serving, 503 while starting or draining
 *   GET  /healthz, /readyz            the same two, under Kubernetes' names
 *   GET  /v2                          server metadata (KServe v2)
 *   GET  /v2/models/{name}            model metadata (KServe v2, with fcast's configuration)
 *   GET  /v2/models/{name}/ready      200 when the model serves, 404 when unknown
 *   POST /v1/models/{name}/forecast   forecasts (serve/forecast_codec.h), JSON or CSV
 *   POST /v2/models/{name}/infer      KServe v2 inference: windows in, forecasts out (serve/kserve_codec.h)
 *   GET  /metrics                     Prometheus text (serve/metrics.h)
 *   POST /v1/quant/option, /v1/quant/indicators   the quant commands (serve/quant_routes.h)
 *   POST /v2/repository/index         the models and their state (Triton's repository API)
 *   POST /v2/repository/models/{name}/load     (re)load {name}.safetensors, swapped in atomically
 *   POST /v2/repository/models/{name}/unload   stop serving it (requests in flight finish)
 *
 * With a token (--auth-token-file), every endpoint but the health ones
 * needs `Authorization: Bearer <token>`, else 401.
 * The health endpoints (fc_service_is_probe) are also answered on the
 * connections kept beyond --max-connections for probes (conn_guard.h).
 *
 * Errors are {"error": "..."} with a status that fits: 400 malformed or
 * unusable request, 401 without the token, 404 unknown model or path, 405
 * wrong method, 413 too large, 415 unsupported content type, 503 queue
 * full or draining (with Retry-After), 500 a failure of fcast's own. */
#ifndef FC_SERVE_SERVICE_H
#define FC_SERVE_SERVICE_H

#include <signal.h>
#include "batcher.h"
#include "bearer_token.h"
#include "forecast_codec.h"
#include "http_server.h"
#include "metrics.h"
#include "model_registry.h"
#include "api/serve_engine.h"

/* 1 when path is a health endpoint, which probes call: /v2/health/...
 * and its aliases /healthz and /readyz (fc_http_options.is_probe). */
int fc_service_is_probe(const char *path);

typedef struct {
    fc_model_registry *models;
    fc_batcher *batcher;
    fc_metrics *metrics;
    fc_backend *be;
    fc_forecast_limits limits;
    _Atomic int ready;              /* 0 while starting and once draining (read by every handler thread) */
    _Atomic int draining;           /* 1: shutting down, new requests get 503 */
    int in_flight;                  /* handlers running (atomic builtins) */
    int quiet;                      /* no access log */
    const fc_bearer_token *token;   /* --auth-token-file's, or NULL: no authentication */
    const char *models_dir;         /* where model files are (re)loaded from */
    fc_gpu_monitor *gpu;            /* NVML when the models run on a GPU, for the metrics; else NULL */
} fc_service;

/* Re-reads the models directory (SIGHUP): new and changed files loaded
 * beside the old models and swapped in, removed ones unloaded; a file that
 * fails to load leaves its old model serving. One line per change on
 * stderr. */
void fc_service_rescan(fc_service *s);

/* Handlers running now (the drain waits for 0). */
int fc_service_in_flight(const fc_service *s);

/* fc_http_handler over an fc_service. */
void fc_service_handle(void *ctx, const fc_http_request *rq, fc_http_response *rs);
/* fc_http_logger: one access-log line on stderr per request, unless quiet:
 * the time of the answer (ISO 8601 UTC, milliseconds), method, path,
 * status, body bytes, microseconds from the headers' arrival. */
void fc_service_log(void *ctx, const fc_http_request *rq, int status, size_t bytes, double seconds);

#endif
