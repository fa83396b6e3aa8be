/* The search space of `fcast tune`: a YAML file (io/config_yaml.h) mapping
 * flag names to distributions, one per line:
 *
 *   lr: loguniform(1e-4, 1e-2)        real, log-uniform on [low, high], 0 < low
 *   dropout: uniform(0, 0.5)          real, uniform on [low, high]
 *   max-steps: int(100, 1000)         integer, uniform on low..high
 *   input-size: int(12, 96, log)      integer, log-uniform on low..high, 1 <= low
 *   scaler: choice(identity, robust)  one of the items, as text
 *   mlp-units: choice("64,64", "128,128")   quote items holding commas
 *
 * low < high for every range. Items are bare words (no comma, quote or
 * parenthesis; spaces around them dropped) or quoted with " or '. Nothing
 * after the closing parenthesis. What a value means for its flag (an
 * integer flag, a scaler name) is decided by the flag parser, not here.
 *
 * A sampled value is held as a double in the parameter's "internal"
 * representation, as optuna's distributions do (to_internal_repr): the
 * number itself for ranges (an integer for int), the item's index for
 * choice. */
#ifndef FC_TUNE_SEARCH_SPACE_H
#define FC_TUNE_SEARCH_SPACE_H

#include <stddef.h>

#include "fcast/status.h"

#define FC_TUNE_MAX_PARAMS 32
#define FC_TUNE_MAX_CHOICES 64
#define FC_TUNE_VALUE_MAX 256   /* the longest value text, with its NUL */

typedef enum { FC_PARAM_UNIFORM, FC_PARAM_LOGUNIFORM, FC_PARAM_INT, FC_PARAM_CHOICE } fc_param_kind;

typedef struct {
    char *name;          /* the flag, without "--" */
    size_t line;         /* its line in the file, for messages */
    fc_param_kind kind;
    int log;             /* loguniform, or int(..., log) */
    double low, high;    /* ranges */
    char **choices;      /* choice: n_choices items */
    size_t n_choices;
} fc_param;

typedef struct {
    char *path;          /* as given, for messages */
    fc_param params[FC_TUNE_MAX_PARAMS];
    size_t n;
} fc_search_space;

/* Reads the file (FC_ERR_IO / FC_ERR_PARSE as --config's files) and parses
 * every value: a malformed value is FC_ERR_PARSE, bounds that make no range
 * FC_ERR_INVALID, both as "FILE:LINE: KEY: ...". *out is zeroed first; free
 * with fc_space_free, also after a failure. */
fc_status fc_space_load(const char *path, fc_search_space *out);

/* The same from text; `name` stands for the file in messages. */
fc_status fc_space_parse(const char *name, const char *text, size_t len, fc_search_space *out);

/* One value (the text after "key:") into *p (its name and line set by the
 * caller); `where` prefixes messages ("FILE:LINE: KEY"). */
fc_status fc_param_parse(const char *where, const char *text, fc_param *p);

void fc_space_free(fc_search_space *s);

/* The value x (internal representation) as the flag's text: a choice's
 * item, an integer in decimal, a real rounded to 6 significant digits
 * (all 17 when rounding would leave the range). */
void fc_param_text(const fc_param *p, double x, char buf[FC_TUNE_VALUE_MAX]);

/* x as its text reads back: the value a trial really runs with, which is
 * what the samplers must remember. */
double fc_param_snap(const fc_param *p, double x);

/* x for a uniform draw u in (0, 1): uniform or log-uniform over the range
 * (an int's over [low - 0.5, high + 0.5], rounded, as optuna widens an
 * integer range by half a step), or a choice's index. */
double fc_param_from_unit(const fc_param *p, double u);

#endif
