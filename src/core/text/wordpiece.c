/* wordpiece.c - a WordPiece vocabulary (wordpiece.h): the tokens by id, a
 * hash from token bytes to id, the special tokens, and encodings as
 * TokenLists. The encoder (the basic tokenizer and the greedy cut) is in
 * wordpiece_encode.c. No I/O.
 */
#include "core/wordpiece.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/rng.h"
#include "core/utf8.h"

#define WP_MAX_VOCAB (1 << 24)

static const char *const special_text[WP_N_SPECIAL] = {"[CLS]", "[SEP]", "[MASK]", "[UNK]",
                                                       "[PAD]"};

static int fail(char *why, size_t whylen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
    if (why && whylen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, whylen, fmt, ap);
        va_end(ap);
    }
    return AV_ERR_MODEL;
}

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = rng_hash(s, len); /* FNV-1a */
    return h ^ (h >> 29);
}

int wp_init(WordPiece *w, int n_vocab)
{
    memset(w, 0, sizeof *w);
    if (n_vocab < 1 || n_vocab > WP_MAX_VOCAB)
        return AV_ERR_CONFIG;
    w->n_vocab = n_vocab;
    w->lower = true;
    w->strip = true;
    w->max_chars = 100;
    memcpy(w->prefix, "##", 2);
    w->prefix_len = 2;
    for (int k = 0; k < WP_N_SPECIAL; k++)
        w->special[k] = -1;
    w->slots = 16;
    while (w->slots < 2 * (size_t)n_vocab)
        w->slots *= 2;
    w->off = calloc((size_t)n_vocab + 1, sizeof *w->off);
    w->len = calloc((size_t)n_vocab, sizeof *w->len);
    w->hash = malloc(w->slots * sizeof *w->hash);
    w->pool_cap = n_vocab < (1 << 17) ? 8 * (size_t)n_vocab : 1u << 20; /* grows */
    w->pool = malloc(w->pool_cap);
    if (!w->off || !w->len || !w->hash || !w->pool) {
        wp_free(w);
        return AV_ERR_NOMEM;
    }
    memset(w->hash, 0xff, w->slots * sizeof *w->hash);
    for (int id = 0; id < n_vocab; id++)
        w->off[id] = UINT32_MAX; /* no token yet */
    return AV_OK;
}

void wp_free(WordPiece *w)
{
    free(w->off);
    free(w->len);
    free(w->pool);
    free(w->hash);
    memset(w, 0, sizeof *w);
}

/* The slot of s[0..len): the one holding it, or the empty one to put it in. */
static size_t slot_of(const WordPiece *w, const char *s, size_t len)
{
    size_t mask = w->slots - 1, k = hash_bytes(s, len) & mask;
    for (;;) {
        int32_t id = w->hash[k];
        if (id < 0 || (w->len[id] == len && memcmp(w->pool + w->off[id], s, len) == 0))
            return k;
        k = (k + 1) & mask;
    }
}

int wp_set_token(WordPiece *w, int id, const char *s, size_t len, char *why, size_t whylen)
{
    if (id < 0 || id >= w->n_vocab)
        return fail(why, whylen, "id %d out of range 0..%d", id, w->n_vocab - 1);
    if (w->off[id] != UINT32_MAX)
        return fail(why, whylen, "id %d given twice", id);
    if (len > WP_MAX_TOKEN_BYTES)
        return fail(why, whylen, "token %d is longer than %d bytes", id, WP_MAX_TOKEN_BYTES);
    size_t ok = utf8_valid_prefix(s, len);
    if (ok < len)
        return fail(why, whylen, "token %d is not UTF-8 (byte %zu)", id, ok);
    if (w->pool_used + len > w->pool_cap) {
        size_t cap = w->pool_cap * 2 + len;
        if (cap > UINT32_MAX)
            return fail(why, whylen, "the tokens hold more than 4 GB");
        char *p = realloc(w->pool, cap);
        if (!p)
            return AV_ERR_NOMEM;
        w->pool = p, w->pool_cap = cap;
    }
    memcpy(w->pool + w->pool_used, s, len);
    w->off[id] = (uint32_t)w->pool_used;
    w->len[id] = (uint32_t)len;
    w->pool_used += len;
    w->hash[slot_of(w, s, len)] = id; /* a repeated token: the later id */
    w->n_set++;
    return AV_OK;
}

int wp_find(const WordPiece *w, const char *s, size_t len)
{
    if (!w->hash || len > WP_MAX_TOKEN_BYTES)
        return -1;
    return w->hash[slot_of(w, s, len)];
}

int wp_finish(WordPiece *w, const char *unk, char *why, size_t whylen)
{
    if (w->n_set != w->n_vocab) {
        int id = 0;
        while (id < w->n_vocab && w->off[id] != UINT32_MAX)
            id++;
        return fail(why, whylen, "id %d has no token", id);
    }
    w->off[w->n_vocab] = (uint32_t)w->pool_used;
    for (int k = 0; k < WP_N_SPECIAL; k++) {
        const char *t = k == WP_UNK && unk ? unk : special_text[k];
        w->special[k] = wp_find(w, t, strlen(t));
    }
    for (int k = WP_CLS; k <= WP_UNK; k++)
        if (k != WP_MASK && w->special[k] < 0)
            return fail(why, whylen, "the vocabulary has no %s token",
                        k == WP_UNK && unk ? unk : special_text[k]);
    if (w->max_chars < 1)
        return fail(why, whylen, "max_input_chars_per_word %d is not positive", w->max_chars);
    return AV_OK;
}

const char *wp_token(const WordPiece *w, int id, size_t *len)
{
    if (id < 0 || id >= w->n_vocab) {
        *len = 0;
        return NULL;
    }
    *len = w->len[id];
    return w->pool + w->off[id];
}

int wp_token_list(const WordPiece *w, const WpEncoding *e, TokenList *tl)
{
    tokenize_free(tl);
    size_t bytes = 1;
    for (int i = 0; i < e->n; i++)
        bytes += w->len[e->piece[i].id] + 1;
    tl->tok = malloc((size_t)(e->n ? e->n : 1) * sizeof *tl->tok);
    tl->pool = malloc(bytes);
    if (!tl->tok || !tl->pool) {
        tokenize_free(tl);
        return AV_ERR_NOMEM;
    }
    size_t used = 0;
    for (int i = 0; i < e->n; i++) {
        const WpPiece *p = &e->piece[i];
        size_t len;
        const char *t = wp_token(w, p->id, &len);
        char *dst = tl->pool + used;
        memcpy(dst, t, len);
        dst[len] = 0;
        used += len + 1;
        tl->tok[i] = (Token){.start = p->start, .len = p->len, .str = dst};
    }
    tl->n = e->n;
    tl->tok_cap = e->n ? e->n : 1;
    tl->pool_cap = bytes;
    return AV_OK;
}
