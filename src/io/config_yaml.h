/* Configuration files (`--config run.yaml`): a YAML mapping of flag names to
 * values, read with libyaml into a flat list of (key, value, line) entries.
 *
 * What is accepted, and why:
 *   - the top level is one mapping (or nothing: an empty file is an empty
 *     configuration), because the keys are the command's long flags;
 *   - a value is a scalar, kept as the text YAML gives (comments dropped,
 *     quotes and escapes resolved), because the flag parser, not YAML's
 *     typing, decides what a value means: `h: 012` stays "012";
 *   - a value may be a sequence of scalars, joined with commas, so that a
 *     list flag can be written `mlp-units: [512, 512, 512]`;
 *   - anything else (nested mappings, sequences of sequences, aliases, a
 *     second document, a key given twice) is an error naming the line,
 *     since a configuration that means something other than what it says is
 *     worse than one refused.
 * Errors: FC_ERR_IO for a file that cannot be read (missing, a directory, a
 * FIFO: refused without waiting for a writer), FC_ERR_PARSE for malformed
 * YAML ("run.yaml:3:7: ...") or a structure that is not flag: value. */
#ifndef FC_IO_CONFIG_YAML_H
#define FC_IO_CONFIG_YAML_H

#include <stddef.h>

#include "fcast/status.h"

/* Larger than any configuration a person writes; bounds what a wrong path
 * (a log file, a dataset) can make us read. */
#define FC_CONFIG_MAX_BYTES ((size_t)1 << 20)

typedef struct {
    char *key;
    char *value;   /* NUL-terminated; a sequence's items joined with ',' */
    size_t line;   /* 1-based line of the key */
    int is_null;   /* a plain empty, "~" or "null" value: YAML's null */
} fc_config_entry;

typedef struct {
    char *path;               /* as given, for messages */
    fc_config_entry *entries; /* in file order, keys unique */
    size_t n;
} fc_config;

/* Reads and parses the file at `path` into *out (zeroed first; free with
 * fc_config_free, also after a failure). */
fc_status fc_config_load(const char *path, fc_config *out);

/* Parses `len` bytes of YAML; `name` is used in messages and kept as path. */
fc_status fc_config_parse(const char *name, const char *text, size_t len, fc_config *out);

/* The entry for `key`, or NULL. */
const fc_config_entry *fc_config_find(const fc_config *c, const char *key);

void fc_config_free(fc_config *c);

#endif
