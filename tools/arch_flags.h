/* The architecture flags of the commands that build a model (train, plan,
 * bench, cv, tune, ensemble): the library's option table
 * (models/arch_options.h) as flag specs. */
#ifndef FC_TOOLS_ARCH_FLAGS_H
#define FC_TOOLS_ARCH_FLAGS_H

#include "args.h"
#include "models/arch_options.h"

_Static_assert(ARG_SIZE_UNSET == FC_ARCH_UNSET, "an unset size flag is an unset architecture option");

/* Appends a spec per option of the table to `specs` and a zeroed one after
 * them (room for the table's count plus one). */
void fc_arch_specs(fc_arch_options *a, arg_spec *specs, size_t room);

#endif
