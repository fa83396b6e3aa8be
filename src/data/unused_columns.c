/* The columns of a data file that fcast's commands do not read (see
 * dataset.h): its header's names other than unique_id, ds and y. The
 * models take no exogenous inputs yet, so the commands load data with
 * drop_exog and say which columns they leave out, rather than drop them
 * without a word. */
#include <stdio.h>
#include <string.h>

#include "data/csv_reader.h"
#include "data/dataset.h"
#include "data/text_map.h"

static int is_required(const fc_span *f) {
    static const char *const names[3] = {"unique_id", "ds", "y"};
    for (int k = 0; k < 3; k++)
        if (f->len == strlen(names[k]) && !memcmp(f->ptr, names[k], f->len)) return 1;
    return 0;
}

/* Appends one name to buf, ", "-separated, cut with "..." when it is full. */
static void append_name(char *buf, size_t cap, size_t *used, const fc_span *f) {
    if (*used >= cap) return;
    int n = snprintf(buf + *used, cap - *used, "%s'%.*s'", *used ? ", " : "", (int)f->len, f->ptr);
    *used += n > 0 ? (size_t)n : 0;
    if (*used >= cap && cap > 4) memcpy(buf + cap - 4, "...", 4);
}

size_t fc_data_unused_columns(const char *path, char *buf, size_t cap) {
    const char *text;
    size_t len, n_fields = 0, line, count = 0, used = 0;
    int blank;
    if (cap) buf[0] = 0;
    if (fc_text_map_open(path, &text, &len) != FC_OK) return 0;   /* the loader said why already */
    fc_csv_reader r;
    fc_csv_init(&r, text, len, 4096);
    if (fc_csv_next(&r, &n_fields, &line, &blank) == FC_CSV_RECORD && !blank) {
        size_t stored = n_fields < r.max_fields ? n_fields : r.max_fields;
        for (size_t i = 0; i < stored; i++) {
            if (is_required(&r.fields[i])) continue;
            count++;
            append_name(buf, cap, &used, &r.fields[i]);
        }
        count += n_fields - stored;
    }
    fc_csv_free(&r);
    fc_text_map_close(text, len);
    return count;
}
