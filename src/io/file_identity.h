/* Which file a path names, for paths whose file may not exist yet: two
 * flags naming one file ("out.csv" and "./d/../out.csv", or a link and its
 * target) must be seen as one before either is written. */
#ifndef FC_IO_FILE_IDENTITY_H
#define FC_IO_FILE_IDENTITY_H

#include <sys/types.h>

#include "fcast/status.h"

typedef struct {
    int exists;     /* stat() succeeded: dev and ino say which file */
    int device;     /* a character or block device: shared freely (/dev/null) */
    dev_t dev;
    ino_t ino;
    char *canonical;   /* absolute, without ".", ".." or links where they resolve; malloc'ed */
} fc_file_id;

/* The identity of path: the file it opens when it exists, else the
 * canonical name it would be created under (links followed, dangling ones
 * too, as far as they resolve; what does not exist taken lexically). */
fc_status fc_file_id_of(const char *path, fc_file_id *id);
void fc_file_id_free(fc_file_id *id);

/* 1 when a and b name the same file (existing: the same inode; not
 * existing: the same canonical name). */
int fc_file_id_same(const fc_file_id *a, const fc_file_id *b);

#endif
