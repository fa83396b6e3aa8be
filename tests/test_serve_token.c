/* fcast serve's bearer token (serve/bearer_token.h): the token file read
 * by length, not as a C string (a NUL once ended the token early, so
 * "Q\0\x8a\x13longsecret" let `Bearer Q` in), its bytes checked, files
 * that are not regular refused without being opened (a FIFO blocked the
 * start), and the comparison by length and bytes. Under alarm(10): a read
 * that blocks fails the test instead of hanging it. */
#include "check.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bearer_token.h"
#include "core/error.h"

static char dir[] = "/tmp/fc_token_XXXXXX";

static const char *file_with(const char *name, const char *bytes, size_t n) {
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) {
        CHECK(fwrite(bytes, 1, n, f) == n);
        fclose(f);
    }
    return path;
}

/* The status of reading path; the message must name the flag, the file,
 * and `why`. */
static void check_refused(const char *path, fc_status want, const char *why) {
    fc_bearer_token t;
    fc_status st = fc_bearer_token_read(path, &t);
    CHECK_MSG(st == want, "%s: status %d, expected %d (%s)", path, st, want, fc_last_error());
    CHECK_CONTAINS(fc_last_error(), "--auth-token-file");
    CHECK_CONTAINS(fc_last_error(), path);
    CHECK_CONTAINS(fc_last_error(), why);
}

static void check_reads(const char *path, const char *token) {
    fc_bearer_token t;
    CHECK_MSG(fc_bearer_token_read(path, &t) == FC_OK, "%s: %s", path, fc_last_error());
    CHECK_MSG(t.len == strlen(token) && !memcmp(t.bytes, token, t.len), "%s: read '%.*s', expected '%s'", path,
              (int)t.len, t.bytes, token);
}

static void test_bytes(void) {
    /* the issue's file: refused, naming the NUL, never read as "Q" */
    static const char issue[] = "Q\0\x8a\x13longsecret\n";
    check_refused(file_with("nul", issue, sizeof issue - 1), FC_ERR_INVALID, "NUL byte (at byte 2)");
    check_refused(file_with("ctl", "ab\x13" "cd\n", 6), FC_ERR_INVALID, "control byte (0x13 at byte 3)");
    check_refused(file_with("high", "ab\x8a" "cd\n", 6), FC_ERR_INVALID, "(0x8a at byte 3)");
    check_refused(file_with("blank", "ab cd\n", 6), FC_ERR_INVALID, "blank or control byte (0x20 at byte 3)");
    check_refused(file_with("empty", "", 0), FC_ERR_INVALID, "holds no token");
    check_refused(file_with("blanks", "  \t \r\nsecond-line\n", 18), FC_ERR_INVALID, "holds no token");
    char *big = malloc(FC_BEARER_TOKEN_MAX + 2);
    memset(big, 'a', FC_BEARER_TOKEN_MAX + 1);
    big[FC_BEARER_TOKEN_MAX + 1] = '\n';
    check_refused(file_with("long", big, FC_BEARER_TOKEN_MAX + 2), FC_ERR_INVALID, "longer than 4096 bytes");
    /* the longest token, FC_BEARER_TOKEN_MAX bytes and its line break, is read whole */
    fc_bearer_token t;
    CHECK(fc_bearer_token_read(file_with("max", big + 1, FC_BEARER_TOKEN_MAX + 1), &t) == FC_OK);
    CHECK(t.len == FC_BEARER_TOKEN_MAX && !memcmp(t.bytes, big + 1, t.len));
    free(big);
}

static void test_accepted(void) {
    check_reads(file_with("plain", "s3cret-token", 12), "s3cret-token");
    check_reads(file_with("trimmed", "  \ts3cret-token \t\r\nnext line ignored\n", 37), "s3cret-token");
    check_reads(file_with("printable", "!#$%&'*+-./0-9:;<=>?@A~\n", 24), "!#$%&'*+-./0-9:;<=>?@A~");
}

/* Not regular files: refused as I/O errors naming the file, a FIFO
 * without blocking (alarm(10) in main ends a test that would). */
static void test_not_regular(void) {
    char fifo[256], sub[256];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    CHECK(mkdir(sub, 0700) == 0);
    check_refused(fifo, FC_ERR_IO, "is not a regular file (a FIFO)");
    check_refused(sub, FC_ERR_IO, "is not a regular file (a directory)");
    check_refused("/nonexistent/token", FC_ERR_IO, "No such file");
    unlink(fifo);
    rmdir(sub);
}

static void test_matches(void) {
    fc_bearer_token t = {.len = 6};
    memcpy(t.bytes, "s3cret", 6);
    CHECK(fc_bearer_token_matches(&t, "s3cret", 6));
    CHECK(!fc_bearer_token_matches(&t, "s", 1));           /* a prefix (what a NUL left of a header) */
    CHECK(!fc_bearer_token_matches(&t, "s3cre", 5));
    CHECK(!fc_bearer_token_matches(&t, "s3cretx", 7));     /* longer */
    CHECK(!fc_bearer_token_matches(&t, "s3cret\0x", 8));  /* a NUL inside: by length, not strlen */
    CHECK(!fc_bearer_token_matches(&t, "s3creT", 6));
    CHECK(!fc_bearer_token_matches(&t, "", 0));
    fc_bearer_token nul = {.len = 3};   /* a token with a NUL is refused at read; compared by bytes all the same */
    memcpy(nul.bytes, "Q\0x", 3);
    CHECK(!fc_bearer_token_matches(&nul, "Q", 1));
    CHECK(fc_bearer_token_matches(&nul, "Q\0x", 3));
}

int main(void) {
    alarm(10);
    CHECK(mkdtemp(dir) != NULL);
    test_bytes();
    test_accepted();
    test_not_regular();
    test_matches();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return CHECK_DONE();
}
