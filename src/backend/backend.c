/* Backend lifetime shared by every backend: each *_create fills the table,
 * including its own `destroy`, which fc_backend_destroy calls. */
#include "backend/backend.h"

void fc_backend_destroy(fc_backend **be) {
    if (!be || !*be) return;
    (*be)->destroy(*be);
    *be = NULL;
}
