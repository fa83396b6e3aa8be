/* The PyTorch side of fcast_bench_train: python/bench_torch.py trains the
 * same architecture in PyTorch eager and prints its figures as a JSON
 * object on its last line. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "api/api_bench.h"

/* Reads the JSON object on the last line of the script's stdout. */
static int parse_torch_line(const char *line, void *dest) {
    fcast_bench_run *row = dest;
    json_error_t err;
    json_t *j = json_loads(line, 0, &err);
    json_t *v = j ? json_object_get(j, "windows_per_second") : NULL;
    json_t *dev = j ? json_object_get(j, "device") : NULL;
    int ok = v && json_is_number(v);
    if (ok) row->torch_windows_per_second = json_number_value(v);
    snprintf(row->torch_device, sizeof row->torch_device, "%s", json_is_string(dev) ? json_string_value(dev) : "cpu");
    json_decref(j);
    return ok;
}

/* The script's device and threads: on a GPU the GPU fcast runs on, with
 * PyTorch's own CPU threads unless threads was given (fcast's host work
 * uses all cores there too); on the CPU fcast's thread count. */
static int torch_device_args(const fcast_bench_request *a, const fcast_bench_report *d, char *buf, size_t cap) {
    if (!d->gpu) return snprintf(buf, cap, "--device cpu --threads %d", d->threads);
    if (a->threads) return snprintf(buf, cap, "--device %s --threads %zu", d->device, a->threads);
    return snprintf(buf, cap, "--device %s", d->device);
}

void fc_bench_torch(const fcast_bench_request *a, const fcast_bench_report *d, fcast_bench_run *row) {
    char cmd[1024], dev[64];
    /* PyTorch's oneDNN dies on the same unusable AMX; pass our cap on */
    const char *env = !d->gpu && d->amx_capped ? "ONEDNN_MAX_CPU_ISA=AVX512_CORE_BF16 " : "";
    torch_device_args(a, d, dev, sizeof dev);
    int len = snprintf(cmd, sizeof cmd, "%s'%s' '%s' %s --steps %zu --warmup %zu --batch %zu --precision %s",
                       env, a->python, a->torch_script, dev, a->steps, a->warmup ? a->warmup : 1,
                       a->windows_batch_size, row->precision);
    if (len < 0 || (size_t)len >= sizeof cmd) {
        if (a->verbose)
            fprintf(stderr, "fcast bench: the PyTorch command line is too long; shorten --python or --torch-script\n");
        return;
    }
    row->torch_ok = fc_bench_run_script(cmd, a->torch_script, row->precision, a->verbose, parse_torch_line, row);
}
