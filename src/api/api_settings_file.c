/* fcast_settings_file (fcast.h): io/config_yaml.c's reading of a settings
 * file, with its entries viewed as the public fcast_setting. */
#include <stdlib.h>

#include "api/api.h"
#include "core/error.h"
#include "io/config_yaml.h"

struct fcast_settings_file {
    fc_config c;
    fcast_setting *view;   /* c.entries, as the header shows them */
};

fc_status fcast_settings_read(const char *path, fcast_settings_file **out) {
    if (!out) return fc_error(FC_ERR_INVALID, "fcast_settings_read: out is NULL");
    *out = NULL;
    fcast_settings_file *f = calloc(1, sizeof *f);
    if (!f) return fc_error(FC_ERR_MEMORY, "fcast_settings_read: out of memory");
    fc_status st = fc_config_load(path, &f->c);
    if (st == FC_OK && f->c.n && !(f->view = calloc(f->c.n, sizeof *f->view)))
        st = fc_error(FC_ERR_MEMORY, "%s: out of memory", path);
    for (size_t i = 0; st == FC_OK && i < f->c.n; i++) {
        const fc_config_entry *e = &f->c.entries[i];
        f->view[i] = (fcast_setting){e->key, e->value, e->line, e->is_null};
    }
    if (st != FC_OK) {
        fcast_settings_free(f);
        return st;
    }
    *out = f;
    return FC_OK;
}

size_t fcast_settings_count(const fcast_settings_file *f) { return f ? f->c.n : 0; }

const fcast_setting *fcast_settings_at(const fcast_settings_file *f, size_t i) {
    return f && i < f->c.n ? &f->view[i] : NULL;
}

const char *fcast_settings_path(const fcast_settings_file *f) { return f ? f->c.path : NULL; }

void fcast_settings_free(fcast_settings_file *f) {
    if (!f) return;
    fc_config_free(&f->c);
    free(f->view);
    free(f);
}
