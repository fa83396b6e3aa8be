/* A text file mapped read-only for one sequential pass: the CSV loaders
 * and the load estimate read files through it, handing parsed pages back
 * to the kernel as they go (madvise), so a file is never resident whole. */
#ifndef FC_DATA_TEXT_MAP_H
#define FC_DATA_TEXT_MAP_H

#include <stddef.h>
#include "fcast/status.h"

/* Opens a user's input file for reading without ever blocking or touching
 * a device: a FIFO, a terminal, a socket or a device is refused before it
 * is opened ("X is not a regular file (a FIFO): expected <what>"), and the
 * open itself is non-blocking, so a FIFO swapped in after the check cannot
 * hang it either (checked again on the descriptor). *fd is close-on-exec;
 * the caller closes it. Errors are FC_ERR_IO naming the file. */
fc_status fc_input_open(const char *path, const char *what, int *fd);

/* Maps path (a regular file) privately and read-only; *text is "" for an
 * empty file. Errors name the file. */
fc_status fc_text_map_open(const char *path, const char **text, size_t *len);
void fc_text_map_close(const char *text, size_t len);

/* Hands every page of the mapping back (read again from the file if
 * touched): between two passes over it, the first's tail is not kept. */
void fc_text_map_release(const char *text, size_t len);

#endif
