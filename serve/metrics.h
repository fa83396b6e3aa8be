/* The service's metrics in the Prometheus text format (version 0.0.4), with
 * NVIDIA Triton's names where a counterpart exists, so dashboards written
 * for Triton read fcast too (docs/serving.md lists them):
 *
 *   nv_inference_request_success{model="m",version="1"}   counter
 *   nv_inference_request_failure{model="m",version="1"}   counter
 *   nv_inference_count{model="m",version="1"}             counter: series forecast
 *   nv_inference_exec_count{model="m",version="1"}        counter: batches executed
 *       (count / exec_count is the mean batch size)
 *   nv_inference_pending_request_count{model="m",...}     gauge: queued, not yet executed
 *   nv_model_load_state{model="m",...}                    gauge: 1 loaded, 0 not
 *   fcast_request_duration_seconds{model="m"}             histogram: receipt to answer
 *   fcast_queue_duration_seconds{model="m"}               histogram: queued to executed
 *   fcast_compute_duration_seconds{model="m"}             histogram: the batch's forward
 *   fcast_http_requests_total{code="200"}                 counter, every endpoint
 *   process_resident_memory_bytes                         gauge (Prometheus' own name)
 *   fcast_arena_used_bytes, fcast_arena_size_bytes        gauges
 *   nv_gpu_utilization, nv_gpu_memory_used_bytes, nv_gpu_memory_total_bytes,
 *   nv_gpu_power_usage, nv_gpu_temperature_celsius        gauges{gpu_uuid=...} when a GPU is used
 *
 * Thread-safe: the HTTP threads and the batchers record concurrently. */
#ifndef FC_SERVE_METRICS_H
#define FC_SERVE_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include "fcast.h"

typedef struct fc_metrics fc_metrics;

/* Process-wide readings taken when the metrics are rendered (a field < 0
 * or NaN: not available, its metric is left out). */
typedef struct {
    double resident_bytes;
    double arena_used_bytes, arena_size_bytes;
    int n_gpus;                       /* 0: no GPU lines */
    struct {
        char uuid[96];
        double utilization;           /* 0..1 */
        double memory_used_bytes, memory_total_bytes;
        double power_watts;
        double temperature_celsius;
    } gpu[8];
} fc_metrics_process;

fc_status fc_metrics_create(fc_metrics **out);
void fc_metrics_free(fc_metrics *m);

/* Registers a model (a load or reload: state 1; an unload: 0). A model's
 * series exist from its first registration on, also after an unload. */
fc_status fc_metrics_model_state(fc_metrics *m, const char *model, int loaded);
/* The recorders below never fail and never allocate: a model not
 * registered with fc_metrics_model_state (or NULL) is not recorded, so a
 * client naming models that do not exist cannot add series. */

/* One answered request of a model: success or failure, and its durations
 * in seconds (queue and compute < 0 for a request that never reached the
 * model, e.g. a malformed body: only the request duration is observed).
 * A duration < 0, NaN or infinite is not observed. */
void fc_metrics_request(fc_metrics *m, const char *model, int success, double request_s, double queue_s,
                        double compute_s);
/* One batch executed for a model, holding `inferences` series forecasts. */
void fc_metrics_execution(fc_metrics *m, const char *model, size_t inferences);
/* Requests of the model waiting in its queue: +1 when queued, -1 when taken. */
void fc_metrics_pending(fc_metrics *m, const char *model, int delta);
/* Every HTTP answer by status code (404s of unknown paths included); a
 * code outside 100..599 is not counted. */
void fc_metrics_http_status(fc_metrics *m, int status);

/* The whole text exposition, malloc'd (*len bytes, NUL-terminated), or
 * NULL with an error. Models in name order, histogram buckets cumulative
 * with +Inf, _sum and _count, as the format requires. proc may be NULL (no
 * process or GPU lines); a family without samples is left out whole. */
char *fc_metrics_render(fc_metrics *m, const fc_metrics_process *proc, size_t *len);

#endif
