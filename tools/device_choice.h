/* --device in every command that computes: the help texts, and the check
 * of commands without a GPU path. */
#ifndef FC_TOOLS_DEVICE_CHOICE_H
#define FC_TOOLS_DEVICE_CHOICE_H

#include "fcast.h"

/* The help line of --device, shared so every command says the same. */
#define DEVICE_FLAG_HELP FCAST_DEVICE_FORMS ": where the work runs (auto: GPU 0 when one is usable, else the CPU)"

/* --device in commands that have no GPU path (quant risk, portfolio,
 * backtest): auto and cpu mean the CPU (0); cuda is refused, naming
 * `command`, so a script that asks for a GPU learns it did not get one:
 * the exit code, after the message. */
#define DEVICE_CPU_ONLY_HELP "auto | cpu: this command runs on the CPU only in this version (cuda is refused)"
int device_cpu_only(const char *command, const char *device);

/* Until every command runs through fcast.h: the old opener, now the
 * library's (fc_api_backend_open). */
#include "backend/backend.h"
fc_status fc_api_backend_open(const char *device, size_t threads, int verbose, fc_backend **out);
static inline fc_status device_backend_open(const char *device, size_t threads, int quiet, fc_backend **out) {
    return fc_api_backend_open(device, threads, !quiet, out);
}

#endif
