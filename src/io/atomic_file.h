/* Writing an output file so that a reader of `path` sees either the old file
 * or the complete new one, never a half-written file, even if the process
 * dies or the machine loses power mid-write; and so that a hostile or
 * unusual path cannot redirect the write.
 *
 * What `path` is decides how it is written:
 *   - "-": the body goes to standard output (flushed; no temporary).
 *   - a regular file, or a name that does not exist yet: the body is written
 *     to a new temporary ".<name>.tmp.XXXXXX" (random suffix) in the same
 *     directory, created with O_CREAT | O_EXCL | O_NOFOLLOW so that nothing
 *     planted at that name (a symlink above all) is ever followed or reused;
 *     it is flushed and fsync'ed, renamed over `path`, and the directory is
 *     fsync'ed so the rename itself is durable. On any failure the temporary
 *     is removed and `path` is left untouched.
 *   - a symbolic link: resolved; a regular-file target is replaced as above
 *     (the link stays a link and keeps pointing at it).
 *   - a character or block device or a FIFO (directly or through a link):
 *     opened and written through, never replaced, since replacing
 *     /dev/null with a regular file is never what anyone meant. A FIFO with
 *     no reader is an error at once, not a hang.
 *   - a directory, a socket, a dangling link: an error.
 * Used for model files, checkpoints, forecasts and the quant outputs.
 * A replaced file keeps its permission bits; hard links to the old file keep
 * the old contents (the rename gives `path` a new inode). */
#ifndef FC_IO_ATOMIC_FILE_H
#define FC_IO_ATOMIC_FILE_H

#include <stdio.h>

#include "fcast/status.h"

/* Writes the file's contents to `f`; returns FC_OK or a status with a message
 * set (the message need not name the path: fc_write_file_atomic prefixes it).
 * A failed write to `f` need not be reported by the body: the writer sees it
 * and reports its cause. It must not close `f`. */
typedef fc_status (*fc_write_body_fn)(FILE *f, void *ctx);

/* Writes what `write_body` writes to `path` as described above. Errors
 * (FC_ERR_IO, or the body's status) name the path and the system's reason,
 * e.g. "out.csv: cannot write: No space left on device". */
fc_status fc_write_file_atomic(const char *path, fc_write_body_fn write_body, void *ctx);

/* Removes the temporary file of the write in progress, if any. Async-signal-
 * safe (one unlink(2) of a name kept in a static buffer), for a signal
 * handler about to _exit: an interrupted write then leaves neither a
 * half-written file nor a stray temporary behind. Tracks the most recent
 * write only; fcast writes one file at a time. */
void fc_atomic_file_abandon(void);

/* fwrite that reports a short write as FC_ERR_IO naming `what` and strerror;
 * a helper for body writers. */
fc_status fc_fwrite_all(FILE *f, const void *data, size_t bytes, const char *what);

#endif
