/* The flags of `fcast train`, shared by the commands that make a model as
 * it does (plan, bench, cv, tune, ensemble): the table, its defaults, and
 * the flags given as the keys of a library configuration (fcast.h). */
#ifndef FC_TOOLS_TRAIN_FLAGS_H
#define FC_TOOLS_TRAIN_FLAGS_H

#include "args.h"
#include "exog_flags.h"
#include "arch_flags.h"

#define FC_TRAIN_MAX_SPECS 100

typedef struct {
    const char *data, *model, *out, *scaler, *loss, *freq, *precision, *memory_limit, *wbs, *data_store, *store_dir, *device;
    size_t h, input_size, max_steps, batch_size, val_size, val_check, step_size, threads, grad_accum;
    long num_lr_decays, patience, seed;
    double lr, clip;
    /* the loss's parameters: NULL / ARG_SIZE_UNSET when not given, so a
     * parameter given to a loss without it is refused, not ignored */
    const char *huber_delta, *quantile, *level, *quantiles;
    size_t season;
    int quiet;
    int tf32;      /* fp32 products on TF32 tensor cores (GPU only) */
    const char *cuda_graph;   /* on | off */
    /* operations: none changes the trained model (train only) */
    const char *checkpoint, *resume, *log_file;
    size_t checkpoint_every;
    int profile;
    int deterministic_reduce;   /* under mpirun: the ranks' gradients summed in rank order */
    arch_flags arch;
    exog_flags exog;
} train_flags;

/* Defaults and the flag table. out_required: --out is required, and the
 * operations flags of train (checkpoints, resume, run log) are in the table. */
void train_flags_init(train_flags *a, arg_spec specs[FC_TRAIN_MAX_SPECS], int out_required);

/* Flags that say where files go or how a run is watched, not how the model
 * is made: left out of the configuration echoed into the model file, so a
 * resumed run writes the same file as an uninterrupted one. */
extern const char *const FC_TRAIN_OPERATIONS_FLAGS[];

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
