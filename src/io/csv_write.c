/* RFC 4180 field quoting (see csv_write.h). */
#include <stdlib.h>
#include <string.h>

#include "io/csv_write.h"

void fc_csv_write_field(FILE *f, const char *s) {
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"') fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

void fc_csv_write_real(FILE *f, double v) {
    char text[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(text, sizeof text, "%.*g", digits, v);
        if (strtod(text, NULL) == v) break;
    }
    fputs(text, f);
}
