/* The bearer token's file and comparison (bearer_token.h). */
#include "bearer_token.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "core/error.h"
#include "api/serve_engine.h"

/* Up to cap bytes of fd; -1 on a read error (errno set). */
static ssize_t read_up_to(int fd, char *buf, size_t cap) {
    size_t got = 0;
    while (got < cap) {
        ssize_t k = read(fd, buf + got, cap - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return -1;
        if (k == 0) break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

static int blank(char c) { return c == ' ' || c == '\t'; }

/* The first line of text[0..n) without its line break and the blanks
 * around it: *start and the length. */
static size_t first_line(const char *text, size_t n, size_t *start) {
    const char *nl = memchr(text, '\n', n);
    size_t end = nl ? (size_t)(nl - text) : n, b = 0;
    if (end && text[end - 1] == '\r') end--;
    while (b < end && blank(text[b])) b++;
    while (end > b && blank(text[end - 1])) end--;
    *start = b;
    return end - b;
}

/* The first byte of the token that is not printable ASCII, named. */
static fc_status check_bytes(const char *path, const char *tok, size_t len) {
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)tok[i];
        if (c > ' ' && c < 0x7f) continue;
        if (c == 0)
            return fc_error(FC_ERR_INVALID, "--auth-token-file %s: the token holds a NUL byte (at byte %zu): a token "
                            "is printable ASCII without blanks", path, i + 1);
        return fc_error(FC_ERR_INVALID, "--auth-token-file %s: the token holds a blank or control byte (0x%02x at "
                        "byte %zu): a token is printable ASCII without blanks", path, c, i + 1);
    }
    return FC_OK;
}

fc_status fc_bearer_token_read(const char *path, fc_bearer_token *t) {
    t->len = 0;
    int fd;
    if (fc_input_open(path, "a file holding the token", &fd) != FC_OK)
        return fc_error_wrap(FC_ERR_IO, "--auth-token-file ");
    char buf[FC_BEARER_TOKEN_MAX + 256];   /* the longest token with room for blanks and its line break */
    ssize_t n = read_up_to(fd, buf, sizeof buf);
    int err = errno;
    close(fd);
    if (n < 0) return fc_error(FC_ERR_IO, "--auth-token-file %s: cannot be read: %s", path, strerror(err));
    size_t start, len = first_line(buf, (size_t)n, &start);
    int line_past_buf = (size_t)n == sizeof buf && !memchr(buf, '\n', sizeof buf);
    if (len > FC_BEARER_TOKEN_MAX || line_past_buf)
        return fc_error(FC_ERR_INVALID, "--auth-token-file %s: the token is longer than %d bytes", path,
                        FC_BEARER_TOKEN_MAX);
    if (!len) return fc_error(FC_ERR_INVALID, "--auth-token-file %s: the file holds no token", path);
    FC_TRY(check_bytes(path, buf + start, len));
    memcpy(t->bytes, buf + start, len);
    t->len = len;
    return FC_OK;
}

int fc_bearer_token_matches(const fc_bearer_token *t, const char *given, size_t len) {
    unsigned char diff = len != t->len;
    for (size_t i = 0; i < t->len; i++) diff |= (unsigned char)(t->bytes[i] ^ (i < len ? given[i] : 0));
    return diff == 0;
}
