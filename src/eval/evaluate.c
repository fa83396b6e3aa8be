/* Evaluation against a test file (see evaluate.h). */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "data/ds_text.h"
#include "data/text_map.h"
#include "eval/evaluate.h"

static fc_status kind_mismatch(const fc_forecaster *f, const char *path, fc_ds_kind found) {
    return fc_error(FC_ERR_INVALID, "%s: ds holds %s values but the model was trained on %s values", path,
                    fc_ds_kind_name(found), fc_ds_kind_name(f->ds_kind));
}

/* The kind of ds in the file's first rows: a load of at most its first
 * 64 KiB, cut at a line end, so that explaining a failed load of a large
 * (perhaps streamed) file never loads it whole. */
static int probe_kind(const char *path, fc_ds_kind *kind) {
    const char *text;
    size_t len;
    if (fc_text_map_open(path, &text, &len) != FC_OK) return 0;
    size_t n = len < 65536 ? len : 65536;
    while (n < len && n > 0 && text[n - 1] != '\n') n--;
    fc_dataset *probe = NULL;
    fc_load_options any = {.drop_exog = 1, .keep_gaps = 1};
    int ok = fc_dataset_load_buffer(path, text, n, &any, &probe) == FC_OK;
    if (ok) *kind = probe->ds_kind;
    fc_dataset_free(&probe);
    fc_text_map_close(text, len);
    return ok;
}

fc_status fc_load_history(const fc_forecaster *f, const char *path, const fc_load_options *how, fc_dataset **out) {
    fc_load_options lo = {0};
    if (how) lo = *how;
    lo.freq = f->freq.name;
    lo.drop_exog = how ? how->drop_exog : 1;
    fc_status st = fc_dataset_open(path, &lo, out);
    if (st != FC_OK) {
        /* Say "wrong kind of ds" rather than "wrong frequency" when that is the cause. */
        char first[1024];
        snprintf(first, sizeof first, "%s", fc_last_error());
        fc_ds_kind kind;
        if (probe_kind(path, &kind) && kind != f->ds_kind) st = kind_mismatch(f, path, kind);
        else fc_error(st, "%s", first);
        return st;
    }
    if ((*out)->ds_kind != f->ds_kind) {
        st = kind_mismatch(f, path, (*out)->ds_kind);
        fc_dataset_free(out);
    }
    return st;
}

/* Row of test series t at time `when`, or -1. */
static ssize_t find_row(const fc_dataset *test, size_t t, int64_t when) {
    ssize_t k = fc_dataset_find_ds(test, t, when);
    return k < 0 ? -1 : (ssize_t)test->offsets[t] + k;
}

/* fc: the series' forecasts (h, width); the point column is scored. */
static void score_series(const fc_forecaster *f, const fc_dataset *train, size_t s, const fc_dataset *test,
                         size_t t, const float *fc, const float *naive, fc_metrics *mm, fc_metrics *mn,
                         size_t *used) {
    size_t H = f->model->cfg.h, width = fc_forecast_width(f), point = fc_loss_point_output(&f->loss);
    int64_t last = train->ds[train->offsets[s + 1] - 1];
    for (size_t k = 0; k < H; k++) {
        ssize_t r = find_row(test, t, fc_freq_advance(&f->freq, last, (int64_t)k + 1));
        if (r < 0) continue;
        (*used)++;
        if (!test->mask[r]) continue;
        fc_metrics_add(mm, test->y[r], fc[k * width + point]);
        fc_metrics_add(mn, test->y[r], naive[k]);
    }
}

/* What scoring needs before anything is forecast: a season the longest
 * series has, and every test series in train. */
static fc_status check_inputs(const fc_dataset *train, const fc_dataset *test, size_t season) {
    size_t longest = 0;
    for (size_t s = 0; s < train->n_series; s++)
        if (fc_dataset_len(train, s) > longest) longest = fc_dataset_len(train, s);
    if (season < 1 || season > longest)
        return fc_error(FC_ERR_INVALID, "--season %zu: expected 1 to %zu (the longest series of %s)", season, longest,
                        train->source);
    for (size_t t = 0; t < test->n_series; t++)
        if (fc_dataset_find(train, test->ids[t]) < 0)
            return fc_error(FC_ERR_INVALID, "%s: series '%s' is not in the training file %s", test->source,
                            test->ids[t], train->source);
    return FC_OK;
}

/* The forecasts fc (n_series of train, h, fc_forecast_width) against the
 * test rows, next to seasonal naive; f gives the horizon, the time axis
 * and the point column (a quantile loss's median, a distribution's mean). */
static fc_status score(const fc_forecaster *f, const fc_dataset *train, const fc_dataset *test, size_t season,
                       const float *fc, fc_eval_result *r) {
    size_t H = f->model->cfg.h, used = 0;
    float *naive = fc_malloc(H * sizeof(float), "naive");
    if (!naive) return FC_ERR_MEMORY;
    fc_metrics mm, mn;
    fc_metrics_reset(&mm);
    fc_metrics_reset(&mn);
    for (size_t t = 0; t < test->n_series; t++) {
        size_t s = (size_t)fc_dataset_find(train, test->ids[t]);
        double scale = fc_seasonal_scale(train, s, season);
        fc_seasonal_naive(train, s, season, H, naive);
        score_series(f, train, s, test, t, fc + s * H * fc_forecast_width(f), naive, &mm, &mn, &used);
        fc_metrics_end_series(&mm, scale);
        fc_metrics_end_series(&mn, scale);
    }
    free(naive);
    if (mm.points == 0)
        return fc_error(FC_ERR_INVALID, "%s: no observed test point falls in the %zu steps after the training data",
                        test->source, H);
    r->model = fc_metrics_values(&mm);
    r->naive = fc_metrics_values(&mn);
    r->season = season;
    r->test_rows_outside = test->n_rows - used;
    return FC_OK;
}

fc_status fc_evaluate(fc_forecaster *f, const fc_dataset *train, const fc_dataset *test, size_t season,
                      fc_eval_result *r) {
    FC_TRY(check_inputs(train, test, season));
    size_t N = train->n_series ? train->n_series : 1;
    float *fc = fc_malloc(N * f->model->cfg.h * fc_forecast_width(f) * sizeof(float), "forecasts");
    fc_status st = fc ? fc_predict(f, train, fc) : FC_ERR_MEMORY;
    if (st == FC_OK) st = score(f, train, test, season, fc, r);
    free(fc);
    return st;
}

fc_status fc_evaluate_ensemble(fc_ensemble *e, const fc_dataset *train, const fc_dataset *test, size_t season,
                               fc_eval_result *r) {
    FC_TRY(check_inputs(train, test, season));
    const fc_forecaster *first = &e->members[0];
    float *fc = fc_malloc((train->n_series ? train->n_series : 1) * first->model->cfg.h * sizeof(float), "forecasts");
    fc_status st = fc ? fc_ensemble_predict(e, train, fc) : FC_ERR_MEMORY;
    if (st == FC_OK) st = score(first, train, test, season, fc, r);
    free(fc);
    return st;
}
