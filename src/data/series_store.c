/* The store file of a streamed dataset (see series_store.h). */
#include "data/series_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "core/error.h"

static size_t page_round(size_t n) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (n + page - 1) / page * page;
}

/* Column sizes in file order; one table for the size and the layout. */
static void column_bytes(size_t n_rows, size_t n_series, size_t n_exog, size_t out[5]) {
    out[0] = n_rows * sizeof(int64_t);            /* ds */
    out[1] = n_rows * sizeof(double);             /* y */
    out[2] = n_rows * n_exog * sizeof(double);    /* exog */
    out[3] = n_rows;                              /* mask */
    out[4] = (n_rows + n_series) * sizeof(uint32_t);   /* observed prefix counts */
}

size_t fc_series_store_bytes(size_t n_rows, size_t n_series, size_t n_exog) {
    size_t col[5], total = 0;
    column_bytes(n_rows, n_series, n_exog, col);
    for (int i = 0; i < 5; i++) total += page_round(col[i]);
    return total;
}

const char *fc_series_store_dir(const char *dir) {
    if (dir && *dir) return dir;
    const char *tmp = getenv("TMPDIR");
    return tmp && *tmp ? tmp : "/var/tmp";
}

/* An unlinked file in dir: O_TMPFILE where the file system has it, else a
 * named file removed at once. Either way nothing is left behind, even
 * after a crash. */
static int open_unlinked(const char *dir) {
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/fcast-store-XXXXXX", dir) >= sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0) unlink(path);
    return fd;
}

static fc_status map_file(fc_dataset *d, int fd, size_t bytes, const char *dir) {
    int err = posix_fallocate(fd, 0, (off_t)bytes);
    if (err) {
        char size[32];
        snprintf(size, sizeof size, "%.1f MiB", (double)bytes / (1 << 20));
        return fc_error(FC_ERR_IO, "%s: cannot reserve %s for the data store in %s: %s (choose another "
                        "directory with --store-dir)", d->source ? d->source : "data", size, dir, strerror(err));
    }
    void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return fc_error(FC_ERR_IO, "cannot map the data store in %s: %s", dir, strerror(errno));
    d->map = map;
    d->map_len = bytes;
    return FC_OK;
}

fc_status fc_series_store_create(fc_dataset *d, const char *dir) {
    dir = fc_series_store_dir(dir);
    size_t col[5], bytes = fc_series_store_bytes(d->n_rows, d->n_series, d->n_exog);
    int fd = open_unlinked(dir);
    if (fd < 0) return fc_error(FC_ERR_IO, "cannot create the data store in %s: %s (choose another directory "
                                "with --store-dir)", dir, strerror(errno));
    fc_status st = map_file(d, fd, bytes, dir);
    close(fd);   /* the mapping keeps the file */
    if (st != FC_OK) return st;
    column_bytes(d->n_rows, d->n_series, d->n_exog, col);
    size_t at[5] = {0};
    for (int i = 1; i < 5; i++) at[i] = at[i - 1] + page_round(col[i - 1]);
    char *base = d->map;
    d->ds = (int64_t *)(base + at[0]);
    d->y = (double *)(base + at[1]);
    d->exog = (double *)(base + at[2]);
    d->mask = (uint8_t *)(base + at[3]);
    d->observed = (uint32_t *)(base + at[4]);
    return FC_OK;
}

void fc_series_store_seal(fc_dataset *d) {
    mprotect(d->map, d->map_len, PROT_READ);
    madvise(d->map, d->map_len, MADV_RANDOM);
    fc_dataset_release_pages(d);
}
