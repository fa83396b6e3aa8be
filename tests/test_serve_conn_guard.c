/* The HTTP layer's guard against slow clients (serve/conn_guard.h), on
 * socket pairs standing for accepted connections: a connection whose
 * headers are not in by its deadline is shut down (its peer reads the end
 * of the stream) about the timeout after its accept, whatever it sent;
 * headers in stop the clock, an answer starts it again; connections past
 * the limit are reserve ones, with the short deadline, and a closed
 * ordinary one frees its place. About 3 s. */
#include "check.h"

#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "conn_guard.h"
#include "core/clock.h"

typedef struct {
    int ours, peer;   /* ours stands for the server's accepted socket */
} pair;

static pair open_pair(void) {
    int fds[2] = {-1, -1};
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    return (pair){fds[0], fds[1]};
}

static void close_pair(pair p) {
    close(p.ours);
    close(p.peer);
}

/* Seconds until the peer reads the end of the stream, or -1 when it has
 * not within `within` seconds. */
static double seconds_to_eof(int peer, double within) {
    double t0 = fc_now();
    struct pollfd pf = {peer, POLLIN, 0};
    while (fc_now() - t0 < within) {
        int left_ms = (int)((within - (fc_now() - t0)) * 1000) + 1;
        if (poll(&pf, 1, left_ms) <= 0) continue;
        char c;
        if (read(peer, &c, 1) == 0) return fc_now() - t0;
    }
    return -1;
}

/* Bytes trickled meanwhile do not move the deadline (libmicrohttpd's
 * timeout would start again at each). */
static void test_cut_at_deadline(void) {
    fc_conn_guard *g;
    CHECK(fc_conn_guard_start(4, 0.4, &g) == FC_OK);
    pair p = open_pair();
    double t0 = fc_now();
    fc_conn *c = fc_conn_opened(g, p.ours);
    CHECK(c && !fc_conn_is_reserve(c));
    /* a byte every 0.1 s for 1.5 s, well past the 0.4 s deadline: a deadline
     * that restarted at each byte would never come while the trickle lasts */
    double cut = -1;
    for (int i = 0; i < 15 && cut < 0; i++) {
        if (send(p.peer, "G", 1, MSG_NOSIGNAL) != 1) break;   /* shut down: the peer's end refuses */
        cut = seconds_to_eof(p.peer, 0.1);
    }
    double after = fc_now() - t0;
    CHECK_MSG(cut >= 0, "the connection was not shut down while the trickle went on (%.3f s)", after);
    CHECK_MSG(after >= 0.35 && after <= 1.4, "shut down %.3f s after the accept, expected about 0.4", after);
    fc_conn_closed(g, c);
    close_pair(p);
    fc_conn_guard_stop(g);
}

/* Headers in: no deadline until the answer; then the timeout again. */
static void test_headers_then_answer(void) {
    fc_conn_guard *g;
    CHECK(fc_conn_guard_start(4, 0.3, &g) == FC_OK);
    pair p = open_pair();
    fc_conn *c = fc_conn_opened(g, p.ours);
    fc_conn_headers_in(g, c);
    CHECK_MSG(seconds_to_eof(p.peer, 0.7) < 0, "a connection whose headers were in was shut down");
    double t0 = fc_now();
    fc_conn_answered(g, c);
    double dt = seconds_to_eof(p.peer, 2.0), after = fc_now() - t0;
    CHECK_MSG(dt >= 0 && after >= 0.25 && after <= 0.8,
              "after an answer: shut down %.3f s later (%.3f), expected about 0.3", after, dt);
    fc_conn_closed(g, c);
    close_pair(p);
    fc_conn_guard_stop(g);
}

/* Past the limit: reserve connections, cut after FC_CONN_RESERVE_HEADERS_S
 * when the timeout is longer; a closed ordinary one frees its place. */
static void test_reserve(void) {
    fc_conn_guard *g;
    CHECK(fc_conn_guard_start(2, 30, &g) == FC_OK);
    pair a = open_pair(), b = open_pair(), r = open_pair();
    fc_conn *ca = fc_conn_opened(g, a.ours), *cb = fc_conn_opened(g, b.ours);
    CHECK(!fc_conn_is_reserve(ca) && !fc_conn_is_reserve(cb));
    double t0 = fc_now();
    fc_conn *cr = fc_conn_opened(g, r.ours);
    CHECK(fc_conn_is_reserve(cr));
    double dt = seconds_to_eof(r.peer, 3.0), after = fc_now() - t0;
    CHECK_MSG(dt >= 0 && after >= FC_CONN_RESERVE_HEADERS_S - 0.1 && after <= FC_CONN_RESERVE_HEADERS_S + 0.5,
              "a reserve connection shut down %.3f s after its accept, expected %.1f", after,
              FC_CONN_RESERVE_HEADERS_S);
    CHECK_MSG(seconds_to_eof(a.peer, 0.01) < 0, "an ordinary connection was cut with the reserve's deadline");
    fc_conn_closed(g, cr);
    fc_conn_closed(g, ca);   /* an ordinary place free again: the next is ordinary */
    pair d = open_pair();
    fc_conn *cd = fc_conn_opened(g, d.ours);
    CHECK(!fc_conn_is_reserve(cd));
    pair e = open_pair();
    fc_conn *ce = fc_conn_opened(g, e.ours);
    CHECK(fc_conn_is_reserve(ce));
    fc_conn_closed(g, cb);
    fc_conn_closed(g, cd);
    fc_conn_closed(g, ce);
    close_pair(a), close_pair(b), close_pair(r), close_pair(d), close_pair(e);
    fc_conn_guard_stop(g);
}

/* Timeout 0 (libmicrohttpd's "none"): ordinary connections have no
 * deadline, and the guard stops with connections still listed. */
static void test_no_timeout(void) {
    fc_conn_guard *g;
    CHECK(fc_conn_guard_start(1, 0, &g) == FC_OK);
    pair p = open_pair();
    fc_conn *c = fc_conn_opened(g, p.ours);
    CHECK(c != NULL);
    CHECK_MSG(seconds_to_eof(p.peer, 0.5) < 0, "shut down without a timeout");
    fc_conn_guard_stop(g);   /* frees c */
    close_pair(p);
}

int main(void) {
    double t0 = fc_now();
    test_cut_at_deadline();
    test_headers_then_answer();
    test_reserve();
    test_no_timeout();
    fprintf(stderr, "%.3f s\n", fc_now() - t0);
    return CHECK_DONE();
}
