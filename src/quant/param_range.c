/* start:stop:step parameter ranges (see param_range.h). */
#include "quant/param_range.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include "core/error.h"

static fc_status parse_number(const char *flag, const char *full, const char *p, char **end, double *out) {
    errno = 0;
    *out = strtod(p, end);
    if (*end == p || errno || !isfinite(*out))
        return fc_error(FC_ERR_PARSE, "%s: malformed range '%s': expected start:stop:step such as 5:50:5", flag,
                        full);
    return FC_OK;
}

fc_status fc_range_parse(const char *flag, const char *text, int integer, fc_range *out) {
    double v[3] = {0, 0, 1};
    int n = 0;
    const char *p = text;
    for (;;) {
        char *end;
        if (n == 3) return fc_error(FC_ERR_PARSE, "%s: malformed range '%s': at most start:stop:step", flag, text);
        FC_TRY(parse_number(flag, text, p, &end, &v[n]));
        n++;
        if (*end == '\0') break;
        if (*end != ':') return parse_number(flag, text, "", &end, &v[0]);
        p = end + 1;
    }
    if (n == 1) v[1] = v[0];
    if (!(v[2] > 0.0))
        return fc_error(FC_ERR_INVALID, "%s: range '%s': the step must be > 0", flag, text);
    if (v[1] < v[0])
        return fc_error(FC_ERR_INVALID, "%s: range '%s': stop %g is below start %g", flag, text, v[1], v[0]);
    if (integer && (v[0] != floor(v[0]) || v[2] != floor(v[2])))
        return fc_error(FC_ERR_INVALID, "%s: range '%s': expected whole numbers", flag, text);
    /* tolerance: 0.1:0.3:0.1 must give 3 values despite binary rounding */
    double count = floor((v[1] - v[0]) / v[2] + 1e-9) + 1.0;
    if (count > FC_RANGE_MAX_VALUES)
        return fc_error(FC_ERR_INVALID, "%s: range '%s' has %.0f values (at most %d)", flag, text, count,
                        FC_RANGE_MAX_VALUES);
    *out = (fc_range){.start = v[0], .stop = v[1], .step = v[2], .count = (size_t)count};
    return FC_OK;
}

double fc_range_value(const fc_range *r, size_t i) { return r->start + (double)i * r->step; }
