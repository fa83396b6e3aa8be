/* fcast_eval_file's file forms: a cross-validation file (--cv), or a
 * forecast file with its actual values (--forecasts, --test), every model
 * column scored beside Naive and SeasonalNaive (eval/score_*.h). */
#include "api/api.h"
#include "api/api_eval.h"
#include "core/error.h"
#include "eval/score_summary.h"
#include "eval/score_write.h"
#include "io/atomic_file.h"
#include "api/output_path.h"

fc_status fc_api_eval_scores_file(const fcast_eval_request *a) {
    fc_dataset *tr = NULL, *te = NULL;
    fc_score_table t = {0};
    fc_score_summary s = {0};
    const char *scored = a->cv ? a->cv : a->forecasts, *out = a->out ? a->out : "-";
    fc_score_format format = (fc_score_format)fc_score_format_parse(a->format ? a->format : "table");
    const fc_path_use files[] = {
        {a->cv ? "--cv" : "--forecasts", scored, FCAST_PATH_IN, 0, NULL},
        {"--train", a->train, FCAST_PATH_IN, 0, NULL},
        {"--test", a->test, FCAST_PATH_IN, 0, NULL},
        {"--out", out, FCAST_PATH_OUT_STDOUT, 0, NULL},
    };
    fc_status st = fc_paths_check(files, sizeof files / sizeof *files);
    if (st == FC_OK && a->train) st = fc_dataset_open(a->train, &(fc_load_options){.freq = a->freq, .drop_exog = 1}, &tr);
    if (st == FC_OK && a->test)
        st = fc_dataset_open(a->test, &(fc_load_options){.drop_exog = 1, .keep_gaps = 1}, &te);
    if (st == FC_OK) st = fc_score_table_read(&(fc_score_input){scored, tr, te, a->season}, &t);
    if (st == FC_OK) st = fc_score_summarize(&t, tr, a->per_series, &s);
    if (st == FC_OK) st = fc_write_file_atomic(out, fc_score_write, &(fc_score_report){&t, &s, a->train, format});
    fc_score_summary_free(&s);
    fc_score_table_free(&t);
    fc_dataset_free(&tr);
    fc_dataset_free(&te);
    return st;
}
