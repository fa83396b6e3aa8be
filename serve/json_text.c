/* JSON strings for the answers (see json_text.h). */
#include "json_text.h"

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 if none starts
 * there: overlong forms, surrogates and code points past U+10FFFF are not
 * valid. Reads stop at the first byte that is no continuation (the NUL). */
static size_t utf8_sequence(const unsigned char *s) {
    unsigned c = s[0], cp, min;
    size_t n;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        n = 3, cp = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4, cp = c & 0x07, min = 0x10000;
    } else {
        return 0;
    }
    for (size_t k = 1; k < n; k++) {
        if ((s[k] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[k] & 0x3Fu);
    }
    return cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ? 0 : n;
}

static void put_json_char(FILE *f, unsigned char c) {
    switch (c) {
    case '"': fputs("\\\"", f); return;
    case '\\': fputs("\\\\", f); return;
    case '\n': fputs("\\n", f); return;
    case '\r': fputs("\\r", f); return;
    case '\t': fputs("\\t", f); return;
    case '\b': fputs("\\b", f); return;
    case '\f': fputs("\\f", f); return;
    default:
        if (c < 0x20) fprintf(f, "\\u%04x", c);
        else fputc(c, f);
    }
}

/* A JSON string per RFC 8259. Ids from a CSV request may hold bytes that
 * are not UTF-8, which JSON cannot carry: each such byte is written as
 * U+FFFD, so the response stays valid JSON. */
void fc_json_put_string(FILE *f, const char *text) {
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', f);
    while (*s) {
        size_t n = utf8_sequence(s);
        if (n == 0) {
            fputs("\\ufffd", f);
            n = 1;
        } else if (n == 1) {
            put_json_char(f, *s);
        } else {
            fwrite(s, 1, n, f);
        }
        s += n;
    }
    fputc('"', f);
}
