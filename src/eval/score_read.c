/* Reading a cross-validation or forecast file into windows of sums (see
 * score_table.h): header, then one pass over the rows. Every failure names
 * the file, the line and the column. */
#include "eval/score_table.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/error.h"
#include "data/csv_reader.h"
#include "data/ds_text.h"
#include "data/freq.h"
#include "data/number_parse.h"
#include "data/raw_table.h"
#include "data/text_map.h"
#include "eval/metrics.h"
#include "eval/scores.h"

#define RELEASE_STEP ((size_t)16 << 20)   /* hand parsed text back every 16 MiB */

typedef struct {
    fc_score_table *t;
    const fc_score_input *in;
    char **names;              /* header */
    size_t n_names;
    fc_csv_reader r;
    size_t header_line;
    double *values;            /* one row: n_values slots */
} reader;

static fc_status at_error(const reader *rd, fc_status code, size_t line, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static fc_status at_error(const reader *rd, fc_status code, size_t line, size_t col, const char *fmt, ...) {
    char text[768], name[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (col == FC_EVAL_NO_COLUMN) return fc_error(code, "%s:%zu: %s", rd->t->source, line, text);
    fc_quote_field(rd->names[col], strlen(rd->names[col]), name, sizeof name);
    return fc_error(code, "%s:%zu: column %s (%zu): %s", rd->t->source, line, name, col + 1, text);
}

static fc_status reader_failure(const reader *rd, fc_csv_result res) {
    if (res == FC_CSV_NOMEM) return FC_ERR_MEMORY;
    return fc_error(FC_ERR_PARSE, "%s:%zu: field %zu: %s", rd->t->source, rd->r.error_line, rd->r.error_field,
                    rd->r.error_what);
}

/* ---- header ---- */

static fc_status copy_names(reader *rd, size_t n) {
    rd->names = fc_calloc(n, sizeof *rd->names, "column names");
    if (!rd->names) return FC_ERR_MEMORY;
    rd->n_names = n;
    for (size_t i = 0; i < n; i++) {
        const fc_span *f = &rd->r.fields[i];
        if (!(rd->names[i] = fc_malloc(f->len + 1, "column name"))) return FC_ERR_MEMORY;
        memcpy(rd->names[i], f->ptr, f->len);
        rd->names[i][f->len] = '\0';
    }
    for (size_t i = 0; i < n; i++) {
        if (rd->names[i][0] == '\0')
            return at_error(rd, FC_ERR_PARSE, rd->header_line, i, "empty column name (a pandas index? write "
                            "with to_csv(index=False)); every column needs a name");
        for (size_t j = 0; j < i; j++)
            if (strcmp(rd->names[i], rd->names[j]) == 0)
                return at_error(rd, FC_ERR_PARSE, rd->header_line, i, "repeats the name of column %zu", j + 1);
    }
    return FC_OK;
}

/* Naive and SeasonalNaive(m) as models whose values fill the slots after
 * the file's columns; left out when the file has a model of that name. */
static fc_status add_baselines(fc_score_table *t, size_t n_cols) {
    char seasonal[48];
    snprintf(seasonal, sizeof seasonal, "SeasonalNaive(%zu)", t->season);
    const char *names[2] = {"Naive", seasonal};
    for (int b = 0; b < 2; b++) {
        if (fc_score_layout_find(&t->lay, names[b]) >= 0) t->baselines_shadowed++;
        else FC_TRY(fc_score_layout_add_point(&t->lay, names[b], n_cols + (size_t)b));
    }
    return FC_OK;
}

static fc_status plan_sums(fc_score_table *t) {
    t->model_off = fc_malloc(t->lay.n_models * sizeof *t->model_off, "score offsets");
    if (!t->model_off) return FC_ERR_MEMORY;
    t->stride = 2;
    for (size_t i = 0; i < t->lay.n_models; i++) {
        t->model_off[i] = t->stride;
        t->stride += FC_SCORE_POINT_DOUBLES + t->lay.models[i].n_q + t->lay.models[i].n_lv + 1;   /* + crossings */
    }
    return FC_OK;
}

static fc_status read_header(reader *rd) {
    fc_score_table *t = rd->t;
    size_t n = 0, line = 1;
    int blank = 1;
    fc_csv_result res = FC_CSV_RECORD;
    while (res == FC_CSV_RECORD && blank) res = fc_csv_next(&rd->r, &n, &line, &blank);
    if (res == FC_CSV_END)
        return fc_error(FC_ERR_PARSE, "%s:1: empty file: expected a header naming unique_id, ds%s and model "
                        "columns", t->source, rd->in->test ? "" : ", cutoff, y");
    if (res != FC_CSV_RECORD) return reader_failure(rd, res);
    rd->header_line = line;
    FC_TRY(copy_names(rd, n));
    FC_TRY(fc_score_layout_build(t->source, rd->names, n, rd->in->test == NULL, &t->lay));
    t->n_file_models = t->lay.n_models;
    t->n_values = n + (t->has_train ? 2 : 0);
    if (t->has_train) FC_TRY(add_baselines(t, n));
    FC_TRY(plan_sums(t));
    rd->r.max_fields = n + 1;
    rd->values = fc_calloc(t->n_values, sizeof *rd->values, "row values");
    return rd->values ? FC_OK : FC_ERR_MEMORY;
}

/* ---- fields ---- */

static int same_family(fc_ds_kind a, fc_ds_kind b) { return (a == FC_DS_INDEX) == (b == FC_DS_INDEX); }

/* The first ds read decides the kind; --train and --test must hold the same
 * (dates and datetimes are both seconds, so they mix). */
static fc_status check_kinds(const reader *rd, fc_ds_kind kind) {
    const fc_dataset *d[2] = {rd->in->train, rd->in->test};
    const char *flag[2] = {"--train", "--test"};
    for (int k = 0; k < 2; k++)
        if (d[k] && !same_family(d[k]->ds_kind, kind))
            return fc_error(FC_ERR_INVALID, "%s holds %s values in ds but %s %s holds %s values", rd->t->source,
                            fc_ds_kind_name(kind), flag[k], d[k]->source, fc_ds_kind_name(d[k]->ds_kind));
    return FC_OK;
}

static fc_status parse_time(reader *rd, size_t line, size_t col, int64_t *out) {
    fc_score_table *t = rd->t;
    const fc_span *f = &rd->r.fields[col];
    char shown[64];
    fc_ds_kind kind;
    fc_quote_field(f->ptr, f->len, shown, sizeof shown);
    if (!fc_ds_parse(f->ptr, f->len, &kind, out))
        return at_error(rd, FC_ERR_PARSE, line, col, "cannot parse %s: expected an integer index (17), a date "
                        "(2000-06-05) or a datetime (2000-06-05 00:30:00)", shown);
    if (t->kind_set && !same_family(kind, t->kind))
        return at_error(rd, FC_ERR_PARSE, line, col, "%s is a %s, but earlier values are %ss: every ds and cutoff "
                        "must be of one kind", shown, fc_ds_kind_name(kind), fc_ds_kind_name(t->kind));
    if (!t->kind_set) FC_TRY(check_kinds(rd, kind));
    if (!t->kind_set || kind == FC_DS_DATETIME) t->kind = kind;
    t->kind_set = 1;
    return FC_OK;
}

/* A number cell: *missing for empty / NaN / NA. */
static fc_status parse_number(reader *rd, size_t line, size_t col, double *v, int *missing) {
    const fc_span *f = &rd->r.fields[col];
    char shown[64];
    *missing = 0;
    fc_num_result res = fc_parse_number(f->ptr, f->len, v);
    if (res == FC_NUM_OK) return FC_OK;
    if (res == FC_NUM_MISSING) { *missing = 1; return FC_OK; }
    fc_quote_field(f->ptr, f->len, shown, sizeof shown);
    return at_error(rd, FC_ERR_PARSE, line, col, "%s is %s: expected a finite decimal number such as 1.5 or -2e3",
                    shown, res == FC_NUM_INFINITE ? "infinite or beyond the double range" : "not a number");
}

/* Every forecast column of the row; a forecast must be there to be scored. */
static fc_status parse_forecasts(reader *rd, size_t line) {
    const fc_score_layout *l = &rd->t->lay;
    for (size_t c = 0; c < l->n_cols; c++) {
        if (c == l->col_id || c == l->col_ds || c == l->col_cutoff || c == l->col_y) continue;
        int missing;
        FC_TRY(parse_number(rd, line, c, &rd->values[c], &missing));
        if (missing)
            return at_error(rd, FC_ERR_PARSE, line, c, "empty or NaN forecast: every model column needs a "
                            "number on every row to be scored");
    }
    return FC_OK;
}

static fc_status parse_id(reader *rd, size_t line, uint32_t *id) {
    const fc_span *f = &rd->r.fields[rd->t->lay.col_id];
    if (f->len == 0 || memchr(f->ptr, '\0', f->len))
        return at_error(rd, FC_ERR_PARSE, line, rd->t->lay.col_id, "empty unique_id (or one holding a NUL byte)");
    return fc_id_table_intern(&rd->t->ids, f->ptr, f->len, id);
}

/* ---- lookups in train and test ---- */

/* The series of unique_id `id` in train (which 0) or test (1), -1 for
 * none: looked up once per id. */
static fc_status series_of(fc_score_table *t, int which, const fc_dataset *d, uint32_t id, int32_t *s) {
    if (id >= t->id_slots) {
        size_t cap = t->id_slots ? t->id_slots * 2 : 256;
        while (cap <= id) cap *= 2;
        int32_t **caches[2] = {&t->id_train, &t->id_test};
        for (int k = 0; k < 2; k++) {
            int32_t *p = fc_realloc(*caches[k], cap * sizeof *p, "series lookup");
            if (!p) return FC_ERR_MEMORY;
            for (size_t i = t->id_slots; i < cap; i++) p[i] = -2;   /* not looked up yet */
            *caches[k] = p;
        }
        t->id_slots = cap;
    }
    int32_t *cache = which ? t->id_test : t->id_train;
    if (cache[id] == -2) cache[id] = (int32_t)fc_dataset_find(d, fc_id_table_str(&t->ids, id));
    *s = cache[id];
    return FC_OK;
}

/* ---- windows ---- */

static fc_status grow_windows(fc_score_table *t) {
    size_t cap = t->cap_windows ? t->cap_windows * 2 : 64;
    void *p;
    if (!(p = fc_realloc(t->w_id, cap * sizeof *t->w_id, "score windows"))) return FC_ERR_MEMORY;
    t->w_id = p;
    if (!(p = fc_realloc(t->w_cutoff, cap * sizeof *t->w_cutoff, "score windows"))) return FC_ERR_MEMORY;
    t->w_cutoff = p;
    if (!(p = fc_realloc(t->w_cutoff_at, cap * sizeof *t->w_cutoff_at, "score windows"))) return FC_ERR_MEMORY;
    t->w_cutoff_at = p;
    if (!(p = fc_realloc(t->w_sums, cap * t->stride * sizeof *t->w_sums, "score windows"))) return FC_ERR_MEMORY;
    t->w_sums = p;
    t->cap_windows = cap;
    return FC_OK;
}

/* The history a window's forecasts start from: its series in train, with
 * an observed value at or before the cutoff, which must be a ds there. */
static fc_status window_history(reader *rd, size_t line, uint32_t id, int64_t cutoff, size_t *at) {
    fc_score_table *t = rd->t;
    const fc_dataset *tr = rd->in->train;
    size_t col = t->lay.col_cutoff != FC_EVAL_NO_COLUMN ? t->lay.col_cutoff : t->lay.col_id;
    char when[40], name[64];
    const char *id_text = fc_id_table_str(&t->ids, id);
    fc_quote_field(id_text, strlen(id_text), name, sizeof name);
    fc_ds_format(t->kind, cutoff, when, sizeof when);
    int32_t s;
    FC_TRY(series_of(t, 0, tr, id, &s));
    if (s < 0)
        return at_error(rd, FC_ERR_INVALID, line, t->lay.col_id, "series %s has no history in --train %s: "
                        "MASE and the baselines need each series' values up to its cutoff", name, tr->source);
    ssize_t c = fc_dataset_find_ds(tr, (size_t)s, cutoff);
    if (c < 0)
        return at_error(rd, FC_ERR_INVALID, line, col, "cutoff %s of series %s is not a ds of that series in "
                        "--train %s (which runs from its first to its last ds on the %s grid)", when, name,
                        tr->source, tr->freq.name);
    if (isnan(fc_naive_at(tr, (size_t)s, (size_t)c)))
        return at_error(rd, FC_ERR_INVALID, line, col, "series %s has no observed value up to cutoff %s in "
                        "--train %s", name, when, tr->source);
    *at = (size_t)c;
    return FC_OK;
}

static fc_status window_of(reader *rd, size_t line, uint32_t id, int64_t cutoff, size_t *w) {
    fc_score_table *t = rd->t;
    uint64_t v = t->n_windows;
    int found;
    FC_TRY(fc_pair_map_put(&t->windows, id, cutoff, &v, &found));
    *w = (size_t)v;
    if (found) return FC_OK;
    if (t->n_windows == t->cap_windows) FC_TRY(grow_windows(t));
    t->w_id[*w] = id;
    t->w_cutoff[*w] = cutoff;
    t->w_cutoff_at[*w] = 0;
    memset(fc_score_window(t, *w), 0, t->stride * sizeof(double));
    t->n_windows++;
    if (t->has_train) FC_TRY(window_history(rd, line, id, cutoff, &t->w_cutoff_at[*w]));
    return FC_OK;
}

static fc_status check_duplicate(reader *rd, size_t line, size_t w, int64_t ds) {
    fc_score_table *t = rd->t;
    uint64_t first = line;
    int found;
    FC_TRY(fc_pair_map_put(&t->rows, (uint32_t)w, ds, &first, &found));
    if (!found) return FC_OK;
    char when[40], cut[40], name[64];
    const char *id = fc_id_table_str(&t->ids, t->w_id[w]);
    fc_quote_field(id, strlen(id), name, sizeof name);
    fc_ds_format(t->kind, ds, when, sizeof when);
    fc_ds_format(t->kind, t->w_cutoff[w], cut, sizeof cut);
    return at_error(rd, FC_ERR_PARSE, line, t->lay.col_ds, "duplicate (unique_id, ds, cutoff) = (%s, %s, %s): "
                    "already on line %zu", name, when, cut, (size_t)first);
}

/* ---- one row ---- */

/* Naive and SeasonalNaive(m) made at the window's cutoff for this ds. */
static fc_status baselines(reader *rd, size_t line, size_t w, int64_t ds) {
    fc_score_table *t = rd->t;
    const fc_dataset *tr = rd->in->train;
    int64_t k;
    if (!fc_freq_steps_between(&tr->freq, t->w_cutoff[w], ds, &k)) {
        char when[40];
        fc_ds_format(t->kind, ds, when, sizeof when);
        return at_error(rd, FC_ERR_INVALID, line, t->lay.col_ds, "%s is not on the %s grid of --train %s after "
                        "the cutoff: the baselines need the step count", when, tr->freq.name, tr->source);
    }
    int32_t s = rd->t->id_train[t->w_id[w]];
    size_t n = t->lay.n_cols;
    rd->values[n] = fc_naive_at(tr, (size_t)s, t->w_cutoff_at[w]);
    rd->values[n + 1] = fc_seasonal_naive_at(tr, (size_t)s, t->w_cutoff_at[w], t->season, (size_t)k);
    return FC_OK;
}

/* 1 when the model's quantile forecasts of this point are out of order
 * (a lower quantile above a higher one): MQLoss does not prevent it, and
 * neither neuralforecast nor fcast sorts them, so eval counts it. */
static int quantiles_cross(const fc_score_model *m, const double *v) {
    for (size_t q = 1; q < m->n_q; q++)
        if (v[m->q_col[q - 1]] > v[m->q_col[q]]) return 1;
    return 0;
}

static void accumulate(fc_score_table *t, size_t w, double y, const double *v) {
    double *b = fc_score_window(t, w);
    b[0] += 1.0;
    b[1] += fabs(y);
    for (size_t i = 0; i < t->lay.n_models; i++) {
        const fc_score_model *m = &t->lay.models[i];
        double *p = b + t->model_off[i];
        if (m->point_col != FC_EVAL_NO_COLUMN) fc_point_sums_add((fc_point_sums *)p, y, v[m->point_col]);
        p += FC_SCORE_POINT_DOUBLES;
        for (size_t q = 0; q < m->n_q; q++) p[q] += fc_quantile_loss(m->q[q], y, v[m->q_col[q]]);
        p += m->n_q;
        for (size_t l = 0; l < m->n_lv; l++) p[l] += fc_interval_covers(y, v[m->lo_col[l]], v[m->hi_col[l]]);
        p += m->n_lv;
        p[0] += quantiles_cross(m, v);
    }
}

/* The actual y of a forecast row from the test file: 0 when it has none. */
static fc_status actual_of(reader *rd, uint32_t id, int64_t ds, double *y, int *have) {
    const fc_dataset *te = rd->in->test;
    int32_t s;
    FC_TRY(series_of(rd->t, 1, te, id, &s));
    ssize_t r = s >= 0 ? fc_dataset_find_ds(te, (size_t)s, ds) : -1;
    *have = r >= 0 && te->mask[te->offsets[s] + (size_t)r];
    if (*have) *y = te->y[te->offsets[s] + (size_t)r];
    return FC_OK;
}

/* The cutoff of a forecast row: its series' last ds in the history. */
static fc_status history_end(reader *rd, size_t line, uint32_t id, int64_t *cutoff) {
    const fc_dataset *tr = rd->in->train;
    int32_t s;
    FC_TRY(series_of(rd->t, 0, tr, id, &s));
    if (s < 0) {
        char name[64];
        const char *text = fc_id_table_str(&rd->t->ids, id);
        fc_quote_field(text, strlen(text), name, sizeof name);
        return at_error(rd, FC_ERR_INVALID, line, rd->t->lay.col_id, "series %s has no history in --train %s: "
                        "its cutoff is its last ds there", name, tr->source);
    }
    *cutoff = tr->ds[tr->offsets[s + 1] - 1];
    return FC_OK;
}

static fc_status parse_row(reader *rd, size_t line) {
    fc_score_table *t = rd->t;
    const fc_score_layout *l = &t->lay;
    uint32_t id;
    int64_t ds, cutoff;
    double y = 0.0;
    int have_y = 1;
    FC_TRY(parse_id(rd, line, &id));
    FC_TRY(parse_time(rd, line, l->col_ds, &ds));
    if (rd->in->test) {
        FC_TRY(history_end(rd, line, id, &cutoff));
        FC_TRY(actual_of(rd, id, ds, &y, &have_y));
    } else {
        FC_TRY(parse_time(rd, line, l->col_cutoff, &cutoff));
        FC_TRY(parse_number(rd, line, l->col_y, &y, &have_y));
        have_y = !have_y;
    }
    FC_TRY(parse_forecasts(rd, line));
    if (ds <= cutoff) {
        char a[40], b[40];
        fc_ds_format(t->kind, ds, a, sizeof a);
        fc_ds_format(t->kind, cutoff, b, sizeof b);
        return at_error(rd, FC_ERR_INVALID, line, l->col_ds, "ds %s is not after its cutoff %s: a forecast is "
                        "for a point after the history it starts from", a, b);
    }
    size_t w;
    FC_TRY(window_of(rd, line, id, cutoff, &w));
    FC_TRY(check_duplicate(rd, line, w, ds));
    if (!have_y) {   /* nothing to score against */
        if (rd->in->test) t->rows_without_actual++;
        else t->rows_without_y++;
        return FC_OK;
    }
    if (t->has_train) FC_TRY(baselines(rd, line, w, ds));
    accumulate(t, w, y, rd->values);
    t->rows_scored++;
    return FC_OK;
}

static fc_status field_count_error(const reader *rd, size_t line, size_t n) {
    return fc_error(FC_ERR_PARSE, "%s:%zu: %zu field%s but the header (line %zu) has %zu columns", rd->t->source,
                    line, n, n == 1 ? "" : "s", rd->header_line, rd->t->lay.n_cols);
}

static fc_status read_rows(reader *rd, const char *text) {
    const char *released = text;
    for (;;) {
        size_t n, line;
        int blank;
        fc_csv_result res = fc_csv_next(&rd->r, &n, &line, &blank);
        if (res == FC_CSV_END) return FC_OK;
        if (res != FC_CSV_RECORD) return reader_failure(rd, res);
        if (blank) continue;
        if (n != rd->t->lay.n_cols) return field_count_error(rd, line, n);
        FC_TRY(parse_row(rd, line));
        if ((size_t)(rd->r.pos - released) >= RELEASE_STEP) {   /* keep the file's resident share small */
            fc_text_map_release(text, (size_t)(rd->r.end - text));
            released = rd->r.pos;
        }
    }
}

fc_status fc_score_table_read(const fc_score_input *in, fc_score_table *t) {
    memset(t, 0, sizeof *t);
    t->season = in->season;
    t->has_train = in->train != NULL;
    if (in->test && !in->train)
        return fc_error(FC_ERR_INVALID, "scoring a forecast file needs --train: each series' cutoff is its last ds "
                        "there");
    if (!(t->source = strdup(in->path))) return fc_error(FC_ERR_MEMORY, "out of memory");
    reader rd = {.t = t, .in = in};
    const char *text;
    size_t len;
    fc_status st = fc_text_map_open(in->path, &text, &len);
    if (st != FC_OK) return st;
    fc_csv_init(&rd.r, text, len, 100000);
    st = read_header(&rd);
    if (st == FC_OK) {
        st = read_rows(&rd, text);
    }
    if (st == FC_OK && t->rows_scored == 0)
        st = fc_error(FC_ERR_INVALID, "%s: no row to score (%zu rows without an actual y)", t->source,
                      t->rows_without_y + t->rows_without_actual);
    fc_csv_free(&rd.r);
    fc_text_map_close(text, len);
    for (size_t i = 0; i < rd.n_names; i++) free(rd.names[i]);
    free(rd.names);
    free(rd.values);
    if (st != FC_OK) fc_score_table_free(t);
    return st;
}

void fc_score_table_free(fc_score_table *t) {
    free(t->source);
    fc_score_layout_free(&t->lay);
    free(t->model_off);
    fc_id_table_free(&t->ids);
    free(t->id_train);
    free(t->id_test);
    fc_pair_map_free(&t->windows);
    fc_pair_map_free(&t->rows);
    free(t->w_id);
    free(t->w_cutoff);
    free(t->w_cutoff_at);
    free(t->w_sums);
    memset(t, 0, sizeof *t);
}
