/* Architecture flags (see arch_flags.h). */
#include <stdio.h>
#include <string.h>

#include "arch_flags.h"
#include "fcast.h"

void arch_flags_init(arch_flags *a) {
    for (size_t i = 0; i < ARCH_FLAGS_MAX; i++) {
        a->counts[i] = ARG_SIZE_UNSET;
        a->texts[i] = NULL;
    }
}

int arch_flags_specs(arch_flags *a, arg_spec *specs, size_t room) {
    fcast_key_info k;
    size_t n = 0;
    for (; fcast_config_arch_key(n, &k); n++) {
        if (n + 1 >= room || n >= ARCH_FLAGS_MAX) {
            fprintf(stderr, "fcast: internal error: no room for the architecture flags (%zu)\n", n);
            return -1;
        }
        void *dest = k.is_count ? (void *)&a->counts[n] : (void *)&a->texts[n];
        specs[n] = (arg_spec){k.key, k.is_count ? ARG_SIZE : ARG_STR, dest, k.metavar, k.help, 0, 0};
    }
    memset(&specs[n], 0, sizeof *specs);
    return 0;
}
