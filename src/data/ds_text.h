/* The ds column as text: integer index, ISO date or ISO datetime. */
#ifndef FC_DATA_DS_TEXT_H
#define FC_DATA_DS_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include "data/dataset.h"

/* Parses text[0..len) (spaces and tabs around it ignored) as
 *   INDEX     [+-]digits (at most 18 digits, so differences fit in int64)
 *   DATE      YYYY-MM-DD
 *   DATETIME  YYYY-MM-DD HH:MM[:SS], or with 'T' between date and time.
 * Dates must exist (no 2001-02-29). Returns 1 and sets *kind and *value
 * (seconds since 1970-01-01 for dates), or 0 if the text is none of these. */
int fc_ds_parse(const char *text, size_t len, fc_ds_kind *kind, int64_t *value);

/* "integer index", "date", "datetime": for messages. */
const char *fc_ds_kind_name(fc_ds_kind kind);

#endif
