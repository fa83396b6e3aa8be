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

const char *const fc_report_style =
    "body{font-family:sans-serif;margin:24px auto;max-width:1000px;color:#222}"
    "h1{margin-bottom:4px}h2{margin-top:32px;border-bottom:1px solid #ddd;padding-bottom:4px}"
    ".meta{color:#555}.status{display:inline-block;padding:2px 8px;border-radius:4px;font-weight:bold}"
    ".completed,.early_stopped{background:#dff0d8}.interrupted,.none{background:#fcf8e3}.failed{background:#f2dede}"
    ".warn{background:#fcf8e3;border:1px solid #e0c97f;padding:8px 12px;border-radius:4px}"
    ".tables{display:flex;gap:24px;flex-wrap:wrap}table{border-collapse:collapse;font-size:13px}"
    "td,th{border:1px solid #ddd;padding:3px 8px;text-align:left}th{background:#f5f5f5}"
    ".panel{margin:12px 0}.empty,.note{color:#777;font-style:italic}svg.chart{max-width:100%;height:auto}";
