/* The deadline on request headers and the health reserve (conn_guard.h):
 * the open connections in a list under one mutex, and a watch thread that
 * sleeps until the earliest deadline and shuts down the sockets past it. */
#include "conn_guard.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "core/error.h"
#include "core/clock.h"

struct fc_conn {
    int fd;
    int reserve;
    double deadline;            /* fc_now() by which its headers must be in; 0: none */
    fc_conn *prev, *next;
};

struct fc_conn_guard {
    pthread_mutex_t lock;
    pthread_cond_t wake;        /* a nearer deadline, or stop */
    pthread_t watch;
    unsigned limit, ordinary;   /* ordinary connections open (reserve ones aside) */
    double timeout_s;
    double until;               /* the deadline the watch sleeps until; 0: none (it waits to be woken) */
    fc_conn *head;
    int stopping;
};

static struct timespec timespec_of(double t) {
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) ts.tv_sec++, ts.tv_nsec -= 1000000000L;
    return ts;
}

/* Shuts down every socket past its deadline; returns the earliest deadline
 * still to come (0: none). shutdown, not close: the descriptor stays
 * libmicrohttpd's, and its thread sees the end of the stream and closes
 * the connection as if the client had. Under the lock: a connection is in
 * the list until fc_conn_closed, which comes before its socket is closed,
 * so the descriptor cannot be another connection's by then. */
static double cut_late(fc_conn_guard *g, double now) {
    double next = 0;
    for (fc_conn *c = g->head; c; c = c->next) {
        if (!c->deadline) continue;
        if (c->deadline <= now) {
            shutdown(c->fd, SHUT_RDWR);
            c->deadline = 0;
        } else if (!next || c->deadline < next) {
            next = c->deadline;
        }
    }
    return next;
}

static void *watch(void *arg) {
    fc_conn_guard *g = arg;
    pthread_mutex_lock(&g->lock);
    while (!g->stopping) {
        double next = cut_late(g, fc_now());
        g->until = next;
        if (!next) {
            pthread_cond_wait(&g->wake, &g->lock);
            continue;
        }
        struct timespec until = timespec_of(next);
        pthread_cond_timedwait(&g->wake, &g->lock, &until);
    }
    pthread_mutex_unlock(&g->lock);
    return NULL;
}

/* Under the lock: a deadline `after` seconds from now; the watch is woken
 * only when it is nearer than the one it sleeps until (every answer sets
 * one: waking the watch each time made it scan every connection). */
static void set_deadline(fc_conn_guard *g, fc_conn *c, double after) {
    c->deadline = after > 0 ? fc_now() + after : 0;
    if (c->deadline && (!g->until || c->deadline < g->until)) {
        g->until = c->deadline;
        pthread_cond_signal(&g->wake);
    }
}

fc_status fc_conn_guard_start(unsigned limit, double timeout_s, fc_conn_guard **out) {
    *out = NULL;
    fc_conn_guard *g = fc_calloc(1, sizeof *g, "the connection guard");
    if (!g) return FC_ERR_MEMORY;
    g->limit = limit;
    g->timeout_s = timeout_s;
    pthread_mutex_init(&g->lock, NULL);
    pthread_condattr_t ca;   /* fc_now's clock, so a change of the wall clock moves no deadline */
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g->wake, &ca);
    pthread_condattr_destroy(&ca);
    if (pthread_create(&g->watch, NULL, watch, g) != 0) {
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        free(g);
        return fc_error(FC_ERR_MEMORY, "cannot start the connection guard's thread");
    }
    *out = g;
    return FC_OK;
}

void fc_conn_guard_stop(fc_conn_guard *g) {
    if (!g) return;
    pthread_mutex_lock(&g->lock);
    g->stopping = 1;
    pthread_cond_signal(&g->wake);
    pthread_mutex_unlock(&g->lock);
    pthread_join(g->watch, NULL);
    while (g->head) {   /* none when the daemon stopped first; freed all the same */
        fc_conn *c = g->head;
        g->head = c->next;
        free(c);
    }
    pthread_cond_destroy(&g->wake);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

fc_conn *fc_conn_opened(fc_conn_guard *g, int fd) {
    fc_conn *c = calloc(1, sizeof *c);
    if (!c) {   /* unguarded it could trickle forever: refused instead */
        shutdown(fd, SHUT_RDWR);
        return NULL;
    }
    c->fd = fd;
    pthread_mutex_lock(&g->lock);
    c->reserve = g->ordinary >= g->limit;
    if (!c->reserve) g->ordinary++;
    c->next = g->head;
    if (g->head) g->head->prev = c;
    g->head = c;
    int shorter = g->timeout_s > 0 && g->timeout_s < FC_CONN_RESERVE_HEADERS_S;
    set_deadline(g, c, !c->reserve ? g->timeout_s : shorter ? g->timeout_s : FC_CONN_RESERVE_HEADERS_S);
    pthread_mutex_unlock(&g->lock);
    return c;
}

void fc_conn_headers_in(fc_conn_guard *g, fc_conn *c) {
    pthread_mutex_lock(&g->lock);
    c->deadline = 0;
    pthread_mutex_unlock(&g->lock);
}

void fc_conn_answered(fc_conn_guard *g, fc_conn *c) {
    pthread_mutex_lock(&g->lock);
    set_deadline(g, c, g->timeout_s);
    pthread_mutex_unlock(&g->lock);
}

int fc_conn_is_reserve(const fc_conn *c) { return c->reserve; }

void fc_conn_closed(fc_conn_guard *g, fc_conn *c) {
    pthread_mutex_lock(&g->lock);
    if (c->prev) c->prev->next = c->next;
    else g->head = c->next;
    if (c->next) c->next->prev = c->prev;
    if (!c->reserve) g->ordinary--;
    pthread_mutex_unlock(&g->lock);
    free(c);
}
