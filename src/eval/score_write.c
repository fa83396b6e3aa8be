/* Score summaries as table, CSV or JSON (see score_write.h). */
#include "eval/score_write.h"

#include <jansson.h>
#include <math.h>
#include <string.h>
#include "core/error.h"
#include "io/csv_write.h"

int fc_score_format_parse(const char *name) {
    const char *names[3] = {"table", "csv", "json"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) return i;
    return -1;
}

static const char *model_name(const fc_score_report *r, size_t j) { return r->table->lay.models[j].name; }

/* ---- table ---- */

/* What was scored and how: the lines above the table, "# "-prefixed. */
static void write_notes(FILE *f, const fc_score_report *r) {
    const fc_score_table *t = r->table;
    const fc_score_summary *s = r->summary;
    /* "series x cutoffs" only when every series has a window at every
     * cutoff; series that end on different dates (a forecast file of a
     * panel) each bring their own cutoffs. */
    if (s->windows == t->ids.n * s->n_cutoffs)
        fprintf(f, "# %s: %zu points in %zu windows (%zu series x %zu cutoffs)\n", t->source, s->groups[0].points,
                s->windows, t->ids.n, s->n_cutoffs);
    else
        fprintf(f, "# %s: %zu points in %zu windows (%zu series, %zu distinct cutoffs)\n", t->source,
                s->groups[0].points, s->windows, t->ids.n, s->n_cutoffs);
    fprintf(f, "# sMAPE_200: sMAPE on M4's 0-200 scale (utilsforecast's smape x 200); MAPE_pct: percent, "
               "points with y = 0 left out\n");
    if (r->train)
        fprintf(f, "# MASE and the baselines Naive, SeasonalNaive(%zu): from the history in %s up to each cutoff\n",
                t->season, r->train);
    else
        fprintf(f, "# no --train: MASE and the Naive / SeasonalNaive baselines are left out\n");
    if (t->baselines_shadowed)
        fprintf(f, "# %zu baseline%s left out: the file has a model column of that name\n", t->baselines_shadowed,
                t->baselines_shadowed == 1 ? "" : "s");
    if (s->mase_left_out)
        fprintf(f, "# %zu windows without seasonal variation in their history left out of MASE\n", s->mase_left_out);
    if (t->rows_without_y) fprintf(f, "# %zu rows without a y (empty or NaN) not scored\n", t->rows_without_y);
    if (t->rows_without_actual)
        fprintf(f, "# %zu forecast rows without an observed value in --test not scored\n", t->rows_without_actual);
}

static void group_title(FILE *f, const fc_score_report *r, const fc_score_group *g) {
    char when[40];
    if (g->kind == FC_GROUP_ALL) fprintf(f, "overall");
    else if (g->kind == FC_GROUP_SERIES) fprintf(f, "unique_id %s", g->id);
    else {
        fc_ds_format(r->table->kind, g->cutoff, when, sizeof when);
        fprintf(f, "cutoff %s", when);
    }
    fprintf(f, " (%zu windows, %zu points)\n", g->windows, g->points);
}

static void write_group_table(FILE *f, const fc_score_report *r, const fc_score_group *g, const int *width,
                              int first) {
    const fc_score_summary *s = r->summary;
    group_title(f, r, g);
    fprintf(f, "%-*s", first, "metric");
    for (size_t j = 0; j < s->n_models; j++) fprintf(f, " %*s", width[j], model_name(r, j));
    fputc('\n', f);
    for (size_t row = 0; row < s->n_rows; row++) {
        fprintf(f, "%-*s", first, s->rows[row].name);
        for (size_t j = 0; j < s->n_models; j++) {
            double v = fc_score_mean(s, g, row, j);
            if (isnan(v)) fprintf(f, " %*s", width[j], "-");
            else fprintf(f, " %*.4f", width[j], v);
        }
        fputc('\n', f);
    }
}

static fc_status write_table(FILE *f, const fc_score_report *r) {
    const fc_score_summary *s = r->summary;
    int *width = fc_malloc((s->n_models + 1) * sizeof *width, "table layout"), first = 12;
    if (!width) return FC_ERR_MEMORY;
    for (size_t j = 0; j < s->n_models; j++) {
        int w = (int)strlen(model_name(r, j));
        width[j] = w > 12 ? w : 12;
    }
    for (size_t row = 0; row < s->n_rows; row++)
        if ((int)strlen(s->rows[row].name) > first) first = (int)strlen(s->rows[row].name);
    write_notes(f, r);
    for (size_t i = 0; i < s->n_groups; i++) {
        fputc('\n', f);
        write_group_table(f, r, &s->groups[i], width, first);
    }
    free(width);
    return FC_OK;
}

/* ---- CSV ---- */

static fc_status write_csv(FILE *f, const fc_score_report *r) {
    const fc_score_summary *s = r->summary;
    fprintf(f, "metric,model,cutoff,unique_id,value\n");
    for (size_t i = 0; i < s->n_groups; i++) {
        const fc_score_group *g = &s->groups[i];
        char when[40] = "";
        if (g->kind == FC_GROUP_CUTOFF) fc_ds_format(r->table->kind, g->cutoff, when, sizeof when);
        for (size_t row = 0; row < s->n_rows; row++)
            for (size_t j = 0; j < s->n_models; j++) {
                double v = fc_score_mean(s, g, row, j);
                fprintf(f, "%s,", s->rows[row].name);
                fc_csv_write_field(f, model_name(r, j));
                fprintf(f, ",%s,", when);
                if (g->kind == FC_GROUP_SERIES) fc_csv_write_field(f, g->id);
                fputc(',', f);
                if (!isnan(v)) fc_csv_write_real(f, v);
                fputc('\n', f);
            }
    }
    return FC_OK;
}

/* ---- JSON ---- */

static int put(json_t *o, const char *key, json_t *v) { return v && json_object_set_new(o, key, v) == 0; }

static json_t *number_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* {"windows": .., "points": .., "scores": {model: {metric: value}}} */
static json_t *group_json(const fc_score_report *r, const fc_score_group *g) {
    const fc_score_summary *s = r->summary;
    json_t *o = json_object(), *scores = json_object();
    int ok = o && scores;
    char when[40];
    if (ok && g->kind == FC_GROUP_CUTOFF) {
        fc_ds_format(r->table->kind, g->cutoff, when, sizeof when);
        ok = put(o, "cutoff", json_string(when));
    }
    if (ok && g->kind == FC_GROUP_SERIES) ok = put(o, "unique_id", json_string(g->id));
    ok = ok && put(o, "windows", json_integer((json_int_t)g->windows)) &&
         put(o, "points", json_integer((json_int_t)g->points));
    for (size_t j = 0; ok && j < s->n_models; j++) {
        json_t *m = json_object();
        ok = put(scores, model_name(r, j), m);
        for (size_t row = 0; ok && row < s->n_rows; row++)
            ok = put(m, s->rows[row].name, number_or_null(fc_score_mean(s, g, row, j)));
    }
    if (ok && put(o, "scores", scores)) return o;
    if (!ok) json_decref(scores);
    json_decref(o);
    return NULL;
}

static int add_groups(json_t *root, const fc_score_report *r, fc_group_kind kind, const char *key) {
    json_t *list = json_array();
    if (!put(root, key, list)) return 0;
    for (size_t i = 0; i < r->summary->n_groups; i++)
        if (r->summary->groups[i].kind == kind && json_array_append_new(list, group_json(r, &r->summary->groups[i])))
            return 0;
    return 1;
}

static json_t *report_json(const fc_score_report *r) {
    const fc_score_table *t = r->table;
    const fc_score_summary *s = r->summary;
    json_t *root = json_object(), *models = json_array(), *metrics = json_array();
    /* put always takes the value over (jansson frees it on failure), so
     * models and metrics go in first, unconditionally */
    int ok = put(root, "models", models);
    ok = put(root, "metrics", metrics) && ok;
    ok = ok && put(root, "file", json_string(t->source)) && put(root, "train", r->train ? json_string(r->train) : json_null()) &&
         put(root, "season", json_integer((json_int_t)t->season)) &&
         put(root, "smape_scale", json_string("0-200 (M4; utilsforecast's smape x 200)")) &&
         put(root, "mape_scale", json_string("percent (utilsforecast's mape x 100)")) &&
         put(root, "series", json_integer((json_int_t)t->ids.n)) &&
         put(root, "cutoffs", json_integer((json_int_t)s->n_cutoffs)) &&
         put(root, "rows_without_y", json_integer((json_int_t)(t->rows_without_y + t->rows_without_actual))) &&
         put(root, "mase_windows_left_out", json_integer((json_int_t)s->mase_left_out));
    for (size_t j = 0; ok && j < s->n_models; j++) ok = !json_array_append_new(models, json_string(model_name(r, j)));
    for (size_t i = 0; ok && i < s->n_rows; i++) ok = !json_array_append_new(metrics, json_string(s->rows[i].name));
    ok = ok && put(root, "overall", group_json(r, &s->groups[0])) && add_groups(root, r, FC_GROUP_CUTOFF, "by_cutoff");
    if (ok && s->n_series) ok = add_groups(root, r, FC_GROUP_SERIES, "by_series");
    if (ok) return root;
    json_decref(root);
    return NULL;
}

static fc_status write_json(FILE *f, const fc_score_report *r) {
    json_t *root = report_json(r);
    if (!root) return fc_error(FC_ERR_MEMORY, "out of memory while building the JSON report");
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    fputc('\n', f);
    json_decref(root);
    return rc == 0 ? FC_OK : fc_error(FC_ERR_IO, "cannot write the JSON report");
}

fc_status fc_score_write(FILE *f, void *ctx) {
    const fc_score_report *r = ctx;
    if (r->format == FC_SCORE_CSV) return write_csv(f, r);
    if (r->format == FC_SCORE_JSON) return write_json(f, r);
    return write_table(f, r);
}
