/* A served model: a model file or an ensemble file (see served_model.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "served_model.h"

void fc_served_model_free(fc_served_model *m) {
    if (!m) return;
    fc_ensemble_free(&m->set);
    free(m->path);
    free(m);
}

/* A model file as an ensemble of one: the rest of the server then walks
 * the members alike whatever the file held. */
static fc_status load_model_file(const char *path, fc_backend *be, fc_ensemble *set) {
    set->members = fc_calloc(1, sizeof *set->members, "a served model");
    if (!set->members) return FC_ERR_MEMORY;
    FC_TRY(fc_forecaster_load(path, be, &set->members[0]));
    set->n = 1;
    return FC_OK;
}

/* Requests carry y alone so far: a member reading other inputs is refused. */
static fc_status refuse_exog(const fc_served_model *m) {
    for (size_t k = 0; k < m->set.n; k++)
        if (fc_model_has_exog(&m->set.members[k].model->cfg))
            return fc_error(FC_ERR_INVALID, "%s%s reads exogenous inputs, which fcast serve's requests cannot carry "
                            "yet: forecast it with fcast predict --futr-data / --stat-exog-file", m->path,
                            m->ensemble ? " (a member)" : "");
    return FC_OK;
}

fc_status fc_served_model_load(fc_backend *be, size_t batch, const char *path, const char *name,
                               fc_served_model **out) {
    *out = NULL;
    fc_served_model *m = fc_calloc(1, sizeof *m, "a served model");
    if (!m) return FC_ERR_MEMORY;
    snprintf(m->name, sizeof m->name, "%s", name);
    if (!(m->path = strdup(path))) {
        free(m);
        return fc_error(FC_ERR_MEMORY, "out of memory for a model path");
    }
    struct stat st;
    if (stat(path, &st) == 0) {
        m->file_bytes = (size_t)st.st_size;
        m->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    }
    m->ensemble = fc_ensemble_file_is(path);
    fc_status s = m->ensemble ? fc_ensemble_load(path, be, &m->set) : load_model_file(path, be, &m->set);
    if (s == FC_OK) s = refuse_exog(m);
    for (size_t k = 0; s == FC_OK && k < m->set.n; k++)
        s = fc_model_reserve(m->set.members[k].model, fc_inference_chunk(0, batch), 0);
    if (s != FC_OK) {
        fc_served_model_free(m);
        return s;
    }
    m->refs = 1;   /* the registry's */
    *out = m;
    return FC_OK;
}

size_t fc_served_input_size(const fc_served_model *m) {
    size_t L = 0;
    for (size_t k = 0; k < m->set.n; k++)
        if (m->set.members[k].model->cfg.input_size > L) L = m->set.members[k].model->cfg.input_size;
    return L;
}

size_t fc_served_outputs(const fc_served_model *m) {
    return m->ensemble ? 1 : fc_forecast_width(fc_served_first(m));
}

fc_status fc_served_predict(fc_served_model *m, const fc_dataset *ds, float *out) {
    return m->ensemble ? fc_ensemble_predict(&m->set, ds, out) : fc_predict(&m->set.members[0], ds, out);
}

fc_status fc_served_columns(const fc_served_model *m, const double *levels, size_t n_levels, fc_column_set *out) {
    const fc_forecaster *f = fc_served_first(m);
    if (!m->ensemble) {
        FC_TRY(fc_columns_of(f, fc_model_kind_name(f->model->cfg.kind), levels, n_levels, out));
        /* a batch forecasts every request's series at the model's own quantiles */
        if (out->draws_levels || out->iq_levels)
            return fc_error(FC_ERR_INVALID, "level: model %s (loss %s) serves the quantiles it was trained to draw; "
                            "ask without level, or draw at other levels with fcast predict --level", m->name,
                            fc_loss_name(f->loss));
        return FC_OK;
    }
    if (n_levels)
        return fc_error(FC_ERR_INVALID, "level: model %s is an ensemble (fcast ensemble): its combined forecast has "
                        "no intervals", m->name);
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "Ensemble");   /* fcast predict's column for an ensemble file */
    out->n_cols = 1;
    out->suffix_text[0][0] = '\0';
    out->suffixes[0] = out->suffix_text[0];
    return FC_OK;
}
