/* Names of the matrix-product precisions, as the CLI and model logs spell them. */
#include <string.h>

#include "backend/backend.h"

static const char *const precision_names[FC_PREC_COUNT] = {"fp32", "bf16", "fp16"};

const char *fc_precision_name(fc_precision p) {
    return (unsigned)p < FC_PREC_COUNT ? precision_names[p] : "unknown";
}

int fc_precision_parse(const char *s, fc_precision *out) {
    for (int p = 0; p < FC_PREC_COUNT; p++)
        if (strcmp(s, precision_names[p]) == 0) {
            *out = (fc_precision)p;
            return 0;
        }
    return -1;
}
