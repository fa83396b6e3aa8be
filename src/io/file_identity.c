/* Which file a path names (see file_identity.h). realpath() answers for
 * what exists; the rest is resolved here, because realpath() fails on a
 * file that is yet to be written: one walk from the start, a component at
 * a time (lstat), links followed as the kernel would (dangling ones too),
 * and past the first component that does not exist, the rest taken as
 * written (".", ".." applied lexically). One walk: resolving each missing
 * component from the end again (realpath on every prefix) took 22 s on a
 * path of 1,800 components. */
#include "io/file_identity.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

enum { LINK_DEPTH_MAX = 40 };   /* as the kernel's ELOOP limit */

/* A growing path: the canonical prefix resolved so far. */
typedef struct {
    char *p;
    size_t len, cap;
} path_buf;

static int buf_append(path_buf *b, const char *name, size_t n) {
    size_t need = b->len + 1 + n + 1;
    if (need > b->cap) {
        size_t cap = need * 2;
        char *q = realloc(b->p, cap);
        if (!q) return 0;
        b->p = q, b->cap = cap;
    }
    if (b->len == 0 || b->p[b->len - 1] != '/') b->p[b->len++] = '/';
    memcpy(b->p + b->len, name, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 1;
}

/* ".." on the canonical prefix: its last component off ("/" stays). */
static void buf_up(path_buf *b) {
    while (b->len > 1 && b->p[b->len - 1] != '/') b->len--;
    if (b->len > 1) b->len--;
    b->p[b->len] = '\0';
}

static int buf_set(path_buf *b, const char *text) {
    b->len = 0;
    if (!b->p) {
        b->cap = strlen(text) + 64;
        if (!(b->p = malloc(b->cap))) return 0;
    }
    b->p[0] = '\0';
    return *text ? buf_append(b, text + (*text == '/'), strlen(text + (*text == '/'))) : 1;
}

static char *resolve(const char *path, int depth);

/* A link at b (dangling, or past what realpath resolves): its target, then
 * what follows it in the path, walked again from the link's directory. */
static char *through_link(path_buf *b, size_t dir_len, const char *rest, int depth) {
    char target[PATH_MAX];
    ssize_t n = depth < LINK_DEPTH_MAX ? readlink(b->p, target, sizeof target - 1) : -1;
    if (n < 0) {   /* a loop (or a link gone meanwhile): its name, as written */
        if (*rest && !buf_append(b, rest, strlen(rest))) return NULL;
        char *r = b->p;
        b->p = NULL;
        return r;
    }
    target[n] = '\0';
    b->len = dir_len;   /* the link's directory ("/" at least) */
    b->p[dir_len] = '\0';
    size_t need = b->len + 1 + (size_t)n + 1 + strlen(rest) + 1;
    char *next = malloc(need);
    if (!next) return NULL;
    snprintf(next, need, "%s%s%s%s%s", target[0] == '/' ? "" : b->p, target[0] == '/' ? "" : "/", target,
             *rest ? "/" : "", rest);
    char *r = resolve(next, depth + 1);
    free(next);
    return r;
}

/* The walk from the start of an absolute path. */
static char *walk(const char *abs_path, int depth) {
    path_buf b = {0};
    if (!buf_set(&b, "/")) return NULL;
    int exists = 1;   /* every component so far is there */
    const char *p = abs_path;
    while (*p) {
        while (*p == '/') p++;
        size_t n = strcspn(p, "/");
        if (!n) break;
        const char *next = p + n;
        if (n == 1 && p[0] == '.') { p = next; continue; }
        if (n == 2 && p[0] == '.' && p[1] == '.') { buf_up(&b); p = next; continue; }
        size_t dir_len = b.len;
        if (!buf_append(&b, p, n)) { free(b.p); return NULL; }
        struct stat st;
        if (exists && lstat(b.p, &st) != 0) exists = 0;   /* from here on, as written */
        else if (exists && S_ISLNK(st.st_mode)) {
            while (*next == '/') next++;
            char *r = through_link(&b, dir_len, next, depth);
            free(b.p);
            return r;
        }
        p = next;
    }
    return b.p;
}

/* A name no system call can take (ENAMETOOLONG), or a working directory
 * that is gone: as written, made absolute, since no file can be opened
 * under it to collide with. */
static char *as_written(const char *path) {
    char cwd[PATH_MAX];
    const char *dir = path[0] == '/' ? "" : getcwd(cwd, sizeof cwd) ? cwd : "";
    size_t need = strlen(dir) + 1 + strlen(path) + 1;
    char *p = malloc(need);
    if (p) snprintf(p, need, "%s%s%s", dir, *dir ? "/" : "", path);
    return p;
}

static char *resolve(const char *path, int depth) {
    if (strlen(path) >= PATH_MAX) return as_written(path);
    char *real = realpath(path, NULL);
    if (real) return real;
    char *abs = as_written(path);
    char *r = abs ? walk(abs, depth) : NULL;
    free(abs);
    return r;
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
    id->canonical = resolve(path, 0);
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
