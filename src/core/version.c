/* The engine's version, written into every model file (see train/model_file.c). */
#include "fcast/status.h"

const char *fc_version(void) { return FC_VERSION; }
