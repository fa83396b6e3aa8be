/* The library's messages in the library's words. The engine's checks name
 * an option by its flag ("--lr must be a finite number > 0", "fewer than
 * --input-size 24"); through the API the same option is a configuration
 * key, the flag's name without its dashes ("lr", "input-size",
 * fcast_config_set). Rewriting the message once, where a call returns,
 * keeps one check and one message per option for both. The fcast CLI,
 * itself a caller of the API, keeps the flags (FCAST_NAMES_FLAGS). */
#include <ctype.h>
#include <string.h>

#include "api/api.h"
#include "core/error.h"

/* "--" starts a flag when it follows a space, a quote or a bracket (not a
 * word: "x--y" stays) and a lowercase letter follows it. */
static int flag_at(const char *s, size_t i) {
    return s[i] == '-' && s[i + 1] == '-' && islower((unsigned char)s[i + 2]) &&
           (i == 0 || strchr(" ('\"[,", s[i - 1]));
}

static fcast_option_names option_names = FCAST_NAMES_KEYS;

void fcast_set_option_names(fcast_option_names names) { option_names = names; }

int fc_api_names_flags(void) { return option_names == FCAST_NAMES_FLAGS; }

fc_status fc_api_words(fc_status st) {
    if (st == FC_OK || option_names == FCAST_NAMES_FLAGS) return st;
    const char *msg = fc_last_error();
    char out[FC_ERROR_CAP];
    size_t o = 0;
    for (size_t i = 0; msg[i] && o + 1 < sizeof out; i++) {
        if (flag_at(msg, i)) i += 2;
        out[o++] = msg[i];
    }
    out[o] = '\0';
    return fc_error(st, "%s", out);
}
