/* Read-only text mappings (see text_map.h). */
#include "data/text_map.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/error.h"

static fc_status map_fd(const char *path, int fd, const char **text, size_t *len) {
    struct stat st;
    if (fstat(fd, &st) != 0) return fc_error(FC_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return fc_error(FC_ERR_IO, "%s: not a regular file: expected a CSV file", path);
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
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fc_error(FC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
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
