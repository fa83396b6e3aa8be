/* A horizontal bar chart as inline SVG (svg_chart.h, fc_bars_write_svg):
 * where a step's time goes, one bar a phase with its seconds and share. */
#include <math.h>

#include "report/html_text.h"
#include "report/svg_chart.h"

enum { BW = 960, ROW = 26, BTOP = 34, NAME_W = 130, VALUE_W = 170 };

void fc_bars_write_svg(FILE *f, const char *title, const char *const *names, const double *values,
                       size_t n, const char *unit) {
    double total = 0, max = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(values[i]) && values[i] > 0) { total += values[i]; max = fmax(max, values[i]); }
    int h = BTOP + ROW * (int)n + 10;
    fprintf(f, "<svg class=\"chart bars\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
               "xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"12\" role=\"img\">\n"
               "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">", BW, h, BW, h);
    fc_html_escape(f, title);
    fprintf(f, "</text>\n");
    double span = BW - NAME_W - VALUE_W - 20;
    for (size_t i = 0; i < n; i++) {
        double v = isfinite(values[i]) && values[i] > 0 ? values[i] : 0;
        double w = max > 0 ? v / max * span : 0;
        int y = BTOP + ROW * (int)i;
        char value[48];
        fc_format_number(value, sizeof value, v);
        fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", NAME_W - 8, y + 15);
        fc_html_escape(f, names[i]);
        fprintf(f, "</text><rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#1f77b4\">"
                   "<title>", NAME_W, y + 3, w, ROW - 8);
        fc_html_escape(f, names[i]);
        fprintf(f, "</title></rect><text x=\"%.1f\" y=\"%d\">%s %s (%.1f%%)</text>\n", NAME_W + w + 6, y + 15, value,
                unit, total > 0 ? 100 * v / total : 0.0);
    }
    fprintf(f, "</svg>\n");
}
