/* Text into HTML and SVG: every string that came from input (series ids,
 * paths, configuration values, error messages) goes through here, so a
 * value such as "<script>" is shown, never run. */
#ifndef FC_REPORT_HTML_TEXT_H
#define FC_REPORT_HTML_TEXT_H

#include <stdio.h>

/* Writes s with & < > " ' escaped; NULL writes nothing. */
void fc_html_escape(FILE *f, const char *s);

/* Number as a short label: 4 significant digits, or 3 with an SI suffix past 10,000
 * (15k, 1.2M), so axis labels stay narrow. */
void fc_format_number(char *buf, size_t cap, double v);

/* Bytes in binary units: 512 B, 1.5 KiB, 230 MiB, 2.0 GiB. */
void fc_format_bytes(char *buf, size_t cap, double v);

/* The CSS of fcast's report pages (a training run, a backtest), one look for both. */
extern const char *const fc_report_style;

#endif
