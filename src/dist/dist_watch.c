/* The watchdog over a step's collectives (see dist_watch.h). The thread
 * wakes every second and reads two atomics the collectives set: no lock
 * is taken on the step's path. It counts its own wakes inside one
 * collective rather than reading a clock, so a job stopped as a whole
 * (Ctrl-Z, a scheduler's suspend) is not taken for a hang when it goes on:
 * a stopped process's threads do not wake. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "dist/dist_watch.h"

#define FC_DIST_DEFAULT_LIMIT 600.0

static _Atomic long long g_entered;           /* the number of the current watched collective; 0: none */
static _Atomic(const char *) g_what;
static int g_rank;
static double g_limit;

double fc_dist_watch_limit(void) {
    const char *v = getenv("FCAST_MPI_TIMEOUT");
    char *end = NULL;
    double s = v && *v ? strtod(v, &end) : FC_DIST_DEFAULT_LIMIT;
    if (v && *v && (*end || !(s >= 0))) {
        fprintf(stderr, "fcast: FCAST_MPI_TIMEOUT='%s' is not a number of seconds: %.0f s used\n", v,
                FC_DIST_DEFAULT_LIMIT);
        return FC_DIST_DEFAULT_LIMIT;
    }
    return s;
}

static void *watch(void *arg) {
    (void)arg;
    long long seen = 0, seconds = 0;
    for (;;) {
        sleep(1);
        long long now = atomic_load(&g_entered);
        seconds = now && now == seen ? seconds + 1 : 0;   /* the same collective since the last wake */
        seen = now;
        if (!now || (double)seconds < g_limit) continue;
        fprintf(stderr, "fcast: rank %d waited %.0f s for the other ranks in the %s: one of them stopped "
                "answering; stopping the job (FCAST_MPI_TIMEOUT sets the limit)\n", g_rank, g_limit,
                atomic_load(&g_what));
        _exit(1);   /* the launcher then ends every rank; MPI_Abort is not callable from this thread */
    }
    return NULL;
}

void fc_dist_watch_start(int rank) {
    static int started;
    if (started || !(g_limit = fc_dist_watch_limit())) return;
    g_rank = rank;
    pthread_t t;
    if (pthread_create(&t, NULL, watch, NULL) == 0) pthread_detach(t), started = 1;
}

void fc_dist_watch_enter(const char *what) {
    static long long count;   /* collectives are entered by one thread */
    atomic_store(&g_what, what);
    atomic_store(&g_entered, ++count);
}

void fc_dist_watch_leave(void) { atomic_store(&g_entered, 0); }
