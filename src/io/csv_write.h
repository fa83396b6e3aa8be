/* Writing CSV fields as RFC 4180 (and pandas) expects them, so ids with
 * commas, quotes or line breaks survive a round trip through fcast. */
#ifndef FC_IO_CSV_WRITE_H
#define FC_IO_CSV_WRITE_H

#include <stdio.h>

/* Writes one field, quoted (with doubled quotes) when it holds a comma,
 * quote or line break. */
void fc_csv_write_field(FILE *f, const char *text);

/* Writes v as the shortest of %.15g, %.16g and %.17g that reads back as v:
 * 17 digits always do, and the shorter forms keep a value as the user
 * wrote it (0.1, not 0.10000000000000001). */
void fc_csv_write_real(FILE *f, double v);

#endif
