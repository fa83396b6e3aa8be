/* Atomic file replacement (see atomic_file.h): temp file, fsync, rename,
 * fsync of the directory. POSIX only. */
#include "io/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"

fc_status fc_fwrite_all(FILE *f, const void *data, size_t bytes, const char *what) {
    if (bytes == 0) return FC_OK;
    errno = 0;
    if (fwrite(data, 1, bytes, f) != bytes)
        return fc_error(FC_ERR_IO, "cannot write %s (%zu bytes): %s", what, bytes,
                        errno ? strerror(errno) : "short write");
    return FC_OK;
}

/* path + ".tmp.<pid>": the pid keeps two processes writing the same target
 * from sharing a temporary. A stale temporary left by a crashed process that
 * had the same pid (common in containers, where pids restart at 1) is simply
 * truncated and reused, hence O_TRUNC rather than O_EXCL. */
static char *temp_path_for(const char *path) {
    size_t cap = strlen(path) + 32;
    char *tmp = fc_malloc(cap, "temporary file name");
    if (tmp) snprintf(tmp, cap, "%s.tmp.%ld", path, (long)getpid());
    return tmp;
}

/* Directory holding `path`, for the fsync that makes the rename durable. */
static char *directory_of(const char *path) {
    const char *slash = strrchr(path, '/');
    size_t len = slash ? (size_t)(slash - path) : 0;
    char *dir = fc_malloc(len + 2, "directory name");
    if (!dir) return NULL;
    if (!slash) strcpy(dir, ".");
    else if (len == 0) strcpy(dir, "/");
    else { memcpy(dir, path, len); dir[len] = '\0'; }
    return dir;
}

static fc_status open_temp(const char *path, const char *tmp, FILE **out) {
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return fc_error(FC_ERR_IO, "%s: cannot create temporary file '%s': %s", path, tmp,
                        strerror(errno));
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) (void)fchmod(fd, st.st_mode & 07777);
    *out = fdopen(fd, "wb");
    if (!*out) {
        int e = errno;
        close(fd);
        return fc_error(FC_ERR_IO, "%s: cannot open temporary file '%s': %s", path, tmp,
                        strerror(e));
    }
    return FC_OK;
}

/* Flushes stdio's buffer and the kernel's page cache to the disk, then closes.
 * Closes `f` whatever happens. */
static fc_status sync_and_close(FILE *f, const char *path) {
    int failed = ferror(f) || fflush(f) != 0 || fsync(fileno(f)) != 0;
    int e = errno;
    if (fclose(f) != 0 && !failed) { failed = 1; e = errno; }
    if (failed)
        return fc_error(FC_ERR_IO, "%s: cannot write: %s", path,
                        e ? strerror(e) : "stream error");
    return FC_OK;
}

/* Makes the rename durable. Some file systems cannot fsync a directory
 * (EINVAL); there is nothing more to do on those. */
static fc_status sync_directory(const char *path) {
    char *dir = directory_of(path);
    if (!dir) return FC_ERR_MEMORY;
    fc_status s = FC_OK;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL))
        s = fc_error(FC_ERR_IO, "%s: written, but directory '%s' could not be synced: %s",
                     path, dir, strerror(errno));
    if (fd >= 0) close(fd);
    free(dir);
    return s;
}

fc_status fc_write_file_atomic(const char *path, fc_write_body_fn write_body, void *ctx) {
    char *tmp = temp_path_for(path);
    if (!tmp) return FC_ERR_MEMORY;
    FILE *f = NULL;
    fc_status s = open_temp(path, tmp, &f);
    if (s != FC_OK) { free(tmp); return s; }

    errno = 0;
    s = write_body(f, ctx);
    if (s != FC_OK) {
        fc_error_wrap(s, "%s: ", path);
        fclose(f);
    } else {
        s = sync_and_close(f, path);
    }
    if (s == FC_OK && rename(tmp, path) != 0)
        s = fc_error(FC_ERR_IO, "%s: cannot rename '%s' over it: %s", path, tmp,
                     strerror(errno));
    if (s != FC_OK) {
        unlink(tmp);
        free(tmp);
        return s;
    }
    free(tmp);
    return sync_directory(path);
}
