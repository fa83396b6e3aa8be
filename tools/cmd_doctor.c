/* fcast doctor: what a user runs first on a new machine, through the
 * library (fcast_doctor_run): the CPU, the GPUs and the conclusion, as
 * text, or one JSON object with --json. */
#include <stdio.h>

#include "args.h"
#include "cli.h"

static const char *SUMMARY =
    "Reports this machine as fcast sees it: CPU (model, AVX-512, AVX512-BF16, AMX, cores, memory,\n"
    "measured matrix-product peak), GPUs (through NVML; through the CUDA backend, host<->device\n"
    "bandwidth and matrix-product peak), and the conclusion: device, precision and the largest\n"
    "--windows-batch-size of the default N-HiTS (h=48, input 96) within --memory-limit.";

int cmd_doctor(int argc, char **argv, int first) {
    fcast_doctor_request a = {0};
    int json = 0;
    arg_spec specs[] = {
        {"json", ARG_FLAG, &json, NULL, "one JSON object instead of text", 0, 0},
        {"memory-limit", ARG_STR, &a.memory_limit, "SIZE", "budget for the batch conclusion, e.g. 2GiB (the memory available now)", 0, 0},
        {"data", ARG_IN, &a.data, "FILE", "plan on this CSV (a small synthetic series built in memory)", 0, 0},
        {"threads", ARG_SIZE, &a.threads, "N", "CPU threads (0 = all cores)", 0, 0},
        {"quick", ARG_FLAG, &a.quick, NULL, "skip the timed peaks and GPU copy bandwidths", 0, 0},
        {NULL, 0, NULL, NULL, NULL, 0, 0},
    };
    int rc = args_parse("doctor", SUMMARY, specs, argc, argv, first);
    if (rc) return args_exit(rc);
    fcast_doctor *d = NULL;
    if (fcast_doctor_run(&a, &d) != FC_OK) return cli_fail("doctor");
    fputs(json ? fcast_doctor_json(d) : fcast_doctor_text(d), stdout);
    fcast_doctor_free(d);
    return CLI_EXIT_OK;
}
