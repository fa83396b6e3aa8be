/* The forecasting server's life, for `fcast serve` (docs/serving.md):
 * start (models loaded, the memory plan checked, HTTP listening, ready),
 * re-read the models directory on demand, drain, stop. The CLI owns the
 * signals and the waiting; this header needs nothing of the engine, so
 * the CLI reaches the server through it and fcast.h alone. */
#ifndef FC_SERVE_SERVER_RUN_H
#define FC_SERVE_SERVER_RUN_H

#include <stddef.h>

#include "fcast/status.h"

/* The flags of `fcast serve`, by their names; sizes in their units. */
typedef struct {
    const char *models, *host, *device, *memory_limit, *max_body, *auth_token_file;
    size_t port, threads, max_batch_windows, max_queue_delay_us, max_queue, max_connections, max_series;
    size_t max_points;               /* 0 (the default): FC_SERVE_MAX_POINTS, or under --memory-limit
                                        what the limit leaves for request data, at most that */
    size_t timeout, drain_timeout;   /* seconds */
    double request_timeout;          /* seconds; 0: never */
    int quiet;                       /* no access log */
} fc_serve_options;

/* Points in one request at most when --max-points is not given and no
 * --memory-limit bounds them lower. */
#define FC_SERVE_MAX_POINTS 10000000

/* The defaults of every flag (docs/serving.md). */
void fc_serve_defaults(fc_serve_options *o);

typedef struct fc_server fc_server;

/* Checks the options, opens the device, loads every model of o->models,
 * refuses a memory plan over o->memory_limit (with its breakdown), starts
 * the batcher and the HTTP listener, and turns ready. On failure nothing
 * is left running. o's strings must outlive the server. */
fc_status fc_server_start(const fc_serve_options *o, fc_server **out);
size_t fc_server_model_count(const fc_server *s);
unsigned fc_server_port(const fc_server *s);   /* the bound port (o->port 0: the one chosen) */
/* Re-reads the models directory (the CLI's SIGHUP), one line per change. */
void fc_server_reload(fc_server *s);
/* Readiness false, the listening socket closed, requests in flight
 * finished (up to o->drain_timeout seconds: a line on stderr names those
 * left). */
void fc_server_drain(fc_server *s);
/* Stops and frees everything (NULL: nothing). */
void fc_server_stop(fc_server *s);

#endif
