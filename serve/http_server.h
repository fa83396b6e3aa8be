/* The HTTP layer of fcast serve, over libmicrohttpd (Debian's
 * libmicrohttpd-dev: a small, well-kept C server library that does the
 * parsing, connection limits and timeouts we would otherwise write).
 *
 * One thread per connection: a handler may block while its request waits in
 * a model's queue (dynamic batching) without holding up other connections,
 * and --max-connections bounds the threads (with a reserve for health
 * probes, and a deadline on request headers: conn_guard.h, against
 * clients that trickle). The layer collects the request
 * body (up to max_body bytes: beyond, 413 without reading the rest into
 * memory), calls the handler once per request with the whole body, and
 * sends what the handler answered. It knows nothing of models or JSON. */
#ifndef FC_SERVE_HTTP_SERVER_H
#define FC_SERVE_HTTP_SERVER_H

#include <stddef.h>
#include "fcast/status.h"

typedef struct {
    const char *method;         /* "GET", "POST", ... */
    const char *path;           /* without the query string */
    const char *content_type;   /* NULL when absent */
    const char *accept;         /* NULL when absent */
    const char *authorization;  /* NULL when absent */
    size_t authorization_len;   /* its bytes (libmicrohttpd's length, not strlen) */
    const char *body;           /* NUL-terminated copy of the body (len bytes) */
    size_t len;
    double received;            /* fc_now() when the request's headers arrived */
} fc_http_request;

typedef struct {
    int status;
    const char *content_type;   /* a literal: not freed */
    char *body;                 /* malloc'd; the layer frees it */
    size_t len;
    int retry_after;            /* > 0: a Retry-After header (seconds), for 503 */
    int www_authenticate;       /* 1: a WWW-Authenticate: Bearer header, for 401 */
    const char *allow;          /* an Allow header (a literal), for 405 */
    int close;                  /* 1: Connection: close (the connection closes after the answer) */
} fc_http_response;

/* Fills the response of the request; never NULL body with len > 0. */
typedef void (*fc_http_handler)(void *ctx, const fc_http_request *rq, fc_http_response *rs);
/* One line per answered request (the access log), or NULL. */
typedef void (*fc_http_logger)(void *ctx, const fc_http_request *rq, int status, size_t bytes, double seconds);

typedef struct {
    const char *host;           /* address to bind ("127.0.0.1", "0.0.0.0", "::1") */
    unsigned port;              /* 0: any free port (fc_http_port says which) */
    unsigned max_connections;   /* ordinary ones; FC_CONN_RESERVE more for probes (conn_guard.h) */
    size_t max_body;            /* bytes of a request body */
    unsigned timeout_s;         /* an idle connection is closed after this, and a request's headers must be
                                   in within it of the accept or the previous answer (conn_guard.h) */
    int (*is_probe)(const char *path);   /* 1: a path answered on reserve connections (health probes'); NULL: none */
} fc_http_options;

typedef struct fc_http_server fc_http_server;

/* Binds and starts serving in background threads. FC_ERR_IO naming the
 * address when it cannot bind (in use, not an address of this machine). */
fc_status fc_http_start(const fc_http_options *o, fc_http_handler handler, fc_http_logger logger, void *ctx,
                        fc_http_server **out);
/* The port bound (useful with port 0). */
unsigned fc_http_port(const fc_http_server *s);
/* Stops accepting connections at once (the listening socket is closed);
 * connections already open go on being served until fc_http_stop. */
void fc_http_quiesce(fc_http_server *s);
/* Open connections (requests in flight or idle keep-alive). */
unsigned fc_http_connections(const fc_http_server *s);
/* Stops and frees: waits for the handlers running to return. */
void fc_http_stop(fc_http_server *s);

/* A response with a copy of text (content type a literal). */
void fc_http_reply(fc_http_response *rs, int status, const char *content_type, const char *text);
/* {"error": "<message>"} with the message JSON-escaped. */
void fc_http_reply_error(fc_http_response *rs, int status, const char *message);
/* 405 naming the methods allowed, in the message and the Allow header (a literal). */
void fc_http_method_not_allowed(fc_http_response *rs, const char *allowed);
/* The status of an engine error: 400 malformed or unusable input, 413 past a
 * limit (FC_ERR_MEMORY), 500 otherwise. */
int fc_http_status_of(fc_status st);
/* Whether a Content-Type or Accept header is `type`, parameters aside
 * ("text/csv; charset=utf-8" is text/csv); 0 for NULL. */
int fc_http_media_is(const char *header, const char *type);
/* A JSON body: application/json, no Content-Type, or
 * application/x-www-form-urlencoded, which `curl -d` sends when not told
 * otherwise (the body is JSON all the same). */
int fc_http_json_body(const fc_http_request *rq);

#endif
