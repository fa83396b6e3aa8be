/* A watchdog over the collectives of a training step (dist.h). A rank
 * that dies ends the job through the launcher (mpirun kills the rest), but
 * a rank that stops answering while alive (stopped, stuck on a device or a
 * file system) would leave the others waiting in MPI forever: MPI has no
 * timeout on a collective. So a thread of each rank watches the time spent
 * in one, and past the limit says so and ends the process, which ends the
 * job. Only collectives that every rank reaches after the same work are
 * watched (a step's reductions), not those that wait for unequal work (a
 * cross-validation's trainings). */
#ifndef FC_DIST_DIST_WATCH_H
#define FC_DIST_DIST_WATCH_H

/* The limit in seconds: FCAST_MPI_TIMEOUT (0: no watchdog), else 600. */
double fc_dist_watch_limit(void);
/* Starts the watchdog of rank `rank` once, when the limit is not 0. */
void fc_dist_watch_start(int rank);
/* A watched collective, `what` (a static string), begins or ends. */
void fc_dist_watch_enter(const char *what);
void fc_dist_watch_leave(void);

#endif
