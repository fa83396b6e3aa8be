/* Writing CSV fields as RFC 4180 (and pandas) expects them, so ids with
 * commas, quotes or line breaks survive a round trip through fcast. */
#ifndef FC_IO_CSV_WRITE_H
#define FC_IO_CSV_WRITE_H

#include <stdio.h>

/* Writes one field, quoted (with doubled quotes) when it holds a comma,
 * quote or line break. */
void fc_csv_write_field(FILE *f, const char *text);

#endif
