/* Output files (see atomic_file.h): standard output, write-through for
 * devices and FIFOs, and temp + fsync + rename + directory fsync for regular
 * files. POSIX and Linux (fopencookie, getrandom). */
#include "io/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
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

/* ------------------------------------------------ the temporary in flight */

/* The name of the temporary being written, for fc_atomic_file_abandon. A
 * signal handler may read it at any moment, so the name is complete before
 * the flag is raised, and the flag is lowered before the name changes. */
static char live_temp[PATH_MAX + 64];
static volatile sig_atomic_t live_temp_set;

void fc_atomic_file_abandon(void) {
    if (!live_temp_set) return;
    live_temp_set = 0;
    unlink(live_temp);
}

static void live_temp_begin(const char *name) {
    live_temp_set = 0;
    atomic_signal_fence(memory_order_seq_cst);
    strcpy(live_temp, name);   /* the caller checked the length */
    atomic_signal_fence(memory_order_seq_cst);
    live_temp_set = 1;
}

static void live_temp_end(void) { live_temp_set = 0; }

/* ------------------------------------------------ a stream that keeps its error */

/* stdio forgets why a write failed (errno is long overwritten by the time a
 * body writer checks ferror), so the file is written through a cookie
 * stream that keeps the first errno: "No space left on device", not
 * "write error". */
typedef struct {
    int fd;
    int err;
} sink;

static ssize_t sink_write(void *cookie, const char *buf, size_t n) {
    sink *s = cookie;
    for (size_t done = 0; !s->err && done < n;) {
        ssize_t w = write(s->fd, buf + done, n - done);
        if (w > 0) done += (size_t)w;
        else if (w < 0 && errno == EINTR) continue;
        else s->err = w < 0 ? errno : EIO;
    }
    if (!s->err) return (ssize_t)n;
    errno = s->err;
    return -1;
}

/* Runs the body into `fd`, flushes, and (when `durable`) fsyncs. Does not
 * close `fd`. `label` names the output in messages. */
static fc_status write_stream(const char *label, int fd, int durable, fc_write_body_fn body, void *ctx) {
    sink k = {fd, 0};
    FILE *f = fopencookie(&k, "w", (cookie_io_functions_t){.write = sink_write});
    if (!f) return fc_error(FC_ERR_MEMORY, "%s: cannot open a stream: %s", label, strerror(errno));
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    fc_status s = body(f, ctx);
    int flushed = fflush(f) == 0 && !ferror(f);
    fclose(f);
    if (k.err) return fc_error(FC_ERR_IO, "%s: cannot write: %s", label, strerror(k.err));
    if (s != FC_OK) return fc_error_wrap(s, "%s: ", label);
    if (!flushed) return fc_error(FC_ERR_IO, "%s: cannot write: stream error", label);
    if (durable && fsync(fd) != 0) return fc_error(FC_ERR_IO, "%s: cannot write: %s", label, strerror(errno));
    return FC_OK;
}

/* ------------------------------------------------ standard output, devices, FIFOs */

static fc_status write_stdout(fc_write_body_fn body, void *ctx) {
    if (fflush(stdout) != 0)
        return fc_error(FC_ERR_IO, "standard output: cannot write: %s", strerror(errno));
    return write_stream("standard output", STDOUT_FILENO, 0, body, ctx);
}

/* A FIFO is opened non-blocking first: with no reader that fails at once
 * (ENXIO) instead of waiting forever; the writes themselves then block as
 * usual. */
static fc_status write_through(const char *path, const char *target, int fifo, fc_write_body_fn body, void *ctx) {
    int fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC | (fifo ? O_NONBLOCK : 0));
    if (fd < 0 && fifo && errno == ENXIO)
        return fc_error(FC_ERR_IO, "%s: is a FIFO with no reader (start the reader first)", path);
    if (fd < 0) return fc_error(FC_ERR_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    struct stat st;
    fc_status s = FC_OK;
    if (fstat(fd, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))   /* swapped since we looked */
        s = fc_error(FC_ERR_IO, "%s: changed while it was being opened; not written", path);
    if (s == FC_OK && fifo && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
        s = fc_error(FC_ERR_IO, "%s: %s", path, strerror(errno));
    if (s == FC_OK) s = write_stream(path, fd, 0, body, ctx);
    close(fd);
    return s;
}

/* ------------------------------------------------ regular files */

/* Directory holding `path`, for the temporary and the fsync that makes the
 * rename durable. */
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

/* Six random letters or digits: getrandom, or the clock and pid where it is
 * unavailable (O_EXCL keeps even a guessable name safe; randomness only
 * keeps a planted file from making every attempt fail). */
static void random_suffix(char out[7]) {
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    static unsigned counter;
    unsigned char r[6];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        uint64_t x = (uint64_t)t.tv_nsec * 2654435761u ^ (uint64_t)getpid() << 20 ^ ++counter * 40503u;
        for (int i = 0; i < 6; i++, x >>= 8) r[i] = (unsigned char)x;
    }
    for (int i = 0; i < 6; i++) out[i] = abc[r[i] % (sizeof abc - 1)];
    out[6] = '\0';
}

/* Creates ".<name>.tmp.XXXXXX" next to `target`, never following or reusing
 * anything already there (O_EXCL | O_NOFOLLOW): a symlink planted at the
 * name cannot redirect the write. Mode 0666 less the umask, as open(2)
 * would give the file itself. Sets *tmp (caller frees) and the live name. */
static fc_status create_temp(const char *path, const char *target, char **tmp, int *fd) {
    *fd = -1;
    char *dir = directory_of(target);
    if (!dir) return FC_ERR_MEMORY;
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    size_t cap = strlen(dir) + strlen(base) + 16;
    *tmp = cap < sizeof live_temp ? fc_malloc(cap, "temporary file name") : NULL;
    if (!*tmp) {
        free(dir);
        return cap < sizeof live_temp ? FC_ERR_MEMORY : fc_error(FC_ERR_IO, "%s: %s", path, strerror(ENAMETOOLONG));
    }
    for (int attempt = 0; attempt < 100 && *fd < 0; attempt++) {
        char suffix[7];
        random_suffix(suffix);
        snprintf(*tmp, cap, "%s/.%s.tmp.%s", dir, base, suffix);
        live_temp_begin(*tmp);
        *fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (*fd < 0) live_temp_end();
        if (*fd < 0 && errno != EEXIST) break;
    }
    fc_status s = FC_OK;
    if (*fd < 0) {
        s = fc_error(FC_ERR_IO, "%s: cannot create a temporary file in '%s': %s", path, dir, strerror(errno));
        free(*tmp);
        *tmp = NULL;
    }
    free(dir);
    return s;
}

/* Makes the rename durable. Some file systems cannot fsync a directory
 * (EINVAL); there is nothing more to do on those. */
static fc_status sync_directory(const char *path, const char *target) {
    char *dir = directory_of(target);
    if (!dir) return FC_ERR_MEMORY;
    fc_status s = FC_OK;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL))
        s = fc_error(FC_ERR_IO, "%s: written, but directory '%s' could not be synced: %s", path, dir,
                     strerror(errno));
    if (fd >= 0) close(fd);
    free(dir);
    return s;
}

/* Replaces the regular file (or new name) `target` through a temporary;
 * `path` is the name the user gave, for messages. */
static fc_status replace_file(const char *path, const char *target, fc_write_body_fn body, void *ctx) {
    char *tmp;
    int fd;
    FC_TRY(create_temp(path, target, &tmp, &fd));
    struct stat st;
    if (stat(target, &st) == 0 && S_ISREG(st.st_mode)) (void)fchmod(fd, st.st_mode & 07777);
    fc_status s = write_stream(path, fd, 1, body, ctx);
    if (close(fd) != 0 && s == FC_OK) s = fc_error(FC_ERR_IO, "%s: cannot write: %s", path, strerror(errno));
    if (s == FC_OK && rename(tmp, target) != 0)
        s = fc_error(FC_ERR_IO, "%s: cannot rename '%s' over it: %s", path, tmp, strerror(errno));
    if (s != FC_OK) unlink(tmp);
    live_temp_end();
    free(tmp);
    return s == FC_OK ? sync_directory(path, target) : s;
}

/* ------------------------------------------------ what the path is */

typedef enum { OUT_REPLACE, OUT_DEVICE, OUT_FIFO } out_kind;

/* Follows a symlink to what it names (the link itself stays); a name that
 * does not exist is created. */
static fc_status resolve(const char *path, char **target, out_kind *kind) {
    struct stat st;
    *kind = OUT_REPLACE;
    if (lstat(path, &st) != 0) {
        if (errno != ENOENT) return fc_error(FC_ERR_IO, "%s: %s", path, strerror(errno));
        *target = strdup(path);
        return *target ? FC_OK : fc_error(FC_ERR_MEMORY, "out of memory copying a file name");
    }
    if (S_ISLNK(st.st_mode)) {
        *target = realpath(path, NULL);
        if (!*target || stat(*target, &st) != 0) {
            int e = errno;
            free(*target);
            return fc_error(FC_ERR_IO, "%s: symbolic link whose target cannot be reached: %s", path, strerror(e));
        }
    } else if (!(*target = strdup(path))) {
        return fc_error(FC_ERR_MEMORY, "out of memory copying a file name");
    }
    if (S_ISREG(st.st_mode)) return FC_OK;
    *kind = S_ISFIFO(st.st_mode) ? OUT_FIFO : OUT_DEVICE;
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode)) return FC_OK;
    free(*target);
    *target = NULL;
    return fc_error(FC_ERR_IO, "%s: %s", path,
                    S_ISDIR(st.st_mode) ? "is a directory" : "is neither a regular file, a device nor a FIFO");
}

fc_status fc_write_file_atomic(const char *path, fc_write_body_fn write_body, void *ctx) {
    if (!strcmp(path, "-")) return write_stdout(write_body, ctx);
    char *target = NULL;
    out_kind kind;
    FC_TRY(resolve(path, &target, &kind));
    fc_status s = kind == OUT_REPLACE ? replace_file(path, target, write_body, ctx)
                                      : write_through(path, target, kind == OUT_FIFO, write_body, ctx);
    free(target);
    return s;
}
