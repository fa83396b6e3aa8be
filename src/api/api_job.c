/* fcast_job_rank, fcast_job_size: the process's place in a data-parallel
 * job started by mpirun (dist/dist.h), for a caller that prints or writes
 * only on rank 0. */
#include "api/api.h"
#include "dist/dist.h"

int fcast_job_rank(void) {
    fc_dist_start();   /* a failure to join is reported by the training call */
    return fc_dist_rank();
}

int fcast_job_size(void) {
    fc_dist_start();
    return fc_dist_size();
}
