/* Parameter ranges for grid searches, written start:stop:step (inclusive),
 * start:stop (step 1) or a single value: "5:50:5", "1.5:2.5:0.5", "14". */
#ifndef FC_QUANT_PARAM_RANGE_H
#define FC_QUANT_PARAM_RANGE_H

#include <stddef.h>
#include "fcast/status.h"

#define FC_RANGE_MAX_VALUES 100000

typedef struct fc_range {
    double start, stop, step;
    size_t count;
} fc_range;

/* Parses `text`; errors name `flag` (e.g. "--fast") and say what was expected.
 * With `integer`, start and step must be whole numbers. */
fc_status fc_range_parse(const char *flag, const char *text, int integer, fc_range *out);

/* The i-th value, start + i step (computed, not accumulated). */
double fc_range_value(const fc_range *r, size_t i);

#endif
