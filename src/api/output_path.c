/* Output path checks made before the work (see output_path.h). */
#include "api/output_path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "io/file_identity.h"

/* The directory part of `path` ("." when there is none), in `buf`. */
static const char *parent_of(const char *path, char *buf, size_t cap) {
    const char *slash = strrchr(path, '/');
    if (!slash) return ".";
    if (slash == path) return "/";
    size_t len = (size_t)(slash - path) < cap - 1 ? (size_t)(slash - path) : cap - 1;
    memcpy(buf, path, len);
    buf[len] = '\0';
    return buf;
}

/* A new file, or a replacement through a temporary, needs a directory that
 * exists and where files can be created. access() also sees a read-only
 * mount (EROFS), which permissions alone would not show. */
static fc_status check_directory(const char *flag, const char *path, const char *file) {
    char buf[4096];
    const char *dir = parent_of(file, buf, sizeof buf);
    struct stat st;
    if (stat(dir, &st) != 0)
        return fc_error(FC_ERR_IO, "%s %s: directory '%s' %s", flag, path, dir,
                        errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(st.st_mode)) return fc_error(FC_ERR_IO, "%s %s: '%s' is not a directory", flag, path, dir);
    if (access(dir, W_OK | X_OK) != 0)
        return fc_error(FC_ERR_IO, "%s %s: cannot create files in directory '%s': %s", flag, path, dir,
                        strerror(errno));
    return FC_OK;
}

static fc_status check_not_input(const char *flag, const char *path, const struct stat *out,
                                 const fc_input_path *inputs, size_t n_inputs) {
    for (size_t i = 0; i < n_inputs; i++) {
        struct stat in;
        if (!inputs[i].path || stat(inputs[i].path, &in) != 0) continue;   /* a missing input is its reader's error */
        if (in.st_dev == out->st_dev && in.st_ino == out->st_ino)
            return fc_error(FC_ERR_INVALID, "%s %s is the input file given to %s%s%s; choose another path", flag,
                            path, inputs[i].name, strcmp(inputs[i].path, path) ? " as " : "",
                            strcmp(inputs[i].path, path) ? inputs[i].path : "");
    }
    return FC_OK;
}

/* An existing output: what it resolves to decides how it will be written. */
static fc_status check_existing(const char *flag, const char *path, const fc_input_path *inputs, size_t n_inputs) {
    struct stat st;
    if (stat(path, &st) != 0)
        return fc_error(FC_ERR_IO, "%s %s: symbolic link whose target cannot be reached: %s", flag, path,
                        strerror(errno));
    FC_TRY(check_not_input(flag, path, &st, inputs, n_inputs));
    if (S_ISDIR(st.st_mode))
        return fc_error(FC_ERR_IO, "%s %s: is a directory; give a file name", flag, path);
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) {
        if (access(path, W_OK) != 0)
            return fc_error(FC_ERR_IO, "%s %s: cannot open for writing: %s", flag, path, strerror(errno));
        return FC_OK;
    }
    if (!S_ISREG(st.st_mode))
        return fc_error(FC_ERR_IO, "%s %s: is neither a regular file, a device nor a FIFO", flag, path);
    char *real = realpath(path, NULL);   /* the temporary goes next to the link's target */
    if (!real) return fc_error(FC_ERR_IO, "%s %s: %s", flag, path, strerror(errno));
    fc_status s = check_directory(flag, path, real);
    free(real);
    return s;
}

fc_status fc_output_check(const char *flag, const char *path, int allow_stdout, const fc_input_path *inputs,
                          size_t n_inputs) {
    if (!path) return FC_OK;
    if (!*path) return fc_error(FC_ERR_INVALID, "%s: expected a file name, got an empty string", flag);
    if (!strcmp(path, "-"))
        return allow_stdout ? FC_OK
                            : fc_error(FC_ERR_INVALID, "%s -: this output cannot go to standard output; give a "
                                       "file name", flag);
    struct stat st;
    if (lstat(path, &st) == 0) return check_existing(flag, path, inputs, n_inputs);
    if (errno != ENOENT) return fc_error(FC_ERR_IO, "%s %s: %s", flag, path, strerror(errno));
    return check_directory(flag, path, path);
}

/* ---- Every file of a command against every other ---- */

/* One file of the check: an entry, or one file of an entry's list. */
typedef struct {
    const fc_path_use *use;
    char *path;        /* malloc'ed */
    fc_file_id id;
    int is_stdout;     /* "-" as an output */
} path_item;

static fc_status add_item(path_item *items, size_t *n, const fc_path_use *u, const char *path, size_t len) {
    path_item *it = &items[*n];
    memset(it, 0, sizeof *it);
    it->use = u;
    it->path = strndup(path, len);
    if (!it->path) return fc_error(FC_ERR_MEMORY, "out of memory checking %s", u->name);
    (*n)++;   /* counted now, so free_items releases it whatever follows */
    it->is_stdout = u->role != FCAST_PATH_IN && !strcmp(it->path, "-");
    return it->is_stdout || !*it->path ? FC_OK : fc_file_id_of(it->path, &it->id);
}

/* An entry's files: its path, or each name of its comma-separated list. */
static fc_status add_use(path_item *items, size_t *n, const fc_path_use *u) {
    if (!u->list) return add_item(items, n, u, u->path, strlen(u->path));
    for (const char *p = u->path;; ) {
        size_t len = strcspn(p, ",");
        if (len) FC_TRY(add_item(items, n, u, p, len));
        if (!p[len]) return FC_OK;
        p += len + 1;
    }
}

static size_t item_bound(const fc_path_use *uses, size_t n) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!uses[i].path) continue;
        k++;
        if (uses[i].list)
            for (const char *p = uses[i].path; *p; p++) k += *p == ',';
    }
    return k;
}

static void free_items(path_item *items, size_t n) {
    for (size_t i = 0; i < n; i++) {
        fc_file_id_free(&items[i].id);
        free(items[i].path);
    }
    free(items);
}

static int may_share(const fc_path_use *a, const fc_path_use *b) {
    return a == b || (a->may_share && !strcmp(a->may_share, b->name)) ||
           (b->may_share && !strcmp(b->may_share, a->name));
}

static int collide(const path_item *a, const path_item *b) {
    if (a->use->role == FCAST_PATH_IN && b->use->role == FCAST_PATH_IN) return 0;   /* read twice: harmless */
    if (may_share(a->use, b->use) || !*a->path || !*b->path) return 0;
    if (a->is_stdout || b->is_stdout) return a->is_stdout && b->is_stdout;
    if (b->use->role == FCAST_PATH_IN && !strcmp(b->path, "-")) return 0;   /* no input reads standard input */
    if (a->use->role == FCAST_PATH_IN && !strcmp(a->path, "-")) return 0;
    if (a->id.device || b->id.device) return 0;
    return fc_file_id_same(&a->id, &b->id);
}

/* A path as a message shows it: a long one by its start and end, so two
 * of them leave room for the flags that name them (a message past the
 * error buffer loses its middle). */
static const char *shown(const char *path, char *buf, size_t cap) {
    size_t n = strlen(path);
    if (n <= 200) return path;
    snprintf(buf, cap, "%.60s[...]%s", path, path + n - 120);
    return buf;
}

/* out: the output; other: the input or earlier output it would destroy. */
static fc_status refuse(const path_item *out, const path_item *other) {
    int spelled_alike = !strcmp(out->path, other->path);
    char a[200], b[200];
    const char *po = shown(out->path, a, sizeof a), *pi = shown(other->path, b, sizeof b);
    if (out->is_stdout)
        return fc_error(FC_ERR_INVALID, "%s - and %s - both write to standard output; give one of them a file",
                        out->use->name, other->use->name);
    if (other->use->role == FCAST_PATH_IN)   /* "given to --data", "given as the first argument (--log)" */
        return fc_error(FC_ERR_INVALID, "%s %s is the input file given %s %s%s%s; choose another path", out->use->name,
                        po, other->use->name[0] == '-' || !strchr(other->use->name, ' ') ? "to" : "as",
                        other->use->name, spelled_alike ? "" : " as ", spelled_alike ? "" : pi);
    return fc_error(FC_ERR_INVALID, "%s %s is also written by %s%s%s; give each output a path of its own",
                    out->use->name, po, other->use->name, spelled_alike ? "" : " as ", spelled_alike ? "" : pi);
}

static fc_status check_pairs(const path_item *items, size_t n) {
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < j; i++) {
            if (!collide(&items[i], &items[j])) continue;
            int j_writes = items[j].use->role != FCAST_PATH_IN;
            return j_writes ? refuse(&items[j], &items[i]) : refuse(&items[i], &items[j]);
        }
    return FC_OK;
}

fc_status fc_paths_distinct(const fc_path_use *uses, size_t n) {
    size_t cap = item_bound(uses, n), k = 0;
    path_item *items = calloc(cap ? cap : 1, sizeof *items);
    if (!items) return fc_error(FC_ERR_MEMORY, "out of memory checking the paths of %zu files", cap);
    fc_status st = FC_OK;
    for (size_t i = 0; i < n && st == FC_OK; i++)
        if (uses[i].path) st = add_use(items, &k, &uses[i]);
    if (st == FC_OK) st = check_pairs(items, k);
    free_items(items, k);
    return st;
}

fc_status fc_paths_check(const fc_path_use *uses, size_t n) {
    FC_TRY(fc_paths_distinct(uses, n));
    for (size_t i = 0; i < n; i++)
        if (uses[i].role != FCAST_PATH_IN)
            FC_TRY(fc_output_check(uses[i].name, uses[i].path, uses[i].role == FCAST_PATH_OUT_STDOUT, NULL, 0));
    return FC_OK;
}
