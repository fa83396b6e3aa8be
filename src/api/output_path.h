/* Checking an output path before the work, so a run that would fail to
 * write its result fails in a second, not after an hour of training, and
 * never overwrites its own input. The write itself is atomic_file.h's. */
#ifndef FC_API_OUTPUT_PATH_H
#define FC_API_OUTPUT_PATH_H

#include <stddef.h>

#include "fcast.h"

/* An input file and the flag that named it, for the same-file check
 * (fcast.h's fcast_input_path: name, path). */
typedef fcast_input_path fc_input_path;

/* Refuses, naming `flag` and `path` and the reason:
 *   - "-" unless allow_stdout (FC_ERR_INVALID);
 *   - an existing directory, socket or dangling symlink (FC_ERR_IO);
 *   - a missing parent directory, or one where no file can be created, or an
 *     existing device or FIFO that cannot be opened for writing (FC_ERR_IO,
 *     with strerror);
 *   - the same file as any input, however named: "./x.csv", a symlink or a
 *     hard link to it (st_dev and st_ino compared; FC_ERR_INVALID).
 * Symlinks to regular files, devices and FIFOs are accepted; they are
 * written as fc_write_file_atomic describes. A NULL path (an optional output
 * not asked for) is accepted. */
fc_status fc_output_check(const char *flag, const char *path, int allow_stdout, const fc_input_path *inputs,
                          size_t n_inputs);

/* Every file of a command checked together (fcast.h's fcast_paths_use):
 * fc_paths_distinct refuses an output that is the same file as any other
 * entry; fc_paths_check adds fc_output_check for each output. */
typedef fcast_path_use fc_path_use;
fc_status fc_paths_distinct(const fc_path_use *uses, size_t n);
fc_status fc_paths_check(const fc_path_use *uses, size_t n);

#endif
