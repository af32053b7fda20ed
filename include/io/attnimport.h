/* attnimport.h - the whole of --attention FILE --tokens FILE [--key-tokens
 * FILE]: the mapped array (attnfile.h) and its token files (tokfile.h),
 * checked against each other, and the tokens joined into the text the views
 * show.
 */
#ifndef ATTNVIZ_ATTNIMPORT_H
#define ATTNVIZ_ATTNIMPORT_H

#include <stddef.h>

#include "core/tokenize.h"
#include "io/attnfile.h"

/* Check the shape against the token counts: n_q == n_tokens and n_k ==
 * n_key_tokens, or, with n_key_tokens == 0 (no key tokens file), n_k ==
 * n_tokens. Returns AV_OK or AV_ERR_NPY_SHAPE with a message that says rows
 * (or columns) against tokens, e.g. "A.npy has 12 rows per head but
 * tokens.txt has 11 tokens". names: the array's and the token files' names
 * for the message (key_name may be NULL). */
int attnimport_check_tokens(const AttnFile *af, int n_tokens, int n_key_tokens, const char *name,
                            const char *tok_name, const char *key_name, char *msg, size_t msglen);

/* Everything --attention FILE --tokens FILE [--key-tokens FILE] needs, in the
 * order that reports the cheapest error first: map and header, tokens, key
 * tokens, shape against the tokens, then the streamed validation. */
typedef struct {
    AttnFile a;
    TokenList tokens;     /* n_q query tokens */
    TokenList key_tokens; /* n_k key tokens with a key token file, else n = 0 */
    char *text;           /* tokens joined by spaces (tokens' start/len) */
    size_t text_len;
    char *key_text; /* likewise for key_tokens, or NULL */
    size_t key_text_len;
} AttnImport;

/* Open npy_path with its token files. tokens_path NULL numbers the tokens
 * 1..n_q (and the keys 1..n_k when key_tokens_path is NULL too);
 * key_tokens_path NULL with a token file means self-attention, so n_k must
 * equal the number of tokens. Returns AV_OK or the first error of the functions
 * above, with msg set; on error *im is freed. On AV_OK, im->a.warning may
 * hold a warning for the status line. im must be zeroed. */
int attnimport_load(const char *npy_path, const char *tokens_path, const char *key_tokens_path,
                    AttnImport *im, char *msg, size_t msglen);

/* attnimport_load without the pass over the data (attnfile_validate or
 * attnfile_check_start, still to do: im->a.validated is false), for the
 * interface on a large file. Returns AV_OK or the first error, with msg set;
 * on error *im is freed. im must be zeroed. */
int attnimport_open(const char *npy_path, const char *tokens_path, const char *key_tokens_path,
                    AttnImport *im, char *msg, size_t msglen);

/* Free everything; accepts a zeroed or freed AttnImport. */
void attnimport_free(AttnImport *im);

#endif
