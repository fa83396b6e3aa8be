/* Architecture options, by the names of the flags of the commands that
 * build a model (train, plan, bench) and of the library's
 * fcast_config_set: --mlp-units, --hidden-size, --patch-len, ... Each
 * kind declares its own options beside its code, as rows of this file's
 * fc_arch_option (FC_ARCH_SIZE, ...) exported as fc_<kind>_arch_options
 * (model_kinds.h); the table gathers them in the kinds' order, so a new
 * kind's flags need no edit here. An option several kinds read
 * (--hidden-size: MLP, TiDE, PatchTST; --dropout: TiDE, PatchTST) is the
 * row of the first kind that has it.
 *
 * Every option applies to the configuration whatever its kind (the fields
 * of other kinds hold neuralforecast's values too, so a flag meant for
 * another kind parses, is checked and is ignored). Unset flags keep
 * neuralforecast's defaults for the model; a size flag not given holds
 * FC_ARCH_UNSET, so that "--hidden-size 0" is an error, never the default
 * in disguise. One table (fc_arch_option_table) names them for both: the
 * CLI makes its flag specs from it, the library sets them by name. */
#ifndef FC_MODELS_ARCH_OPTIONS_H
#define FC_MODELS_ARCH_OPTIONS_H

#include <stddef.h>

#include "models/model.h"

/* A size option not given (so "--hidden-size 0" is refused, never read as
 * the default): the CLI's ARG_SIZE_UNSET has the same value. */
#define FC_ARCH_UNSET ((size_t)-1)
/* Options of all kinds together (the CLI's ARCH_FLAGS_MAX is as large). */
#define FC_ARCH_MAX_OPTIONS 64

typedef struct fc_arch_option fc_arch_option;
/* Applies option o, given (size: a size option's value; text: the
 * others'), to c: FC_ERR_INVALID naming the flag and what it expects. */
typedef fc_status fc_arch_apply_fn(const fc_arch_option *o, size_t size, const char *text, fc_model_config *c);

/* One option: its flag name (without "--"), whether it takes a size or
 * text, its help, and how it reaches the configuration: apply, on the
 * field at offset (offsetof(fc_model_config, field)) within [lo, hi]
 * for the generic appliers below. */
struct fc_arch_option {
    const char *name;
    int is_size;          /* 1: a non-negative integer; 0: text */
    const char *meta, *help;
    fc_arch_apply_fn *apply;
    size_t offset, lo, hi;
};

/* A kind's options: its file's rows, in --help's order. */
typedef struct {
    const fc_arch_option *rows;
    size_t n;
} fc_arch_option_rows;
#define FC_ARCH_ROWS(array) {array, sizeof array / sizeof *array}

/* The generic appliers; the row macros pick them by the field's type, so
 * a row naming a field of another type does not compile. */
fc_arch_apply_fn fc_arch_apply_size_field, fc_arch_apply_int_field, fc_arch_apply_switch, fc_arch_apply_probability;
#define FC_ARCH_FIELD(field) (((fc_model_config *)0)->field)
/* A size from lo to hi into a size_t or int field. */
#define FC_ARCH_SIZE(name, field, lo, hi, meta, help)                                                  \
    {name, 1, meta, help,                                                                              \
     _Generic(FC_ARCH_FIELD(field), size_t: fc_arch_apply_size_field, int: fc_arch_apply_int_field), \
     offsetof(fc_model_config, field), lo, hi}
/* on|off into an int field. */
#define FC_ARCH_SWITCH(name, field, help) \
    {name, 0, "on|off", help, _Generic(FC_ARCH_FIELD(field), int: fc_arch_apply_switch), offsetof(fc_model_config, field), 0, 0}
/* A probability in [0, 1) into a double field. */
#define FC_ARCH_PROBABILITY(name, field, help) \
    {name, 0, "P", help, _Generic(FC_ARCH_FIELD(field), double: fc_arch_apply_probability), offsetof(fc_model_config, field), 0, 0}
/* Text the kind's own applier reads (a list, a name). */
#define FC_ARCH_TEXT(name, meta, apply, help) {name, 0, meta, help, apply, 0, 0, 0}

/* The values given, by the option's index in fc_arch_option_table. */
typedef struct {
    size_t size[FC_ARCH_MAX_OPTIONS];      /* FC_ARCH_UNSET: not given */
    const char *text[FC_ARCH_MAX_OPTIONS]; /* NULL: not given */
} fc_arch_options;

void fc_arch_defaults(fc_arch_options *a);

/* The options of every kind, in --help's order (model_kind_list.h's order
 * of kinds, each kind's in its rows' order); *n their count. */
const fc_arch_option *fc_arch_option_table(size_t *n);
/* Sets option `name` from its text (a size is parsed and must be a
 * non-negative integer; the ranges are checked by fc_arch_apply).
 * FC_ERR_INVALID naming it when unknown or malformed. `value` is kept by
 * pointer for a text option: it must outlive a. */
fc_status fc_arch_set(fc_arch_options *a, const char *name, const char *value);
/* Applies the flags that were given to cfg, in the table's order, and
 * validates the result (FC_ERR_INVALID naming the flag and its range). */
fc_status fc_arch_apply(const fc_arch_options *a, fc_model_config *cfg);

#endif
