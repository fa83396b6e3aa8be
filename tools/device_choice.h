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

#endif
