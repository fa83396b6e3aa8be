/* The architecture flags of the commands that build a model (train, plan,
 * bench, cv, tune, ensemble): the library's architecture keys
 * (fcast_config_arch_key) as flag specs, their values kept here. */
#ifndef FC_TOOLS_ARCH_FLAGS_H
#define FC_TOOLS_ARCH_FLAGS_H

#include "args.h"

#define ARCH_FLAGS_MAX 64

/* A value per key, unset until given: ARG_SIZE_UNSET for a count, NULL
 * for text (so --print-config writes them as comments and only the ones
 * given become keys of the configuration). */
typedef struct {
    size_t counts[ARCH_FLAGS_MAX];
    const char *texts[ARCH_FLAGS_MAX];
} arch_flags;

void arch_flags_init(arch_flags *a);

/* Appends a spec per key to `specs` and a zeroed one after them; room is
 * what the table has left. Returns 0, or -1 (printed) when they do not
 * fit: a table too small is a bug of the command. */
int arch_flags_specs(arch_flags *a, arg_spec *specs, size_t room);

#endif
