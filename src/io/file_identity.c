/* Which file a path names (see file_identity.h). realpath() answers for
 * what exists; the rest is resolved here, component by component from the
 * end, because realpath() fails on a file that is yet to be written. */
#include "io/file_identity.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

enum { LINK_DEPTH_MAX = 40 };   /* as the kernel's ELOOP limit */

static char *join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (!p) return NULL;
    memcpy(p, dir, a);
    size_t o = a;
    if (!a || dir[a - 1] != '/') p[o++] = '/';
    memcpy(p + o, name, b + 1);
    return p;
}

/* path without trailing slashes ("/" stays "/"), malloc'ed. */
static char *trimmed(const char *path) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    char *p = malloc(n + 1);
    if (p) { memcpy(p, path, n); p[n] = '\0'; }
    return p;
}

/* The canonical directory above an absolute canonical path, in place. */
static void drop_last(char *canonical) {
    char *slash = strrchr(canonical, '/');
    if (slash == canonical) canonical[1] = '\0';
    else if (slash) *slash = '\0';
}

static char *canonical_of(const char *path, int depth);

/* A dangling symbolic link: the name its target would be created under. */
static char *through_link(const char *link, const char *dir, int depth) {
    char target[PATH_MAX];
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0 || depth >= LINK_DEPTH_MAX) return NULL;
    target[n] = '\0';
    if (target[0] == '/') return canonical_of(target, depth + 1);
    char *joined = join(dir, target);
    char *c = joined ? canonical_of(joined, depth + 1) : NULL;
    free(joined);
    return c;
}

/* A path realpath() cannot resolve: its directory's canonical name, then
 * the last component as a name, a ".", a ".." or a dangling link. */
static char *canonical_missing(const char *path, int depth) {
    char *p = trimmed(path);
    if (!p) return NULL;
    char *slash = strrchr(p, '/');
    const char *base = slash ? slash + 1 : p;
    char *dir = slash ? (slash == p ? strdup("/") : strndup(p, (size_t)(slash - p))) : strdup(".");
    char *cdir = dir ? canonical_of(dir, depth) : NULL;
    char *c = NULL;
    struct stat st;
    if (!cdir) c = NULL;
    else if (!*base || !strcmp(base, ".")) { c = cdir; cdir = NULL; }
    else if (!strcmp(base, "..")) { drop_last(cdir); c = cdir; cdir = NULL; }
    else if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) c = through_link(p, cdir, depth);
    else c = join(cdir, base);
    if (!c && cdir && depth >= LINK_DEPTH_MAX) c = join(cdir, base);   /* a loop: its name, as written */
    free(cdir);
    free(dir);
    free(p);
    return c;
}

/* A name no system call can take (ENAMETOOLONG), or a working directory
 * that is gone: as written, made absolute, since no file can be opened
 * under it to collide with. */
static char *as_written(const char *path) {
    if (path[0] == '/') return strdup(path);
    char cwd[PATH_MAX];
    return join(getcwd(cwd, sizeof cwd) ? cwd : "", path);
}

static char *canonical_of(const char *path, int depth) {
    if (strlen(path) >= PATH_MAX) return as_written(path);
    char *real = realpath(path, NULL);
    if (real) return real;
    if (!strcmp(path, ".") || !strcmp(path, "/")) return as_written(path);
    return canonical_missing(path, depth);
}

fc_status fc_file_id_of(const char *path, fc_file_id *id) {
    memset(id, 0, sizeof *id);
    struct stat st;
    if (stat(path, &st) == 0) {
        id->exists = 1;
        id->device = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
        id->dev = st.st_dev;
        id->ino = st.st_ino;
    }
    id->canonical = canonical_of(path, 0);
    return id->canonical ? FC_OK : fc_error(FC_ERR_MEMORY, "cannot resolve the path %s", path);
}

void fc_file_id_free(fc_file_id *id) {
    free(id->canonical);
    id->canonical = NULL;
}

int fc_file_id_same(const fc_file_id *a, const fc_file_id *b) {
    if (a->exists && b->exists) return a->dev == b->dev && a->ino == b->ino;
    if (a->exists != b->exists) return 0;   /* one file is there and the other not: two files */
    return !strcmp(a->canonical, b->canonical);
}
