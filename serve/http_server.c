/* The HTTP layer over libmicrohttpd (see http_server.h). */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <microhttpd.h>

#include "conn_guard.h"
#include "core/error.h"
#include "http_server.h"
#include "json_text.h"
#include "core/clock.h"

struct fc_http_server {
    struct MHD_Daemon *daemon;
    fc_http_handler handler;
    fc_http_logger logger;
    void *ctx;
    size_t max_body;
    unsigned port, max_connections;
    int (*is_probe)(const char *path);
    fc_conn_guard *guard;
};

/* One request's state across the calls libmicrohttpd makes for it. */
typedef struct {
    char *body;
    size_t len, cap;
    int too_large;
    double received;
} request_state;

void fc_http_reply(fc_http_response *rs, int status, const char *content_type, const char *text) {
    size_t n = strlen(text);
    rs->status = status;
    rs->content_type = content_type;
    rs->body = malloc(n + 1);
    rs->len = rs->body ? n : 0;
    if (rs->body) memcpy(rs->body, text, n + 1);
}

/* {"error": "..."}: the message quotes client input, which may be any
 * bytes; the shared writer keeps the body valid JSON. */
void fc_http_reply_error(fc_http_response *rs, int status, const char *message) {
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    if (f) {
        fputs("{\"error\": ", f);
        fc_json_put_string(f, message);
        fputs("}\n", f);
        fclose(f);
    }
    *rs = (fc_http_response){.status = status, .content_type = "application/json", .body = text, .len = text ? n : 0};
}

int fc_http_status_of(fc_status st) {
    switch (st) {
    case FC_ERR_PARSE:
    case FC_ERR_INVALID: return 400;
    case FC_ERR_MEMORY: return 413;
    default: return 500;
    }
}

int fc_http_media_is(const char *header, const char *type) {
    if (!header) return 0;
    size_t n = strlen(type);
    return !strncasecmp(header, type, n) && (header[n] == '\0' || header[n] == ';' || header[n] == ' ');
}

int fc_http_json_body(const fc_http_request *rq) {
    return !rq->content_type || fc_http_media_is(rq->content_type, "application/json") ||
           fc_http_media_is(rq->content_type, "application/x-www-form-urlencoded");
}

void fc_http_method_not_allowed(fc_http_response *rs, const char *allowed) {
    char msg[128];
    snprintf(msg, sizeof msg, "method not allowed here (allowed: %s)", allowed);
    fc_http_reply_error(rs, 405, msg);
    rs->allow = allowed;
}

static enum MHD_Result send_response(fc_http_server *s, struct MHD_Connection *c, const fc_http_request *rq,
                                     fc_http_response *rs) {
    if (!rs->body) {   /* the handler's allocation failed: say so without allocating */
        static char oom[] = "{\"error\": \"out of memory\"}\n";
        rs->status = 500;
        rs->content_type = "application/json";
        rs->body = NULL;
        rs->len = sizeof oom - 1;
        struct MHD_Response *r = MHD_create_response_from_buffer(rs->len, oom, MHD_RESPMEM_PERSISTENT);
        if (!r) return MHD_NO;
        enum MHD_Result ok = MHD_queue_response(c, (unsigned)rs->status, r);
        MHD_destroy_response(r);
        return ok;
    }
    size_t bytes = rs->len;
    struct MHD_Response *r = MHD_create_response_from_buffer(rs->len, rs->body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(rs->body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, rs->content_type ? rs->content_type : "text/plain");
    char retry[32];
    if (rs->retry_after > 0) {
        snprintf(retry, sizeof retry, "%d", rs->retry_after);
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, retry);
    }
    if (rs->www_authenticate) MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    if (rs->allow) MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, rs->allow);
    if (rs->close) MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ok = MHD_queue_response(c, (unsigned)rs->status, r);
    MHD_destroy_response(r);
    if (s->logger) s->logger(s->ctx, rq, rs->status, bytes, fc_now() - rq->received);
    return ok;
}

static const char *header(struct MHD_Connection *c, const char *name) {
    return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static fc_http_request request_of(struct MHD_Connection *c, const char *url, const char *method,
                                  const request_state *st) {
    const char *auth = NULL;
    size_t auth_len = 0;
    if (MHD_lookup_connection_value_n(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION,
                                      strlen(MHD_HTTP_HEADER_AUTHORIZATION), &auth, &auth_len) != MHD_YES)
        auth = NULL, auth_len = 0;
    return (fc_http_request){method, url, header(c, MHD_HTTP_HEADER_CONTENT_TYPE), header(c, MHD_HTTP_HEADER_ACCEPT),
                             auth, auth_len, st->body ? st->body : "", st->len, st->received};
}

static enum MHD_Result too_large(fc_http_server *s, struct MHD_Connection *c, const fc_http_request *rq) {
    char msg[128];
    snprintf(msg, sizeof msg, "request body larger than --max-body (%zu bytes)", s->max_body);
    fc_http_response rs = {0};
    fc_http_reply_error(&rs, 413, msg);
    return send_response(s, c, rq, &rs);
}

/* Appends a chunk of the body; past max_body the body is dropped and the
 * request marked, so memory stays bounded whatever the client sends. */
static void append_body(request_state *st, size_t max_body, const char *data, size_t n) {
    if (st->too_large) return;
    if (n > max_body - st->len) {
        st->too_large = 1;
        free(st->body);
        st->body = NULL;
        st->len = st->cap = 0;
        return;
    }
    if (st->len + n + 1 > st->cap) {
        size_t cap = st->cap ? st->cap : 4096;
        while (cap < st->len + n + 1) cap *= 2;
        char *grown = realloc(st->body, cap);
        if (!grown) {   /* treated as too large: the client gets 413 rather than a crash */
            st->too_large = 1;
            return;
        }
        st->body = grown;
        st->cap = cap;
    }
    memcpy(st->body + st->len, data, n);
    st->len += n;
    st->body[st->len] = '\0';
}

/* A declared Content-Length past the cap is refused before any body is read. */
static int declared_too_large(struct MHD_Connection *c, size_t max_body) {
    const char *v = header(c, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!v) return 0;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    return errno == ERANGE || (end != v && n > max_body);
}

/* The guard's record of a connection (NULL: unguarded, out of memory). */
static fc_conn *conn_of(struct MHD_Connection *c) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

/* A request on a reserve connection (conn_guard.h): a health probe is
 * answered at once, without its body (probes send none); anything else
 * gets 503 to try again. Either way the connection then closes, so the
 * reserve is free for the next probe. */
static enum MHD_Result answer_reserve(fc_http_server *s, struct MHD_Connection *c, const fc_http_request *rq) {
    fc_http_response rs = {0};
    if (s->is_probe && s->is_probe(rq->path)) {
        s->handler(s->ctx, rq, &rs);
    } else {
        char msg[192];
        snprintf(msg, sizeof msg, "the server has --max-connections (%u) connections open; this one is kept for "
                 "health probes: try again", s->max_connections);
        fc_http_reply_error(&rs, 503, msg);
        rs.retry_after = 1;
    }
    rs.close = 1;
    return send_response(s, c, rq, &rs);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls) {
    (void)version;
    fc_http_server *s = cls;
    request_state *st = *con_cls;
    if (!st) {   /* the first call: the headers are in */
        if (!(st = calloc(1, sizeof *st))) return MHD_NO;
        st->received = fc_now();
        *con_cls = st;
        fc_conn *conn = conn_of(c);
        if (conn) fc_conn_headers_in(s->guard, conn);
        if (conn && fc_conn_is_reserve(conn)) {
            fc_http_request rq = request_of(c, url, method, st);
            return answer_reserve(s, c, &rq);
        }
        if (declared_too_large(c, s->max_body)) {
            st->too_large = 1;
            fc_http_request rq = request_of(c, url, method, st);
            return too_large(s, c, &rq);
        }
        return MHD_YES;
    }
    if (*upload_size) {
        append_body(st, s->max_body, upload, *upload_size);
        *upload_size = 0;
        return MHD_YES;
    }
    fc_http_request rq = request_of(c, url, method, st);
    if (st->too_large) return too_large(s, c, &rq);
    fc_http_response rs = {0};
    s->handler(s->ctx, &rq, &rs);
    return send_response(s, c, &rq, &rs);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode code) {
    (void)code;
    fc_http_server *s = cls;
    fc_conn *conn = conn_of(c);
    if (conn) fc_conn_answered(s->guard, conn);   /* the next request's headers have --timeout again */
    request_state *st = *con_cls;
    if (!st) return;
    free(st->body);
    free(st);
    *con_cls = NULL;
}

/* Every connection is known to the guard from its accept to its close. */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode code) {
    fc_http_server *s = cls;
    if (code == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = info ? fc_conn_opened(s->guard, info->connect_fd) : NULL;
    } else if (*socket_context) {
        fc_conn_closed(s->guard, *socket_context);
        *socket_context = NULL;
    }
}

/* libmicrohttpd's unescaping of the path, except that %00 stays as it is:
 * decoded, a NUL would end the path there and the rest would be routed as
 * if absent (".../forecast%00x" served as ".../forecast"). Kept escaped,
 * such a path matches no endpoint and no model name. */
static int hex_value(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static size_t unescape_keep_nul(void *cls, struct MHD_Connection *c, char *s) {
    (void)cls, (void)c;
    char *out = s;
    for (const char *in = s; *in; ) {
        int hi = in[0] == '%' ? hex_value(in[1]) : -1, lo = hi >= 0 ? hex_value(in[2]) : -1;
        if (hi >= 0 && lo >= 0 && (hi | lo) != 0) {
            *out++ = (char)(hi * 16 + lo);
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

/* The address to bind: numeric or a name of this machine. */
static fc_status resolve(const char *host, unsigned port, struct sockaddr_storage *addr, int *ipv6) {
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE}, *res;
    char service[16];
    snprintf(service, sizeof service, "%u", port);
    int rc = getaddrinfo(host, service, &hints, &res);
    if (rc) return fc_error(FC_ERR_INVALID, "--host %s: %s", host, gai_strerror(rc));
    memcpy(addr, res->ai_addr, res->ai_addrlen);
    *ipv6 = res->ai_family == AF_INET6;
    freeaddrinfo(res);
    return FC_OK;
}

fc_status fc_http_start(const fc_http_options *o, fc_http_handler handler, fc_http_logger logger, void *ctx,
                        fc_http_server **out) {
    *out = NULL;
    if (o->port > 65535) return fc_error(FC_ERR_INVALID, "--port %u: a port is at most 65535", o->port);
    struct sockaddr_storage addr;
    int ipv6 = 0;
    FC_TRY(resolve(o->host, o->port, &addr, &ipv6));
    fc_http_server *s = fc_calloc(1, sizeof *s, "the HTTP server");
    if (!s) return FC_ERR_MEMORY;
    *s = (fc_http_server){NULL, handler, logger, ctx, o->max_body, o->port, o->max_connections,
                          o->is_probe, NULL};
    fc_status st = fc_conn_guard_start(o->max_connections, o->timeout_s, &s->guard);
    if (st != FC_OK) {
        free(s);
        return st;
    }
    unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC |
                     (ipv6 ? MHD_USE_IPv6 : 0);
    errno = 0;
    s->daemon = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, s,
                                 MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
                                 MHD_OPTION_CONNECTION_LIMIT, o->max_connections + FC_CONN_RESERVE,
                                 MHD_OPTION_CONNECTION_TIMEOUT, o->timeout_s,
                                 MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                 MHD_OPTION_NOTIFY_CONNECTION, on_connection, s,
                                 MHD_OPTION_UNESCAPE_CALLBACK, unescape_keep_nul, NULL,
                                 MHD_OPTION_END);
    if (!s->daemon) {
        int err = errno;
        fc_conn_guard_stop(s->guard);
        free(s);
        return fc_error(FC_ERR_IO, "cannot serve on %s port %u: %s", o->host, o->port,
                        err ? strerror(err) : "the HTTP library refused to start");
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    if (info) s->port = info->port;
    *out = s;
    return FC_OK;
}

unsigned fc_http_port(const fc_http_server *s) { return s->port; }

void fc_http_quiesce(fc_http_server *s) {
    MHD_socket fd = MHD_quiesce_daemon(s->daemon);
    if (fd != MHD_INVALID_SOCKET) close(fd);
}

unsigned fc_http_connections(const fc_http_server *s) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info ? info->num_connections : 0;
}

void fc_http_stop(fc_http_server *s) {
    if (!s) return;
    MHD_stop_daemon(s->daemon);   /* closes every connection: the guard's list is empty after it */
    fc_conn_guard_stop(s->guard);
    free(s);
}
