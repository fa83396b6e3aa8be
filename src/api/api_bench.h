/* What the benchmarks share: the precisions list and the kernel names
 * (api_bench_train.c), fcast_bench_train's PyTorch side
 * (api_bench_torch.c) and fcast_bench_fit's neuralforecast side
 * (api_bench_nf.c). */
#ifndef FC_API_BENCH_H
#define FC_API_BENCH_H

#include "fcast.h"
#include "backend/backend.h"

/* "fp32,bf16" -> precisions, at most FCAST_BENCH_MAX_RUNS, each once;
 * errors name the list. */
fc_status fc_bench_parse_precisions(const char *list, fc_precision *out, size_t *n);
/* Which kernels run precision p's matrix products: cuBLASLt on a GPU; on
 * the CPU oneDNN, or fcast's AMX or AVX512-BF16 kernels for bf16. */
const char *fc_bench_kernel_name(int gpu, int bf16_on_fcast_amx, fc_precision p);

/* Runs cmd through the shell (echoed on stderr when verbose) and hands the
 * last line of its stdout that starts with '{' to parse(line, row); 1 when
 * the command exited 0 and parse accepted the line, else 0, said on stderr
 * when verbose with the script and the precision. */
int fc_bench_run_script(const char *cmd, const char *script, const char *precision, int verbose,
                        int (*parse)(const char *line, void *row), void *row);
/* Runs r->torch_script with r->python for row's precision on the report's
 * device, threads and batch; fills row's torch fields (torch_ok 0 when it
 * failed, said on stderr when verbose). */
void fc_bench_torch(const fcast_bench_request *r, const fcast_bench_report *rep, fcast_bench_run *row);
/* Runs r->nf_script with r->python for row's precision on configuration
 * c's settings and the report's device and threads; fills row's nf fields
 * (nf_ok 0 when it failed, said on stderr when verbose). */
void fc_bench_nf_fit(const fcast_config *c, const fcast_bench_fit_request *r, const fcast_bench_fit_report *rep,
                     fcast_bench_fit_run *row);

#endif
