/* The flags of `fcast train`, shared by the commands that make a model as
 * it does (plan, bench, cv, tune, ensemble): the table, its defaults, and
 * the flags given as the keys of a library configuration (fcast.h). */
#ifndef FC_TOOLS_TRAIN_FLAGS_H
#define FC_TOOLS_TRAIN_FLAGS_H

#include "args.h"
#include "arch_flags.h"

#define FC_TRAIN_MAX_SPECS 100
#define TRAIN_KEYS_MAX 64

/* The flags that make the configuration (fcast_config_new's) and --quiet,
 * then a value per row of the library's training keys
 * (fcast_config_train_key), in the slot of its kind: no key is listed here. */
typedef struct {
    const char *data, *model;
    size_t h, input_size;
    int quiet;
    size_t counts[TRAIN_KEYS_MAX];       /* FCAST_KEY_COUNT: ARG_SIZE_UNSET when not given */
    long integers[TRAIN_KEYS_MAX];       /* FCAST_KEY_INTEGER */
    double numbers[TRAIN_KEYS_MAX];      /* FCAST_KEY_NUMBER: NAN when not given */
    const char *texts[TRAIN_KEYS_MAX];   /* text and file keys: NULL when not given */
    int switches[TRAIN_KEYS_MAX];        /* FCAST_KEY_SWITCH */
    arch_flags arch;
} train_flags;

/* The slot of a training key's value, by its kind (the loss's, the seed's,
 * ...); a key not in the table, or of another kind, is a bug: abort. As
 * strchr does, a const table gives a slot to read. */
const char **train_flags_text(const train_flags *a, const char *key);
size_t *train_flags_count(const train_flags *a, const char *key);
long *train_flags_integer(const train_flags *a, const char *key);

/* "nhits | nbeats | ..." (separator " | " or ", "): the library's model
 * kinds, for --model's help. */
const char *train_flags_model_kinds(const char *separator);

/* Defaults and the flag table. out_required: --out is required, and the
 * operations flags of train (checkpoints, resume, run log) are in the table. */
void train_flags_init(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int out_required);

/* Appends the conformal intervals' flags (FCAST_KEY_INTERVALS: train's
 * alone) to a table train_flags_init made. */
void train_flags_append_intervals(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS]);

/* Flags that say where files go or how a run is watched, not how the model
 * is made (--quiet and the keys of FCAST_KEY_RUN and FCAST_KEY_TRAIN_RUN),
 * NULL-terminated: left out of the configuration echoed into the model
 * file, so a resumed run writes the same file as an uninterrupted one. */
const char *const *train_flags_operations(void);

/* The flags given (on the command line or in --config's file) as the
 * configuration of the library (fcast.h): --model, --h and --input-size
 * make it, every other flag of the table but --data and --quiet is set by
 * its name (`renamed` maps a table name to its key when a command renames
 * a flag: {"train-step-size", "step-size", NULL}; NULL for none), and
 * --quiet is "verbose" off. Returns 0, or the exit code after printing
 * the reason: a value that is not one of a flag's choices (--model,
 * --scaler, --loss) is a usage error, as the parser's are. command NULL:
 * nothing is printed (fcast tune's trials, refused in their own line),
 * the reason left in fc_last_error() -- but for --stat-exog without
 * --stat-exog-file (4), which the first, printing, call catches. */
int train_flags_config(const char *command, const train_flags *a, const arg_spec *specs,
                       const char *const *renamed, fcast_config **out);


#endif
