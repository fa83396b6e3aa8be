/* HTML escaping and the number formats of labels (html_text.h). */
#include <math.h>
#include <stdio.h>

#include "report/html_text.h"

void fc_html_escape(FILE *f, const char *s) {
    if (!s) return;
    for (; *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

void fc_format_number(char *buf, size_t cap, double v) {
    static const char *const suffix[] = {"", "k", "M", "G", "T"};
    if (!isfinite(v)) { snprintf(buf, cap, "%s", isnan(v) ? "n/a" : v > 0 ? "inf" : "-inf"); return; }
    int k = 0;
    double a = fabs(v);
    while (a >= 1e4 && k < 4) { a /= 1000; v /= 1000; k++; }
    snprintf(buf, cap, k ? "%.3g%s" : "%.4g%s", v, suffix[k]);   /* 5000, not 5e+03 */
}

void fc_format_bytes(char *buf, size_t cap, double v) {
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (!isfinite(v)) { snprintf(buf, cap, "n/a"); return; }
    int k = 0;
    while (fabs(v) >= 1024 && k < 4) { v /= 1024; k++; }
    if (k == 0) snprintf(buf, cap, "%.0f %s", v, unit[k]);
    else snprintf(buf, cap, "%.*f %s", fabs(v) < 10 ? 2 : fabs(v) < 100 ? 1 : 0, v, unit[k]);
}
