/* fcast serve's bearer token (--auth-token-file, docs/serving.md#access):
 * read from its file at start, compared with each request's.
 *
 * Bytes and a length, never a C string: a file holding "Q\0\x8a\x13long"
 * was once read as the token "Q", and `Authorization: Bearer Q` got in. */
#ifndef FC_SERVE_BEARER_TOKEN_H
#define FC_SERVE_BEARER_TOKEN_H

#include <stddef.h>
#include "fcast/status.h"

#define FC_BEARER_TOKEN_MAX 4096   /* bytes of a token, at most */

typedef struct {
    char bytes[FC_BEARER_TOKEN_MAX];
    size_t len;
} fc_bearer_token;

/* The token: the first line of the file at path, without the blanks
 * around it. Refused, naming the flag and the file: a path that is not a
 * regular file (FC_ERR_IO, and without opening it: a FIFO would block the
 * start), a file that cannot be read (FC_ERR_IO), a token that is empty,
 * longer than FC_BEARER_TOKEN_MAX, or holds a byte other than printable
 * ASCII (FC_ERR_INVALID: a NUL, a blank, a control character; RFC 6750's
 * tokens are ASCII, and a token pasted with a stray byte would never match). */
fc_status fc_bearer_token_read(const char *path, fc_bearer_token *t);

/* Whether the len bytes of given are the token: lengths and bytes, in time
 * that depends on the token's length alone, not on where they differ. */
int fc_bearer_token_matches(const fc_bearer_token *t, const char *given, size_t len);

#endif
