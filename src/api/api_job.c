/* fcast_job_rank, fcast_job_size: the process's place in a data-parallel
 * job started by mpirun (dist/dist.h), for a caller that prints or writes
 * only on rank 0; and a failure that ends the whole job. */
#include <stdio.h>

#include "api/api.h"
#include "core/error.h"
#include "dist/dist.h"

int fcast_job_rank(void) {
    fc_dist_start();   /* a failure to join is reported by the training call */
    return fc_dist_rank();
}

int fcast_job_size(void) {
    fc_dist_start();
    return fc_dist_size();
}

fc_status fc_api_job_failed(fc_status st, int interrupted_too) {
    int fails = st != FC_OK && (interrupted_too || st != FC_ERR_INTERRUPTED);
    if (!fails || fc_dist_size() < 2) return st;
    fprintf(stderr, "fcast: %s\n", fc_last_error());
    fc_dist_abort(fcast_exit_code(st));   /* mpirun exits with it: a scheduler reads the kind of failure */
    return st;
}
