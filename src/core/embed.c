/* embed.c - toy embeddings and toy weights, deterministic from text and seed.
 *
 * A token's vector is drawn from an Rng stream whose seed mixes the FNV-1a hash
 * of the case-folded token with the user's seed, so it depends on nothing else:
 * not the position, the sentence or the machine. Case folding is a fixed table
 * (ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic), never the locale, and it
 * keeps every code point's UTF-8 length, so the folded text is never longer.
 * Weights come from streams keyed by (seed, tag). No libm; the one
 * allocation is the caller's optional cache of rows.
 */
#include "core/embed.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/rng.h"
#include "core/utf8.h"

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL
#define EMBED_WEIGHT_SALT 0x51ed2701ULL

/* Latin Extended-A U+0100-U+017F: upper/lower case come in adjacent pairs. */
static unsigned fold_latin_ext_a(unsigned cp)
{
    if (cp == 0x0178)
        return 0x00FF; /* Y with diaeresis: its lower case is in Latin-1 */
    if ((cp >= 0x0139 && cp <= 0x0148) || (cp >= 0x0179 && cp <= 0x017E))
        return (cp & 1) ? cp + 1 : cp; /* odd upper, even lower */
    /* U+0130 (dotted I) folds to two code points in Unicode: left alone, as
     * are the lone lower-case letters U+0131, U+0138, U+0149 and U+017F. */
    if (cp == 0x0130 || cp == 0x0131 || cp == 0x0138 || cp == 0x0149 || cp == 0x017F)
        return cp;
    return (cp & 1) ? cp : cp + 1; /* even upper, odd lower */
}

static unsigned fold_cp(unsigned cp)
{
    if (cp >= 'A' && cp <= 'Z')
        return cp + 0x20;
    if (cp >= 0x00C0 && cp <= 0x00DE && cp != 0x00D7)
        return cp + 0x20;
    if (cp >= 0x0100 && cp <= 0x017F)
        return fold_latin_ext_a(cp);
    if (cp >= 0x0391 && cp <= 0x03A9 && cp != 0x03A2)
        return cp + 0x20;
    if (cp >= 0x0410 && cp <= 0x042F)
        return cp + 0x20;
    if (cp >= 0x0400 && cp <= 0x040F)
        return cp + 0x50;
    return cp;
}

/* Fold the code point at src[0..len) into out; returns bytes consumed (>= 1)
 * and the bytes written in *outlen (never more than consumed). */
static size_t fold_step(const char *src, size_t len, char out[4], size_t *outlen)
{
    unsigned cp;
    int n = utf8_decode(src, len, &cp);
    if (n == 0) {
        /* invalid bytes are copied unchanged: folding must not invent text */
        out[0] = src[0];
        *outlen = 1;
        return 1;
    }
    *outlen = (size_t)utf8_encode(fold_cp(cp), out);
    return (size_t)n;
}

size_t embed_casefold(const char *src, size_t len, char *dst)
{
    size_t i = 0, o = 0;
    while (i < len) {
        char buf[4];
        size_t outlen;
        i += fold_step(src + i, len - i, buf, &outlen);
        memcpy(dst + o, buf, outlen);
        o += outlen;
    }
    dst[o] = '\0';
    return o;
}

/* folded_hash's loop from byte i on with the hash so far h: any text. */
static __attribute__((noinline)) uint64_t folded_hash_from(const char *text, size_t len, size_t i,
                                                           uint64_t h)
{
    while (i < len) {
        unsigned char b = (unsigned char)text[i];
        if (b < 0x80) {
            h ^= b >= 'A' && b <= 'Z' ? b + 0x20u : b;
            h *= FNV_PRIME;
            i++;
            continue;
        }
        char buf[4];
        size_t outlen;
        i += fold_step(text + i, len - i, buf, &outlen);
        for (size_t k = 0; k < outlen; k++) {
            h ^= (unsigned char)buf[k];
            h *= FNV_PRIME;
        }
    }
    return h;
}

/* rng_hash(casefold(text)) computed on the fly: FNV-1a is a byte stream, so
 * no folding buffer is needed. ASCII bytes fold without decoding, here; the
 * rest of a text from its first other byte on in folded_hash_from. */
static uint64_t folded_hash(const char *text, size_t len)
{
    uint64_t h = FNV_OFFSET;
    for (size_t i = 0; i < len; i++) {
        const unsigned char b = (unsigned char)text[i];
        if (b >= 0x80)
            return folded_hash_from(text, len, i, h);
        h ^= b >= 'A' && b <= 'Z' ? b + 0x20u : b;
        h *= FNV_PRIME;
    }
    return h;
}

/* The seed of a token's stream from its text and rng_mix(seed): everything
 * its row depends on but d_model. */
static uint64_t stream_seed_mixed(const char *text, size_t len, uint64_t mixed_seed)
{
    return rng_mix(folded_hash(text, len) ^ mixed_seed);
}

static uint64_t stream_seed(const char *text, size_t len, uint64_t seed)
{
    return stream_seed_mixed(text, len, rng_mix(seed));
}

static void draw_row(uint64_t stream, int d_model, float *row)
{
    Rng r;
    rng_seed(&r, stream);
    for (int c = 0; c < d_model; c++)
        row[c] = rng_symmetric(&r, 1.0f);
}

void embed_token(const char *text, size_t len, uint64_t seed, int d_model, float *row)
{
    /* row is (d_model) */
    draw_row(stream_seed(text, len, seed), d_model, row);
}

/* The cache ready for rows of d_model, emptied when that changed; false when
 * its memory cannot be had. */
static bool cache_ready(EmbedCache *c, int d_model)
{
    if (c->rows && c->d_model == d_model)
        return true;
    embed_cache_free(c);
    c->key = calloc(EMBED_CACHE_SLOTS, sizeof *c->key);
    c->rows = malloc((size_t)EMBED_CACHE_SLOTS * (size_t)d_model * sizeof *c->rows);
    if (!c->key || !c->rows) {
        embed_cache_free(c);
        return false;
    }
    c->d_model = d_model;
    return true;
}

int embed_tokens(const TokenList *tokens, uint64_t seed, int d_model, float *X, EmbedCache *cache)
{
    /* X is (n, d_model), row i from tokens->tok[i] */
    if (cache && !cache_ready(cache, d_model))
        cache = NULL;
    const uint64_t mixed = rng_mix(seed); /* the same for every token */
    for (int i = 0; i < tokens->n; i++) {
        const Token *t = &tokens->tok[i];
        float *row = X + (size_t)i * (size_t)d_model;
        uint64_t key = stream_seed_mixed(t->str, t->len, mixed);
        size_t slot = key % EMBED_CACHE_SLOTS;
        float *kept = cache ? cache->rows + slot * (size_t)d_model : NULL;
        if (kept && cache->key[slot] == key) {
            memcpy(row, kept, (size_t)d_model * sizeof *row);
            continue;
        }
        draw_row(key, d_model, row);
        if (kept && key != 0) {
            memcpy(kept, row, (size_t)d_model * sizeof *row);
            cache->key[slot] = key;
        }
    }
    return AV_OK;
}

void embed_cache_free(EmbedCache *cache)
{
    free(cache->key);
    free(cache->rows);
    memset(cache, 0, sizeof *cache);
}

void embed_weights(uint64_t seed, uint64_t tag, int rows, int cols, float std, float *W)
{
    /* W is (rows, cols), row-major, filled in memory order */
    Rng r;
    rng_seed(&r, rng_mix(seed ^ rng_mix(tag + EMBED_WEIGHT_SALT)));
    size_t count = (size_t)rows * (size_t)cols;
    for (size_t k = 0; k < count; k++)
        W[k] = rng_symmetric(&r, std);
}
