/* The processes of a data-parallel job (issue 17, docs/distributed.md):
 * MPI's ranks when mpirun started this process, else one process alone.
 * MPI is initialised on first use and only when a launcher says this
 * process is part of a job (its environment), so a plain run never touches
 * the MPI runtime; it is finalised at exit. Built without MPI (FC_MPI=OFF,
 * or none found), a process started by mpirun refuses to train rather than
 * train alone N times over. */
#ifndef FC_DIST_DIST_H
#define FC_DIST_DIST_H

#include <stddef.h>
#include "core/error.h"

/* Joins the job if there is one: FC_OK alone or in a job; an error when a
 * launcher started this process but MPI is not built in or fails. */
fc_status fc_dist_start(void);
/* This process's rank and the job's size (0 and 1 alone, or before start). */
int fc_dist_rank(void);
int fc_dist_size(void);
/* x[0..n) summed over the ranks, in place, then divided by the size: the
 * mean gradient. In rank order when `fixed_order` (gathered to rank 0,
 * summed there rank by rank, broadcast), so the bits do not depend on
 * MPI's reduction algorithm. Alone: nothing. The reductions of a step
 * (this, the loss, the stop flag) are watched: a rank that stops
 * answering ends the job after FCAST_MPI_TIMEOUT seconds (dist_watch.h). */
fc_status fc_dist_mean_floats(float *x, size_t n, int fixed_order);
/* The mean of a double over the ranks (the step's loss). */
fc_status fc_dist_mean_double(double *x);
/* 1 when flag is non-zero on any rank (a stop asked for on one rank stops
 * them all after the same step); on a failed collective, 1. Alone: flag. */
int fc_dist_any(int flag);
/* The items [*lo, *hi) of n that rank `rank` of `ranks` takes when the
 * work is shared in whole blocks of `block` items (the last may be short),
 * in contiguous runs from rank 0: a rank then runs exactly the blocks one
 * process would (sharded prediction keeps the batches of a single run, so
 * its bits). Ranks past the blocks get none. */
void fc_dist_part(size_t n, size_t block, int rank, int ranks, size_t *lo, size_t *hi);
/* Every rank's share of x (`bytes`, a multiple of 4) to every rank: each
 * value is written by exactly one rank and is all-zero bits on every
 * other, so a bitwise OR over the ranks puts every value in place exactly
 * (no float sum: -0 and NaN pass unchanged). in_step: every rank comes
 * to it after the same work (a step's validation, a forecast's chunks),
 * so a long wait is a rank that stopped answering (dist_watch.h); 0 when
 * the work before differs (a cross-validation's trainings). Alone:
 * nothing. */
fc_status fc_dist_merge(void *x, size_t bytes, int in_step);
/* x[0..n) summed over the ranks in rank order, alike on every rank: each
 * rank's values are merged into its slot of `slots` (ranks x n, the
 * caller's, so a step allocates nothing) and added from rank 0 up, so the
 * bits depend on the values alone, never on MPI's algorithm. in_step as
 * for fc_dist_merge. Alone: nothing. */
fc_status fc_dist_sum_ordered(double *x, size_t n, double *slots, int in_step);
/* x (`bytes`) sent from rank 0 to every rank. Alone: nothing. */
fc_status fc_dist_broadcast(void *x, size_t bytes);
/* This process's place among the job's processes on its machine (the
 * launcher's local rank: Open MPI, MPICH/Hydra or Slurm), -1 when no
 * launcher started it: the GPU a rank takes when its device names none
 * (one rank per GPU). Read from the environment, without MPI. */
int fc_dist_local_rank(void);
/* Ends every process of the job after a failure on this one (said on
 * stderr with the rank), so no rank waits for it forever. Alone: nothing. */
void fc_dist_abort(int code);

#endif
