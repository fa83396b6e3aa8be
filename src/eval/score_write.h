/* Writing a score summary as an aligned table (for people), as CSV (long
 * format, one value a line: metric,model,cutoff,unique_id,value; cutoff and
 * unique_id empty where the value is over all of them; an undefined value
 * is an empty field) or as JSON (see docs/evaluation.md). */
#ifndef FC_EVAL_SCORE_WRITE_H
#define FC_EVAL_SCORE_WRITE_H

#include <stdio.h>
#include "eval/score_summary.h"

typedef enum { FC_SCORE_TABLE = 0, FC_SCORE_CSV, FC_SCORE_JSON } fc_score_format;

/* "table", "csv", "json"; -1 when none. */
int fc_score_format_parse(const char *name);

typedef struct {
    const fc_score_table *table;
    const fc_score_summary *summary;
    const char *train;         /* --train's path, or NULL */
    fc_score_format format;
} fc_score_report;

/* An fc_write_body_fn: ctx is an fc_score_report. */
fc_status fc_score_write(FILE *f, void *ctx);

#endif
