/* --device in every command that computes: the backend it asks for, and the
 * one line saying which device runs (and why not a GPU, under auto). */
#ifndef FC_TOOLS_DEVICE_CHOICE_H
#define FC_TOOLS_DEVICE_CHOICE_H

#include <stddef.h>
#include "backend/backend.h"

/* The help line of --device, shared so every command says the same. */
#define DEVICE_FLAG_HELP FC_DEVICE_FORMS ": where the work runs (auto: GPU 0 when one is usable, else the CPU)"

/* fc_backend_create for `device` with `threads` CPU threads; the choice is
 * printed to stderr unless quiet. Errors as fc_backend_create's. */
fc_status device_backend_open(const char *device, size_t threads, int quiet, fc_backend **out);

/* --device in commands that have no GPU path (quant risk, portfolio,
 * backtest): auto and cpu mean the CPU; cuda is refused, FC_ERR_INVALID,
 * naming `command`, so a script that asks for a GPU learns it did not get
 * one. */
#define DEVICE_CPU_ONLY_HELP "auto | cpu: this command runs on the CPU only in this version (cuda is refused)"
fc_status device_cpu_only(const char *command, const char *device);

#endif
