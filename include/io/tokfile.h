/* tokfile.h - the token files of imported attention: one token a line, or a
 * JSON list of strings (what Python's json.dump writes for a list of str).
 *
 * Tokens become a TokenList like the tokeniser's, so every view that labels
 * rows and columns takes them as they are. Nothing here prints.
 */
#ifndef ATTNVIZ_TOKFILE_H
#define ATTNVIZ_TOKFILE_H

#include <stddef.h>

#include "core/av.h"
#include "core/tokenize.h"

#define TOKFILE_MAX_BYTES (8 << 20) /* bytes of a token file */

/* A malformed token file (bad JSON; bad UTF-8 is AV_ERR_UTF8): bad input,
 * exit status 2. av.h has no code of its own for it yet. */
#define TOKFILE_ERR AV_ERR_CONFIG

/* Read a token file: one token a line (a final newline ends the last line;
 * every other line, even an empty one, is a token; a trailing \r is dropped),
 * or, when the file starts with '[' followed by '"' or ']' (after spaces), a
 * JSON list of strings with the escapes \" \\ \/ \b \f \n \r \t \uXXXX
 * (surrogate pairs joined). A UTF-8 byte order mark is skipped. Tokens are
 * made printable: a control character becomes its Control Pictures symbol
 * (U+2400 + c, DEL U+2421; a C1 control U+0080..U+009F, which has none,
 * U+FFFD), an empty token "∅", and a token longer than
 * AV_MAX_TOKEN_BYTES is cut there (at a code point boundary). out->tok[k].start
 * and .len index the tokens joined by single spaces (tokfile_text).
 * path NULL makes n_default tokens "1", "2", ... instead. Returns AV_OK,
 * AV_ERR_IO (errno), AV_ERR_TOO_LARGE (file over TOKFILE_MAX_BYTES),
 * AV_ERR_UTF8, TOKFILE_ERR (bad JSON), AV_ERR_EMPTY (no token),
 * AV_ERR_TOO_MANY (more than max_tokens) or AV_ERR_NOMEM; msg gets one line
 * naming the file and the line or byte. out must be zeroed; free it with
 * tokenize_free. */
int tokfile_read(const char *path, int n_default, int max_tokens, TokenList *out, char *msg,
                 size_t msglen);

/* The tokens joined by single spaces into a malloc'd NUL-terminated text,
 * the one their start/len index. Returns AV_OK or AV_ERR_NOMEM. */
int tokfile_text(const TokenList *t, char **text, size_t *len);

#endif
