/* Atomic file replacement: a reader of `path` sees either the old file or the
 * complete new one, never a half-written file, even if the process dies or
 * the machine loses power mid-write.
 *
 * The body is written to `path` + ".tmp.<pid>" in the same directory (so the
 * rename cannot cross file systems), flushed and fsync'ed, renamed over
 * `path`, and then the directory is fsync'ed so the rename itself is durable.
 * On any failure before the rename the temporary is removed and `path` is
 * left untouched. Used for model files, checkpoints and forecasts. */
#ifndef FC_IO_ATOMIC_FILE_H
#define FC_IO_ATOMIC_FILE_H

#include <stdio.h>

#include "fcast.h"

/* Writes the file's contents to `f`; returns FC_OK or a status with a message
 * set (the message need not name the path: fc_write_file_atomic prefixes it).
 * It must not close `f`. */
typedef fc_status (*fc_write_body_fn)(FILE *f, void *ctx);

/* Replaces `path` atomically with what `write_body` writes. If `path` already
 * exists as a regular file, the new file keeps its permission bits.
 * Errors (FC_ERR_IO, or the body's status) name the path and strerror. */
fc_status fc_write_file_atomic(const char *path, fc_write_body_fn write_body, void *ctx);

/* fwrite that reports a short write as FC_ERR_IO naming `what` and strerror;
 * a helper for body writers. */
fc_status fc_fwrite_all(FILE *f, const void *data, size_t bytes, const char *what);

#endif
