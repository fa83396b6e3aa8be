/* The exogenous-variable flags of the commands that train (train, plan,
 * cv, ensemble, tune): --futr-exog, --hist-exog, --stat-exog-file and
 * --stat-exog, with neuralforecast's meaning (futr_exog_list,
 * hist_exog_list, static_df and stat_exog_list), and what they do to the
 * model configuration and to the loaded data (docs/training.md,
 * "Exogenous variables"). */
#ifndef FC_TOOLS_EXOG_FLAGS_H
#define FC_TOOLS_EXOG_FLAGS_H

#include "args.h"
#include "data/dataset.h"
#include "models/model.h"
#include "train/exog_bind.h"

typedef struct {
    const char *futr, *hist, *stat_file, *stat;
} exog_flags;

/* The four specs, for a command's table (args_append). */
enum { EXOG_FLAG_COUNT = 4 };
void exog_flags_specs(exog_flags *x, arg_spec out[EXOG_FLAG_COUNT]);

/* The lists into c (a static file without --stat-exog gives all its
 * columns, as a static_df does). fc_model_config_check, run after, checks
 * that the kind takes them. */
fc_status exog_flags_apply(const exog_flags *x, fc_model_config *c);

/* 1 when the data's extra columns must be kept (the model reads future or
 * past ones). */
int exog_flags_keep_columns(const fc_model_config *c);

/* After loading: attaches the static file's values to ds, checks that the
 * named columns exist and hold a value everywhere, and warns about extra
 * columns of `path` that no flag names. */
fc_status exog_flags_bind(const exog_flags *x, const fc_model_config *c, const char *path, fc_dataset *ds);

/* The flags' names, for the library's messages (train/exog_bind.h). */
extern const fc_exog_words EXOG_FLAG_WORDS;

/* Checks that ds holds c's future and past columns with a value at every
 * point (errors name the file, column, series and ds). */
fc_status exog_check_columns(const fc_model_config *c, const fc_dataset *ds);

/* The warning for the extra columns of a data file that the model does not
 * read (none: no warning). ds NULL: the columns were dropped at load. */
void exog_warn_unused(const char *path, const fc_model_config *c, const fc_dataset *ds);

#endif
