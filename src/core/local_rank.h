/* This process's place among the processes a launcher started on its
 * machine: a process-wide fact of the environment, read without MPI, so
 * that the backend factory (a GPU per local rank) needs nothing of dist/. */
#ifndef FC_CORE_LOCAL_RANK_H
#define FC_CORE_LOCAL_RANK_H

/* The launcher's local rank (Open MPI, MPICH/Hydra or Slurm), -1 when no
 * launcher started this process. */
int fc_local_rank(void);

#endif
