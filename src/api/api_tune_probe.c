/* The space against the caller's configurations (fcast_tune_probe): every
 * value a parameter can take at its ends goes through cb->config before
 * any training, so a misspelt choice fails now, naming its line. The first
 * valid configuration is kept: the search opens its device and data with
 * it. */
#include <stdio.h>
#include <string.h>

#include "api/api_tune.h"
#include "core/error.h"

fc_status fc_api_tune_config(const fcast_tune *t, const fcast_tune_callbacks *cb,
                             char text[][FC_TUNE_VALUE_MAX], fcast_config **out) {
    const char *keys[FC_TUNE_MAX_PARAMS], *values[FC_TUNE_MAX_PARAMS];
    for (size_t j = 0; j < t->space.n; j++) {
        keys[j] = t->space.params[j].name;
        values[j] = text[j];
    }
    *out = NULL;
    fc_status st = cb->config(cb->user, keys, values, t->space.n, out);
    if (st == FC_OK && !*out) return fc_error(FC_ERR_INVALID, "fcast_tune: the configuration callback gave none");
    if (st != FC_OK) fcast_config_free(*out);
    return st;
}

/* The texts a parameter can take at its ends: every choice, or both bounds. */
static size_t candidates(const fc_param *p, char out[][FC_TUNE_VALUE_MAX]) {
    if (p->kind == FC_PARAM_CHOICE) {
        for (size_t c = 0; c < p->n_choices; c++) snprintf(out[c], FC_TUNE_VALUE_MAX, "%s", p->choices[c]);
        return p->n_choices;
    }
    fc_param_text(p, p->low, out[0]);
    fc_param_text(p, p->high, out[1]);
    return 2;
}

/* One probe: FC_OK unless the callback stops the search; a configuration
 * it refuses as invalid is a trial's matter, remembered in case no
 * configuration of the space is valid. */
static fc_status probe(fcast_tune *t, const fcast_tune_callbacks *cb, char text[][FC_TUNE_VALUE_MAX]) {
    fcast_config *c = NULL;
    fc_status st = fc_api_tune_config(t, cb, text, &c);
    if (st == FC_ERR_INVALID && !t->first && !t->refusal) {
        t->refusal = st;
        snprintf(t->refusal_text, sizeof t->refusal_text, "%s", fc_last_error());
    }
    if (st == FC_OK && !t->first) t->first = c;
    else fcast_config_free(c);
    if (st != FC_OK && st != FC_ERR_INVALID) return st;   /* its message says why */
    fc_error_clear();
    return FC_OK;
}

/* st with the callback's reason said with the values it refused. */
static fc_status refused(fc_status st, const fcast_tune *t, const fc_param *p, const char *value) {
    char why[FC_ERROR_CAP];
    snprintf(why, sizeof why, "%s", fc_last_error());
    if (!p && fc_api_names_flags())   /* the CLI printed the reason above */
        return fc_error(st, "(the flags of the command line with the first value of each parameter of %s)",
                        t->space.path);
    if (!p) return fc_error(st, "%s (the first value of each parameter of %s)", why, t->space.path);
    if (fc_api_names_flags())
        return fc_error(st, "%s:%zu: %s: the value '%s' is refused (above)", t->space.path, p->line, p->name, value);
    return fc_error(st, "%s:%zu: %s: the value '%s' is refused: %s", t->space.path, p->line, p->name, value, why);
}

fc_status fc_api_tune_probe(fcast_tune *t, const fcast_tune_callbacks *cb) {
    char text[FC_TUNE_MAX_PARAMS][FC_TUNE_VALUE_MAX], cand[FC_TUNE_MAX_CHOICES][FC_TUNE_VALUE_MAX];
    for (size_t j = 0; j < t->space.n; j++) {
        candidates(&t->space.params[j], cand);
        memcpy(text[j], cand[0], sizeof text[j]);
    }
    fc_status st = probe(t, cb, text);
    if (st != FC_OK) return refused(st, t, NULL, NULL);
    for (size_t j = 0; j < t->space.n; j++) {
        char keep[FC_TUNE_VALUE_MAX];
        memcpy(keep, text[j], sizeof keep);
        size_t n = candidates(&t->space.params[j], cand);
        for (size_t c = 0; c < n; c++) {
            memcpy(text[j], cand[c], sizeof text[j]);
            if ((st = probe(t, cb, text)) != FC_OK) return refused(st, t, &t->space.params[j], cand[c]);
        }
        memcpy(text[j], keep, sizeof keep);
    }
    t->probed = 1;
    return FC_OK;
}

fc_status fcast_tune_probe(fcast_tune *t, const fcast_tune_callbacks *cb) {
    if (!t || !cb || !cb->config || !t->space.path)
        return fc_api_words(fc_error(FC_ERR_INVALID, "fcast_tune_probe: a search with its space read and a "
                                     "configuration callback are needed"));
    return fc_api_words(fc_api_tune_probe(t, cb));
}
