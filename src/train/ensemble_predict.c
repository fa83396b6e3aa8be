/* An ensemble's forecast (see ensemble.h): every member forecasts from its
 * own last input_size points, then the members are combined per point. */
#include <stdlib.h>

#include "core/error.h"
#include "train/ensemble.h"

fc_status fc_ensemble_predict(fc_ensemble *e, const fc_dataset *ds, float *out) {
    size_t points = ds->n_series * e->members[0].model->cfg.h;
    if (!points) return FC_OK;
    /* one block for all the members' forecasts: a member at a time would
     * need them all kept anyway for the per-point median */
    float *all = fc_malloc(e->n * points * sizeof *all, "the members' forecasts");
    if (!all) return FC_ERR_MEMORY;
    const float *values[FC_ENSEMBLE_MAX_MEMBERS];
    fc_status st = FC_OK;
    for (size_t k = 0; st == FC_OK && k < e->n; k++) {
        values[k] = all + k * points;
        st = fc_predict(&e->members[k], ds, all + k * points);
    }
    if (st == FC_OK) fc_ensemble_combine(e->combine, values, e->n, points, out);
    free(all);
    return st;
}
