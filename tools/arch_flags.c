/* Architecture flags (see arch_flags.h). */
#include <string.h>

#include "arch_flags.h"
#include "core/error.h"

void fc_arch_specs(fc_arch_options *a, arg_spec *s, size_t room) {
    size_t n;
    const fc_arch_option *table = fc_arch_option_table(&n);
    FC_ASSERT(room > n);
    for (size_t i = 0; i < n; i++)
        s[i] = (arg_spec){table[i].name, table[i].is_size ? ARG_SIZE : ARG_STR, (char *)a + table[i].offset,
                          table[i].meta, table[i].help, 0, 0};
    memset(&s[n], 0, sizeof *s);
}
