/* What the user of a forecast should know about its inputs, said on
 * stderr (api_predict.h): series shorter than a model's input window, and
 * series with nothing observed in it. */
#include <stdio.h>

#include "api/api_predict.h"

/* A series with nothing observed in its input window gets the model's answer
 * to zeros: plausible-looking numbers with no basis. Say so. */
static void warn_unobserved(const fc_dataset *ds, size_t L) {
    size_t count = 0, first = 0, since = 0;
    for (size_t i = 0; i < ds->n_series; i++) {
        size_t end = ds->offsets[i + 1], start = end - ds->offsets[i] > L ? end - L : ds->offsets[i], seen = 0;
        for (size_t r = start; r < end; r++) seen += ds->mask[r];
        if (!seen && !count++) first = i;
        fc_dataset_release_every(ds, &since, 1, FC_RELEASE_SERIES);   /* as the memory plan counts */
    }
    fc_dataset_release_pages(ds);
    if (count)
        fprintf(stderr, "fcast predict: warning: %zu series (the first is '%s') have no observed value in their "
                "last %zu points; their forecasts carry no information\n", count, ds->ids[first], L);
}

/* A series shorter than the input window is forecast from a window whose
 * front is padded with missing values: fewer points than the model was
 * trained on, which the user should know. One line, the first few ids. */
static void warn_short(const fc_dataset *ds, size_t L) {
    enum { SHOWN = 3 };
    size_t count = 0, used = 0;
    char ids[256] = "";
    for (size_t i = 0; i < ds->n_series; i++) {
        if (fc_dataset_len(ds, i) >= L) continue;
        if (count++ < SHOWN && used < sizeof ids)
            used += (size_t)snprintf(ids + used, sizeof ids - used, "%s'%s' (%zu)", count > 1 ? ", " : "",
                                     ds->ids[i], fc_dataset_len(ds, i));
    }
    if (count)
        fprintf(stderr, "fcast predict: warning: %zu series %s shorter than the input window of %zu points (%s%s); "
                "the missing points are padded and masked, so these forecasts rest on less history\n", count,
                count == 1 ? "is" : "are", L, ids, count > SHOWN ? ", ..." : "");
}

void fc_predict_warn_inputs(const fc_predict_run *r, const fc_dataset *ds) {
    for (size_t i = 0; i < r->n_models; i++) {
        size_t L = r->m[i].f.model->cfg.input_size, seen = 0;
        for (size_t j = 0; j < i; j++) seen |= r->m[j].f.model->cfg.input_size == L;
        if (seen) continue;
        warn_short(ds, L);
        warn_unobserved(ds, L);
    }
}
