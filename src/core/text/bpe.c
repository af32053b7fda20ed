/* bpe.c - a byte-level BPE vocabulary (bpe.h): the tokens by id, a hash from
 * token bytes to id, a hash from a merge's pair of ids to its rank and result,
 * GPT-2's byte alphabet, and ids back to bytes and to display strings. The
 * encoder itself (pre-tokenisation and merging) is in bpe_encode.c. No I/O.
 */
#include "core/bpe.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/rng.h"
#include "core/utf8.h"

#define BPE_MAX_VOCAB (1 << 24)
#define BPE_MAX_TOKEN_BYTES 1024
#define PAIR_EMPTY UINT64_MAX

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

static uint64_t hash_pair(uint64_t key)
{
    key ^= key >> 33; /* a 64-bit finaliser (murmur3's) */
    key *= 0xff51afd7ed558ccdu;
    key ^= key >> 33;
    return key;
}

static size_t pow2_at_least(size_t n)
{
    size_t s = 16;
    while (s < n)
        s *= 2;
    return s;
}

static int pair_alloc(Bpe *b, size_t slots)
{
    b->pair_key = malloc(slots * sizeof *b->pair_key);
    b->pair_rank = malloc(slots * sizeof *b->pair_rank);
    b->pair_id = malloc(slots * sizeof *b->pair_id);
    if (!b->pair_key || !b->pair_rank || !b->pair_id)
        return AV_ERR_NOMEM;
    for (size_t k = 0; k < slots; k++)
        b->pair_key[k] = PAIR_EMPTY;
    b->pair_slots = slots;
    return AV_OK;
}

int bpe_init(Bpe *b, int n_vocab, int n_merges)
{
    memset(b, 0, sizeof *b);
    b->eot = -1;
    if (n_vocab < 1 || n_vocab > BPE_MAX_VOCAB || n_merges < 0 || n_merges > BPE_MAX_VOCAB)
        return AV_ERR_CONFIG;
    b->n_vocab = n_vocab;
    b->off = calloc((size_t)n_vocab + 1, sizeof *b->off);
    b->len = calloc((size_t)n_vocab, sizeof *b->len);
    b->tok_slots = pow2_at_least((size_t)n_vocab * 2);
    b->tok_hash = malloc(b->tok_slots * sizeof *b->tok_hash);
    b->pool_cap = (size_t)n_vocab * 8;
    b->pool = malloc(b->pool_cap);
    if (!b->off || !b->len || !b->tok_hash || !b->pool ||
        pair_alloc(b, pow2_at_least((size_t)n_merges * 2))) {
        bpe_free(b);
        return AV_ERR_NOMEM;
    }
    for (size_t k = 0; k < b->tok_slots; k++)
        b->tok_hash[k] = -1;
    for (int c = 0; c < 256; c++)
        b->byte_id[c] = -1;
    return AV_OK;
}

void bpe_free(Bpe *b)
{
    free(b->off);
    free(b->len);
    free(b->pool);
    free(b->tok_hash);
    free(b->pair_key);
    free(b->pair_rank);
    free(b->pair_id);
    memset(b, 0, sizeof *b);
}

/* The slot of s[0..len) in tok_hash: the one holding its id, or the empty
 * slot where it would go. */
static size_t tok_slot(const Bpe *b, const char *s, size_t len)
{
    size_t mask = b->tok_slots - 1, k = (size_t)hash_bytes(s, len) & mask;
    for (;;) {
        int id = b->tok_hash[k];
        if (id < 0 || (b->len[id] == len && memcmp(b->pool + b->off[id], s, len) == 0))
            return k;
        k = (k + 1) & mask;
    }
}

int bpe_find(const Bpe *b, const char *s, size_t len)
{
    if (!b->tok_slots || len == 0)
        return -1;
    return b->tok_hash[tok_slot(b, s, len)];
}

int bpe_set_token(Bpe *b, int id, const char *s, size_t len, char *why, size_t whylen)
{
    if (id < 0 || id >= b->n_vocab)
        return fail(why, whylen, "token id %d is out of range (%d tokens: ids 0..%d)", id,
                    b->n_vocab, b->n_vocab - 1);
    if (b->len[id])
        return fail(why, whylen, "token id %d is given twice", id);
    if (len == 0 || len > BPE_MAX_TOKEN_BYTES)
        return fail(why, whylen, "token id %d is %s", id, len ? "longer than 1024 bytes" : "empty");
    size_t slot = tok_slot(b, s, len);
    if (b->tok_hash[slot] >= 0)
        return fail(why, whylen, "token id %d is the same text as token id %d", id,
                    b->tok_hash[slot]);
    if (b->pool_used + len > UINT32_MAX)
        return fail(why, whylen, "the tokens hold more than 4 GB");
    if (b->pool_used + len > b->pool_cap) {
        size_t cap = (b->pool_cap + len) * 2;
        char *p = realloc(b->pool, cap);
        if (!p)
            return AV_ERR_NOMEM;
        b->pool = p, b->pool_cap = cap;
    }
    memcpy(b->pool + b->pool_used, s, len);
    b->off[id] = (uint32_t)b->pool_used;
    b->len[id] = (uint32_t)len;
    b->pool_used += len;
    b->tok_hash[slot] = id;
    return AV_OK;
}

const char *bpe_token(const Bpe *b, int id, size_t *len)
{
    if (id < 0 || id >= b->n_vocab) {
        *len = 0;
        return NULL;
    }
    *len = b->len[id];
    return b->pool + b->off[id];
}

static size_t pair_slot(const Bpe *b, uint64_t key)
{
    size_t mask = b->pair_slots - 1, k = (size_t)hash_pair(key) & mask;
    while (b->pair_key[k] != PAIR_EMPTY && b->pair_key[k] != key)
        k = (k + 1) & mask;
    return k;
}

/* Double the pair table when it is half full. */
static int pair_grow(Bpe *b)
{
    Bpe old = *b;
    if (pair_alloc(b, old.pair_slots * 2)) {
        free(b->pair_key), free(b->pair_rank), free(b->pair_id);
        b->pair_key = old.pair_key, b->pair_rank = old.pair_rank, b->pair_id = old.pair_id;
        b->pair_slots = old.pair_slots;
        return AV_ERR_NOMEM;
    }
    for (size_t k = 0; k < old.pair_slots; k++) {
        if (old.pair_key[k] == PAIR_EMPTY)
            continue;
        size_t s = pair_slot(b, old.pair_key[k]);
        b->pair_key[s] = old.pair_key[k];
        b->pair_rank[s] = old.pair_rank[k];
        b->pair_id[s] = old.pair_id[k];
    }
    free(old.pair_key), free(old.pair_rank), free(old.pair_id);
    return AV_OK;
}

int bpe_add_merge(Bpe *b, int left, int right, char *why, size_t whylen)
{
    int rank = b->n_merges;
    if (left < 0 || left >= b->n_vocab || !b->len[left] || right < 0 || right >= b->n_vocab ||
        !b->len[right])
        return fail(why, whylen, "merge %d names a token id that has no token", rank + 1);
    size_t ll = b->len[left], lr = b->len[right];
    char buf[2 * BPE_MAX_TOKEN_BYTES];
    memcpy(buf, b->pool + b->off[left], ll);
    memcpy(buf + ll, b->pool + b->off[right], lr);
    int id = bpe_find(b, buf, ll + lr);
    if (id < 0)
        return fail(why, whylen, "merge %d makes a token that is not in the vocabulary", rank + 1);
    if ((size_t)(b->n_merges + 1) * 2 > b->pair_slots && pair_grow(b))
        return AV_ERR_NOMEM;
    uint64_t key = (uint64_t)left << 32 | (uint32_t)right;
    size_t s = pair_slot(b, key);
    if (b->pair_key[s] == key)
        return fail(why, whylen, "merge %d repeats merge %d", rank + 1, b->pair_rank[s] + 1);
    b->pair_key[s] = key;
    b->pair_rank[s] = rank;
    b->pair_id[s] = id;
    b->n_merges++;
    return AV_OK;
}

int bpe_merge_rank(const Bpe *b, int left, int right, int *id)
{
    uint64_t key = (uint64_t)(uint32_t)left << 32 | (uint32_t)right;
    size_t s = pair_slot(b, key);
    if (b->pair_key[s] != key)
        return -1;
    *id = b->pair_id[s];
    return b->pair_rank[s];
}

int bpe_finish(Bpe *b, char *why, size_t whylen)
{
    for (int id = 0; id < b->n_vocab; id++)
        if (!b->len[id])
            return fail(why, whylen, "token id %d has no token (ids must run 0..%d)", id,
                        b->n_vocab - 1);
    for (int c = 0; c < 256; c++) {
        char s = (char)c;
        b->byte_id[c] = bpe_find(b, &s, 1);
        if (b->byte_id[c] < 0)
            return fail(why, whylen, "no token stands for the byte 0x%02x alone", c);
    }
    b->eot = bpe_find(b, BPE_EOT_TEXT, strlen(BPE_EOT_TEXT));
    return AV_OK;
}

/* GPT-2's alphabet keeps the printable Latin-1 bytes ('!'..'~', 0xA1..0xAC,
 * 0xAE..0xFF) as themselves and numbers the other 68 from U+0100 upwards in
 * byte order: 0x00..0x20, then 0x7F..0xA0, then 0xAD. */
unsigned bpe_byte_unicode(unsigned char c)
{
    if (c <= 0x20)
        return 0x100 + c;
    if (c >= 0x7F && c <= 0xA0)
        return 0x100 + 33 + (c - 0x7Fu);
    if (c == 0xAD)
        return 0x100 + 67;
    return c;
}

int bpe_unicode_byte(unsigned cp)
{
    if ((cp > 0x20 && cp < 0x7F) || (cp > 0xA0 && cp <= 0xFF && cp != 0xAD))
        return (int)cp;
    if (cp >= 0x100 && cp < 0x100 + 33)
        return (int)(cp - 0x100);
    if (cp >= 0x100 + 33 && cp < 0x100 + 67)
        return (int)(cp - 0x100 - 33 + 0x7F);
    return cp == 0x100 + 67 ? 0xAD : -1;
}

size_t bpe_decode(const Bpe *b, const int *ids, int n, char *out, size_t cap)
{
    size_t need = 0;
    for (int i = 0; i < n; i++) {
        if (ids[i] < 0 || ids[i] >= b->n_vocab)
            return (size_t)-1;
        size_t l = b->len[ids[i]];
        if (need < cap)
            memcpy(out + need, b->pool + b->off[ids[i]], l < cap - need ? l : cap - need);
        need += l;
    }
    return need;
}

size_t bpe_display(const char *s, size_t len, char *out)
{
    size_t o = 0;
    for (size_t k = 0; k < len;) {
        unsigned cp;
        int m = utf8_decode(s + k, len - k, &cp);
        if (m == 0) { /* a byte of a character this token holds only part of */
            o += (size_t)sprintf(out + o, "\xe2\x80\xb9%02x\xe2\x80\xba", (unsigned char)s[k]);
            k++;
            continue;
        }
        const char *mark = cp == ' '    ? "\xe2\x90\xa3" /* ␣ */
                           : cp == '\n' ? "\xe2\x86\xb5" /* ↵ */
                           : cp == '\t' ? "\xe2\x87\xa5" /* ⇥ */
                                        : NULL;
        if (mark)
            memcpy(out + o, mark, 3), o += 3;
        else if (cp < 0x20 || cp == 0x7F)
            o += (size_t)sprintf(out + o, "^%c", cp == 0x7F ? '?' : (char)(cp + '@'));
        else
            memcpy(out + o, s + k, (size_t)m), o += (size_t)m;
        k += (size_t)m;
    }
    out[o] = 0;
    return o;
}

int bpe_token_list(const char *text, const BpeEncoding *e, TokenList *tl)
{
    tokenize_free(tl);
    size_t bytes = 1;
    for (int i = 0; i < e->n; i++)
        bytes += BPE_DISPLAY_MAX(e->piece[i].len);
    tl->tok = malloc((size_t)(e->n ? e->n : 1) * sizeof *tl->tok);
    tl->pool = malloc(bytes);
    if (!tl->tok || !tl->pool) {
        tokenize_free(tl);
        return AV_ERR_NOMEM;
    }
    size_t used = 0;
    for (int i = 0; i < e->n; i++) {
        const BpePiece *p = &e->piece[i];
        char *dst = tl->pool + used;
        used += bpe_display(text + p->start, p->len, dst) + 1;
        tl->tok[i] = (Token){.start = p->start, .len = p->len, .str = dst};
    }
    tl->n = e->n;
    tl->tok_cap = e->n ? e->n : 1;
    tl->pool_cap = bytes;
    return AV_OK;
}
