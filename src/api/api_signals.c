/* fcast_abandon_writes (fcast.h): io/atomic_file.c's, for the callers'
 * signal handlers. */
#include "fcast.h"
#include "io/atomic_file.h"

void fcast_abandon_writes(void) { fc_atomic_file_abandon(); }
