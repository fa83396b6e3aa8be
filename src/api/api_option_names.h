/* The option engines' messages name the CLI's flags ("--sigma"); the API's
 * name its structs' fields ("vol"). Shared by src/api/api_option_*.c. */
#ifndef FC_API_OPTION_NAMES_H
#define FC_API_OPTION_NAMES_H

#include "fcast/status.h"

/* The last error's message with each flag renamed to its field and
 * prefixed with "fn: ", under status st (returned). */
fc_status fc_api_option_renamed(fc_status st, const char *fn);

#endif
