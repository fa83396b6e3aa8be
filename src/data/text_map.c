/* Read-only text mappings (see text_map.h). */
#include "data/text_map.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"

static const char *file_kind(mode_t mode) {
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a file";
}

static fc_status not_regular(const char *path, mode_t mode, const char *what) {
    return fc_error(FC_ERR_IO, "%s is not a regular file (%s): expected %s", path, file_kind(mode), what);
}

/* stat before open: opening a device can act on it (a tape rewinds, a
 * terminal becomes the controlling one), so only a regular file is opened.
 * O_NONBLOCK closes the race with a FIFO put there between stat and open
 * (an open for reading would wait for a writer); it changes nothing for a
 * regular file's reads. */
fc_status fc_input_open(const char *path, const char *what, int *fd) {
    struct stat st;
    *fd = -1;
    if (stat(path, &st) != 0) return fc_error(FC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return not_regular(path, st.st_mode, what);
    int f = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (f < 0) return fc_error(FC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
        int err = errno;
        close(f);
        return S_ISREG(st.st_mode) ? fc_error(FC_ERR_IO, "%s: cannot stat: %s", path, strerror(err))
                                   : not_regular(path, st.st_mode, what);
    }
    *fd = f;
    return FC_OK;
}

static fc_status map_fd(const char *path, int fd, const char **text, size_t *len) {
    struct stat st;
    if (fstat(fd, &st) != 0) return fc_error(FC_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    *len = (size_t)st.st_size;
    if (!*len) return FC_OK;
    void *map = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map == MAP_FAILED) return fc_error(FC_ERR_IO, "%s: cannot map: %s", path, strerror(errno));
    madvise(map, *len, MADV_SEQUENTIAL);
    *text = map;
    return FC_OK;
}

fc_status fc_text_map_open(const char *path, const char **text, size_t *len) {
    *text = "";
    *len = 0;
    int fd;
    FC_TRY(fc_input_open(path, "a CSV file", &fd));
    fc_status st = map_fd(path, fd, text, len);
    close(fd);   /* the mapping keeps the file */
    return st;
}

void fc_text_map_close(const char *text, size_t len) {
    if (len) munmap((void *)text, len);
}

void fc_text_map_release(const char *text, size_t len) {
    if (len) madvise((void *)text, len, MADV_DONTNEED);
}
