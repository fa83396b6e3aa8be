/* The HTTP layer's guard against slow clients (issue 32): a deadline on
 * every request's headers, and a reserve of connections for health probes.
 *
 * libmicrohttpd's connection timeout (--timeout) counts idle time and
 * starts again at every byte received, so a client trickling its headers a
 * byte a second held its connection for as long as it liked; with
 * --max-connections such clients no other connection was accepted, health
 * probes included (measured: --timeout 3 --max-connections 8, 8 clients
 * trickling a byte a second: every probe timed out until they stopped). So:
 *
 * - A request's headers must be in within the timeout of the connection's
 *   accept (for a later request on a kept-alive connection: of the
 *   previous answer). Past it a watch thread shuts the socket down, which
 *   libmicrohttpd's connection thread reads as the client's close. The
 *   body and the handler are not bounded by it: a large body on a slow
 *   link may take long (the idle timeout still applies), and a forecast has
 *   --request-timeout.
 * - The daemon accepts FC_CONN_RESERVE connections beyond the limit. A
 *   connection accepted while `limit` are open is a reserve one: the HTTP
 *   layer answers it only for health probes, then closes it, and its
 *   headers must be in within FC_CONN_RESERVE_HEADERS_S. So clients
 *   holding every ordinary connection do not stop a probe being answered.
 *
 * Every call is thread-safe: libmicrohttpd calls them from its listening
 * thread and from the connections' threads. */
#ifndef FC_SERVE_CONN_GUARD_H
#define FC_SERVE_CONN_GUARD_H

#include "fcast/status.h"

/* Connections beyond --max-connections kept for health probes. */
#define FC_CONN_RESERVE 4
/* Seconds a reserve connection has for its headers: a probe sends them at
 * once, and a client trickling on a reserve connection must not hold it
 * for the whole --timeout. */
#define FC_CONN_RESERVE_HEADERS_S 1.0

typedef struct fc_conn_guard fc_conn_guard;
typedef struct fc_conn fc_conn;

/* limit: the ordinary connections (--max-connections); timeout_s: the
 * headers' deadline (0: none, as libmicrohttpd's 0 is no timeout). Starts
 * the watch thread. */
fc_status fc_conn_guard_start(unsigned limit, double timeout_s, fc_conn_guard **out);
/* Stops the watch thread and frees; every connection must be closed
 * (libmicrohttpd's daemon stopped). NULL: nothing. */
void fc_conn_guard_stop(fc_conn_guard *g);

/* A connection accepted on socket fd, with its headers' deadline running;
 * NULL when out of memory (the socket is then shut down: refused). */
fc_conn *fc_conn_opened(fc_conn_guard *g, int fd);
/* Its request's headers are in: no deadline until the answer is sent. */
void fc_conn_headers_in(fc_conn_guard *g, fc_conn *c);
/* An answer was sent: the next request's headers have the timeout again. */
void fc_conn_answered(fc_conn_guard *g, fc_conn *c);
/* Whether c was accepted beyond the limit (health probes only). */
int fc_conn_is_reserve(const fc_conn *c);
/* The connection is closed (before its socket is): forgotten and freed. */
void fc_conn_closed(fc_conn_guard *g, fc_conn *c);

#endif
