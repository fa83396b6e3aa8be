/* The loader's peak memory, estimated before loading (see dataset.h):
 * a pass over the mapped file counts its lines (handing the pages back as
 * it goes, like the parser), and the per-row sizes of the loader's stages
 * give the peak, when the parsed rows, their sort keys and the new dataset
 * coexist. */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/error.h"
#include "data/dataset.h"
#include "data/text_map.h"

/* Bytes per row at the loader's peak: parsed row (series 4, ds 8, y 8,
 * mask 1, line 8), sort key (ds 8, row 8) and row order (8), dataset row
 * (ds 8, y 8, mask 1); and per exogenous value, parsed and kept. */
#define FC_LOAD_ROW_BYTES (29 + 24 + 17)
#define FC_LOAD_EXOG_BYTES 16
#define FC_LOAD_TEXT_WINDOW ((size_t)16 << 20)   /* dataset_parse.c's release step */

/* Lines in text (a last line without '\n' counts), and commas in the first. */
static void count_lines(const char *text, size_t len, size_t *lines, size_t *header_commas) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE), released = 0, n = 0;
    const char *p = text, *end = text + len, *first_nl = memchr(text, '\n', len);
    const char *h_end = first_nl ? first_nl : end;
    *header_commas = 0;
    for (const char *c = text; c < h_end; c++) *header_commas += *c == ',';
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        n++;
        p = nl ? nl + 1 : end;
        size_t upto = (size_t)(p - text) / page * page;
        if (upto >= released + FC_LOAD_TEXT_WINDOW) {
            madvise((char *)text + released, upto - released, MADV_DONTNEED);
            released = upto;
        }
    }
    *lines = n;
}

fc_status fc_csv_load_estimate(const char *path, const fc_load_options *opt, size_t *rows, size_t *bytes) {
    const char *text;
    size_t len, lines = 0, commas = 0;
    FC_TRY(fc_text_map_open(path, &text, &len));
    if (len) count_lines(text, len, &lines, &commas);
    fc_text_map_close(text, len);
    size_t exog = commas > 2 && !(opt && opt->drop_exog) ? commas - 2 : 0;
    *rows = lines > 0 ? lines - 1 : 0;
    *bytes = *rows * (FC_LOAD_ROW_BYTES + FC_LOAD_EXOG_BYTES * exog) + (len < FC_LOAD_TEXT_WINDOW ? len : FC_LOAD_TEXT_WINDOW);
    return FC_OK;
}
