/* fcast_bench_train's PyTorch side (api_bench_torch.c), for the run of
 * api_bench_train.c. */
#ifndef FC_API_BENCH_H
#define FC_API_BENCH_H

#include "fcast.h"

/* Runs r->torch_script with r->python for row's precision on the report's
 * device, threads and batch; fills row's torch fields (torch_ok 0 when it
 * failed, said on stderr when verbose). */
void fc_bench_torch(const fcast_bench_request *r, const fcast_bench_report *rep, fcast_bench_run *row);

#endif
