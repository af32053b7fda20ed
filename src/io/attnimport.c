/* attnimport.c - an imported array with its token files (attnimport.h):
 * the cheapest error first (the map and header, the tokens, the key tokens,
 * the shape against them), the streamed check of the data last.
 */
#include "io/attnimport.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "io/fileio.h"
#include "io/tokfile.h"

int attnimport_check_tokens(const AttnFile *af, int n_tokens, int n_key_tokens, const char *name,
                            const char *tok_name, const char *key_name, char *msg, size_t msglen)
{
    if (af->n_q != n_tokens) {
        snprintf(msg, msglen, "%s has %d rows per head but %s has %d tokens", file_base_name(name),
                 af->n_q, tok_name ? file_base_name(tok_name) : "the token list", n_tokens);
        return AV_ERR_NPY_SHAPE;
    }
    int want = n_key_tokens ? n_key_tokens : n_tokens;
    if (af->n_k == want)
        return AV_OK;
    if (n_key_tokens)
        snprintf(msg, msglen, "%s has %d columns per head but %s has %d tokens",
                 file_base_name(name), af->n_k,
                 key_name ? file_base_name(key_name) : "the key tokens", n_key_tokens);
    else
        snprintf(msg, msglen,
                 "%s has %d columns per head but %s has %d tokens "
                 "(cross-attention needs --key-tokens)",
                 file_base_name(name), af->n_k,
                 tok_name ? file_base_name(tok_name) : "the token list", n_tokens);
    return AV_ERR_NPY_SHAPE;
}

int attnimport_open(const char *npy_path, const char *tokens_path, const char *key_tokens_path,
                    AttnImport *im, char *msg, size_t msglen)
{
    memset(im, 0, sizeof(*im));
    int rc = attnfile_open(npy_path, &im->a, msg, msglen);
    if (rc == AV_OK)
        rc = tokfile_read(tokens_path, im->a.n_q, AV_MAX_TOKENS, &im->tokens, msg, msglen);
    if (rc == AV_OK && (key_tokens_path || (!tokens_path && im->a.n_k != im->a.n_q)))
        rc = tokfile_read(key_tokens_path, im->a.n_k, AV_MAX_TOKENS, &im->key_tokens, msg, msglen);
    if (rc == AV_OK)
        rc = attnimport_check_tokens(&im->a, im->tokens.n, im->key_tokens.n, npy_path, tokens_path,
                                     key_tokens_path, msg, msglen);
    if (rc == AV_OK)
        rc = tokfile_text(&im->tokens, &im->text, &im->text_len);
    if (rc == AV_OK && im->key_tokens.n)
        rc = tokfile_text(&im->key_tokens, &im->key_text, &im->key_text_len);
    if (rc == AV_ERR_NOMEM)
        snprintf(msg, msglen, "%s", av_strerror(rc));
    if (rc != AV_OK)
        attnimport_free(im);
    return rc;
}

int attnimport_load(const char *npy_path, const char *tokens_path, const char *key_tokens_path,
                    AttnImport *im, char *msg, size_t msglen)
{
    int rc = attnimport_open(npy_path, tokens_path, key_tokens_path, im, msg, msglen);
    if (rc == AV_OK)
        rc = attnfile_validate(&im->a, msg, msglen);
    if (rc != AV_OK)
        attnimport_free(im);
    return rc;
}

void attnimport_free(AttnImport *im)
{
    attnfile_close(&im->a);
    tokenize_free(&im->tokens);
    tokenize_free(&im->key_tokens);
    free(im->text);
    free(im->key_text);
    memset(im, 0, sizeof(*im));
}
