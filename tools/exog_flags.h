/* The exogenous-variable flags of the commands that train (train, plan,
 * cv, ensemble, tune): --futr-exog, --hist-exog, --stat-exog-file and
 * --stat-exog, with neuralforecast's meaning (futr_exog_list,
 * hist_exog_list, static_df and stat_exog_list); the library reads them
 * as the keys of their names (docs/training.md, "Exogenous variables"). */
#ifndef FC_TOOLS_EXOG_FLAGS_H
#define FC_TOOLS_EXOG_FLAGS_H

#include "args.h"

typedef struct {
    const char *futr, *hist, *stat_file, *stat;
} exog_flags;

/* The four specs, for a command's table (args_append). */
enum { EXOG_FLAG_COUNT = 4 };
void exog_flags_specs(exog_flags *x, arg_spec out[EXOG_FLAG_COUNT]);

#endif
