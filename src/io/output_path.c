/* Output path checks made before the work (see output_path.h). */
#include "io/output_path.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

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
