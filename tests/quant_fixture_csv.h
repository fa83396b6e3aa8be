/* Reads the small three-column fixtures (key1,key2,value) written by the
 * python/make_*_fixtures.py scripts, for the tests. */
#ifndef FC_TESTS_QUANT_FIXTURE_CSV_H
#define FC_TESTS_QUANT_FIXTURE_CSV_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char a[64], b[64];
    double v;
} fixture_row;

/* Splits a CSV line (no quoting) in place at its commas into at most cap
 * fields, the line end cut off; returns the fields found. */
static inline size_t csv_split(char *line, char **fields, size_t cap) {
    size_t n = 0;
    line[strcspn(line, "\r\n")] = '\0';
    for (char *p = line; n < cap;) {
        fields[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

/* Returns the number of rows read into rows[0..cap), or -1 if the file is missing. */
static inline int fixture_read(const char *path, fixture_row *rows, int cap) {
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    char line[512];
    int n = 0;
    if (!fgets(line, sizeof line, f)) { fclose(f); return 0; } /* header */
    while (n < cap && fgets(line, sizeof line, f)) {
        char *c1 = strchr(line, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c1 || !c2) continue;
        *c1 = *c2 = '\0';
        snprintf(rows[n].a, sizeof rows[n].a, "%.63s", line);
        snprintf(rows[n].b, sizeof rows[n].b, "%.63s", c1 + 1);
        rows[n].v = strtod(c2 + 1, NULL);
        n++;
    }
    fclose(f);
    return n;
}

#endif
