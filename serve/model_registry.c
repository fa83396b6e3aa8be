/* The served models (see model_registry.h): a list sorted by name under one
 * mutex, each model reference-counted. */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/error.h"
#include "api/serve_engine.h"
#include "model_registry.h"

#define MODEL_SUFFIX ".safetensors"

struct fc_model_registry {
    pthread_mutex_t lock;
    fc_backend *be;
    size_t batch;               /* series each model has room for */
    fc_registry_guard guard;    /* where a model's last reference frees it */
    void *guard_ctx;
    fc_served_model **models;   /* sorted by name */
    size_t n, cap;
};

int fc_model_name_valid(const char *name) {
    size_t n = strlen(name);
    if (n == 0 || n >= FC_MODEL_NAME_MAX || name[0] == '.') return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '_' || c == '-';
        if (!ok) return 0;
    }
    return 1;
}

/* What a directory entry is: a model file (its name in name), another
 * file, or a model file whose name no request could ask for. */
typedef enum { ENTRY_OTHER, ENTRY_MODEL, ENTRY_BAD_NAME } entry_kind;

static entry_kind name_of_file(const char *file, char *name) {
    size_t n = strlen(file), s = strlen(MODEL_SUFFIX);
    if (n <= s || strcmp(file + n - s, MODEL_SUFFIX) != 0) return ENTRY_OTHER;
    if (n - s >= FC_MODEL_NAME_MAX) return ENTRY_BAD_NAME;
    memcpy(name, file, n - s);
    name[n - s] = '\0';
    return fc_model_name_valid(name) ? ENTRY_MODEL : ENTRY_BAD_NAME;
}

/* Why a model file is not served when its name is not a model name: left
 * out without a word, it would look served until a request got 404. */
static void bad_name_message(const char *file, char *msg, size_t cap) {
    snprintf(msg, cap, "%s not served: its name is not a model name (1 to %d letters, digits, '.', '_' or '-', not "
             "starting with '.'): rename the file", file, FC_MODEL_NAME_MAX - 1);
}

/* dir/file loaded as name (a model or an ensemble file). */
static fc_status model_load(fc_backend *be, size_t batch, const char *dir, const char *file, const char *name,
                            fc_served_model **out) {
    *out = NULL;
    size_t len = strlen(dir) + strlen(file) + 2;
    char *path = fc_malloc(len, "a model path");
    if (!path) return FC_ERR_MEMORY;
    snprintf(path, len, "%s/%s", dir, file);
    fc_status st = fc_served_model_load(be, batch, path, name, out);
    free(path);
    return st;
}

static int by_name(const void *a, const void *b) {
    return strcmp((*(fc_served_model *const *)a)->name, (*(fc_served_model *const *)b)->name);
}

static fc_status add_model(fc_model_registry *r, fc_served_model *m) {
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        fc_served_model **grown = realloc(r->models, cap * sizeof *grown);
        if (!grown) return fc_error(FC_ERR_MEMORY, "out of memory listing the models");
        r->models = grown;
        r->cap = cap;
    }
    r->models[r->n++] = m;
    qsort(r->models, r->n, sizeof *r->models, by_name);
    return FC_OK;
}

/* Every model file of dir; one that fails is reported and skipped. */
static fc_status load_dir(fc_model_registry *r, const char *dir) {
    DIR *d = opendir(dir);
    if (!d) return fc_error(FC_ERR_IO, "--models %s: cannot read the directory", dir);
    struct dirent *e;
    char name[FC_MODEL_NAME_MAX];
    fc_status st = FC_OK;
    while (st == FC_OK && (e = readdir(d))) {
        entry_kind kind = name_of_file(e->d_name, name);
        if (kind == ENTRY_BAD_NAME) {
            char msg[FC_MODEL_NAME_MAX + 512];
            bad_name_message(e->d_name, msg, sizeof msg);
            fprintf(stderr, "fcast serve: warning: %s/%s\n", dir, msg);
        }
        if (kind != ENTRY_MODEL) continue;
        fc_served_model *m;
        if (model_load(r->be, r->batch, dir, e->d_name, name, &m) != FC_OK) {
            fprintf(stderr, "fcast serve: warning: %s/%s not served: %s\n", dir, e->d_name, fc_last_error());
            continue;
        }
        st = add_model(r, m);
        if (st != FC_OK) fc_served_model_free(m);
    }
    closedir(d);
    return st;
}

fc_status fc_registry_open(const char *dir, fc_backend *be, size_t batch, fc_model_registry **out) {
    *out = NULL;
    fc_model_registry *r = fc_calloc(1, sizeof *r, "the model registry");
    if (!r) return FC_ERR_MEMORY;
    pthread_mutex_init(&r->lock, NULL);
    r->be = be;
    r->batch = batch;
    fc_status st = load_dir(r, dir);
    if (st == FC_OK && r->n == 0)
        st = fc_error(FC_ERR_INVALID, "--models %s: no model could be loaded (model files end in %s)", dir,
                      MODEL_SUFFIX);
    if (st != FC_OK) {
        fc_registry_close(r);
        return st;
    }
    *out = r;
    return FC_OK;
}

void fc_registry_close(fc_model_registry *r) {
    if (!r) return;
    for (size_t i = 0; i < r->n; i++) fc_served_model_free(r->models[i]);
    free(r->models);
    pthread_mutex_destroy(&r->lock);
    free(r);
}

/* Index of the model called name, or -1 (binary search: sorted by name). */
static long index_of(const fc_model_registry *r, const char *name) {
    size_t lo = 0, hi = r->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r->models[mid]->name, name);
        if (c == 0) return (long)mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

static fc_served_model *find(fc_model_registry *r, const char *name) {
    long i = index_of(r, name);
    return i < 0 ? NULL : r->models[i];
}

fc_served_model *fc_registry_acquire(fc_model_registry *r, const char *name) {
    pthread_mutex_lock(&r->lock);
    fc_served_model *m = find(r, name);
    if (m) m->refs++;
    pthread_mutex_unlock(&r->lock);
    return m;
}

static void model_free_arg(void *m) { fc_served_model_free(m); }

void fc_registry_set_guard(fc_model_registry *r, fc_registry_guard guard, void *ctx) {
    r->guard = guard;
    r->guard_ctx = ctx;
}

/* The last reference frees the model's buffers, which are the backend's:
 * under the guard, so never while the executor computes on that backend. */
void fc_registry_release(fc_model_registry *r, fc_served_model *m) {
    pthread_mutex_lock(&r->lock);
    int last = --m->refs == 0;
    pthread_mutex_unlock(&r->lock);
    if (!last) return;
    if (r->guard) r->guard(r->guard_ctx, model_free_arg, m);
    else fc_served_model_free(m);
}

size_t fc_registry_count(fc_model_registry *r) {
    pthread_mutex_lock(&r->lock);
    size_t n = r->n;
    pthread_mutex_unlock(&r->lock);
    return n;
}

int fc_registry_name_at(fc_model_registry *r, size_t i, char *buf, size_t cap) {
    pthread_mutex_lock(&r->lock);
    int ok = i < r->n;
    if (ok) snprintf(buf, cap, "%s", r->models[i]->name);
    pthread_mutex_unlock(&r->lock);
    return ok;
}

/* ---- lifecycle: load, unload, rescan ---- */

/* Puts m in the list in place of the model of its name, if any; returns
 * the model it replaced (its registry reference now the caller's). */
static fc_served_model *swap_in(fc_model_registry *r, fc_served_model *m, fc_status *st) {
    pthread_mutex_lock(&r->lock);
    long i = index_of(r, m->name);
    fc_served_model *old = NULL;
    *st = FC_OK;
    if (i >= 0) {
        old = r->models[i];
        r->models[i] = m;
    } else {
        *st = add_model(r, m);
    }
    pthread_mutex_unlock(&r->lock);
    return old;
}

fc_status fc_registry_load(fc_model_registry *r, const char *dir, const char *name) {
    if (!fc_model_name_valid(name)) return fc_error(FC_ERR_INVALID, "'%s' is not a model name", name);
    char file[FC_MODEL_NAME_MAX + sizeof MODEL_SUFFIX];
    snprintf(file, sizeof file, "%s%s", name, MODEL_SUFFIX);
    size_t len = strlen(dir) + strlen(file) + 2;
    char *path = fc_malloc(len, "a model path");
    if (!path) return FC_ERR_MEMORY;
    snprintf(path, len, "%s/%s", dir, file);
    struct stat st;
    int exists = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    free(path);
    if (!exists) return fc_error(FC_ERR_IO, "no model file %s in %s", file, dir);
    fc_served_model *m;
    FC_TRY(model_load(r->be, r->batch, dir, file, name, &m));
    fc_status added;
    fc_served_model *old = swap_in(r, m, &added);
    if (added != FC_OK) {
        fc_served_model_free(m);
        return added;
    }
    if (old) fc_registry_release(r, old);
    return FC_OK;
}

int fc_registry_unload(fc_model_registry *r, const char *name) {
    pthread_mutex_lock(&r->lock);
    long i = index_of(r, name);
    fc_served_model *m = i >= 0 ? r->models[i] : NULL;
    if (m) {
        memmove(r->models + i, r->models + i + 1, (r->n - (size_t)i - 1) * sizeof *r->models);
        r->n--;
    }
    pthread_mutex_unlock(&r->lock);
    if (m) fc_registry_release(r, m);
    return m != NULL;
}

/* Whether the file of a listed model changed since it was loaded. */
static int changed(fc_model_registry *r, const char *name, const struct stat *st) {
    pthread_mutex_lock(&r->lock);
    fc_served_model *m = find(r, name);
    long long mtime = (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
    int c = !m || m->file_bytes != (size_t)st->st_size || m->mtime_ns != mtime;
    pthread_mutex_unlock(&r->lock);
    return c;
}

/* Position of name among the names listed before the rescan (sorted), or -1. */
static long listed_before(char *const *before, size_t n, const char *name) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(before[mid] ? before[mid] : "", name);
        if (c == 0) return (long)mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

/* Loads the new and changed files of dir; marks in seen[] the models
 * listed before the rescan whose file is still there. */
static void rescan_files(fc_model_registry *r, const char *dir, char *const *before, char *seen, size_t n_seen,
                         fc_rescan_report report, void *ctx) {
    DIR *d = opendir(dir);
    if (!d) {
        report(ctx, "", FC_RESCAN_FAILED, "cannot read the models directory");
        memset(seen, 1, n_seen);   /* unload nothing on a directory that cannot be read */
        return;
    }
    struct dirent *e;
    char name[FC_MODEL_NAME_MAX];
    while ((e = readdir(d))) {
        entry_kind kind = name_of_file(e->d_name, name);
        if (kind == ENTRY_BAD_NAME) {
            char msg[FC_MODEL_NAME_MAX + 512];
            bad_name_message(e->d_name, msg, sizeof msg);
            report(ctx, "", FC_RESCAN_FAILED, msg);
        }
        if (kind != ENTRY_MODEL) continue;
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0) continue;
        long i = listed_before(before, n_seen, name);
        if (i >= 0) seen[i] = 1;
        if (!changed(r, name, &st)) continue;
        if (fc_registry_load(r, dir, name) == FC_OK) report(ctx, name, FC_RESCAN_LOADED, NULL);
        else report(ctx, name, FC_RESCAN_FAILED, fc_last_error());
    }
    closedir(d);
}

void fc_registry_rescan(fc_model_registry *r, const char *dir, fc_rescan_report report, void *ctx) {
    size_t n = fc_registry_count(r);
    char **before = calloc(n ? n : 1, sizeof *before), *seen = calloc(n ? n : 1, 1);
    for (size_t i = 0; before && i < n; i++) {
        before[i] = malloc(FC_MODEL_NAME_MAX);
        if (before[i] && !fc_registry_name_at(r, i, before[i], FC_MODEL_NAME_MAX)) before[i][0] = '\0';
    }
    if (!before || !seen) {
        report(ctx, "", FC_RESCAN_FAILED, "out of memory");
        n = 0;
    } else {
        rescan_files(r, dir, before, seen, n, report, ctx);
    }
    /* The models listed before whose file was not seen: gone from the
     * directory (unloaded by name: loads during the scan moved the list). */
    for (size_t i = 0; i < n; i++) {
        if (seen[i] || !before[i] || !before[i][0]) continue;
        if (fc_registry_unload(r, before[i])) report(ctx, before[i], FC_RESCAN_UNLOADED, NULL);
    }
    for (size_t i = 0; before && i < n; i++) free(before[i]);
    free(before);
    free(seen);
}
