/* embed.h - toy embeddings and toy weights, deterministic from text and seed.
 *
 * A token's vector depends only on its case-folded text and the seed: the same
 * word gets the same vector at every position, in every sentence, on every
 * machine. Case folding covers ASCII, Latin-1, Latin Extended-A, Greek and
 * Cyrillic (a fixed table, not the locale), so "The" and "the" share a vector.
 */
#ifndef ATTNVIZ_EMBED_H
#define ATTNVIZ_EMBED_H

#include <stddef.h>
#include <stdint.h>

#include "core/tokenize.h"

/* Tags of the toy weight matrices, for embed_weights. Layer l > 0 uses
 * EMBED_TAG_LAYER(l, tag); layer 0 gives the plain tags. */
#define EMBED_TAG_WQ 1
#define EMBED_TAG_WK 2
#define EMBED_TAG_WV 3
#define EMBED_TAG_WO 4
#define EMBED_TAG_W1 5
#define EMBED_TAG_W2 6
#define EMBED_TAG_LAYER(l, t) ((uint64_t)(l)*16 + (t))

/* Case-fold UTF-8 src[0..len) into dst (at least len + 1 bytes: folding never
 * lengthens the text here). Returns the folded byte length; dst is NUL-ended. */
size_t embed_casefold(const char *src, size_t len, char *dst);

/* Fill row (d_model floats) with the toy embedding of one token: uniform
 * values of mean 0 and standard deviation 1 from a stream seeded by
 * hash(casefold(text)) mixed with seed. */
void embed_token(const char *text, size_t len, uint64_t seed, int d_model, float *row);

/* Rows already drawn, so that a word typed again is copied, not drawn again.
 * A row is a function of its stream's seed (the folded text's hash mixed with
 * the seed) and d_model alone, and that stream seed is the key, so a hit is
 * always the row embed_token would draw. Direct-mapped, EMBED_CACHE_SLOTS rows;
 * zero it before first use, embed_cache_free it after. */
#define EMBED_CACHE_SLOTS 256
typedef struct {
    int d_model;   /* of the rows held; another d_model empties the cache */
    uint64_t *key; /* (EMBED_CACHE_SLOTS) stream seed of each slot, 0 = empty */
    float *rows;   /* (EMBED_CACHE_SLOTS, d_model) */
} EmbedCache;

/* X is (n, d_model), row i the embedding of tokens->tok[i], bit for bit
 * embed_token's. cache may be NULL; when its memory cannot be had the rows
 * are drawn without it. Returns AV_OK. */
int embed_tokens(const TokenList *tokens, uint64_t seed, int d_model, float *X, EmbedCache *cache);

void embed_cache_free(EmbedCache *cache);

/* Fill W (rows * cols floats, row-major) with uniform values of standard
 * deviation std from the stream (seed, tag). Different tags give independent
 * matrices: embed.c names the tags of W_q, W_k, W_v, W_o and the FFN. */
void embed_weights(uint64_t seed, uint64_t tag, int rows, int cols, float std, float *W);

#endif
