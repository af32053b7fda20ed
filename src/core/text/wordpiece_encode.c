/* wordpiece_encode.c - BERT's encoder (wordpiece.h): the text cut at typed
 * special tokens, each stretch through the basic tokenizer (clean, split on
 * whitespace and CJK ideographs, lower-case and strip accents, split on
 * punctuation), each word cut greedily into vocabulary pieces. Every
 * character carries the byte span of the character of the text it came from,
 * so that each token has a span. The vocabulary is in wordpiece.c and the
 * Unicode answers in wp_unicode.c.
 */
#include "core/wordpiece.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"
#include "core/wp_unicode.h"

/* A character and the bytes of the text's character it comes from. */
typedef struct {
    unsigned cp;
    size_t start, end;
} Ch;

/* Scratch kept in WpEncoding.work between calls. */
typedef struct {
    Ch *word;      /* the current word, cleaned (word_cap) */
    unsigned *wcp; /* its code points alone, for the final sigma (word_cap) */
    size_t word_cap;
    Ch *norm;        /* the word lower-cased, decomposed and stripped (norm_cap) */
    char *bytes;     /* a piece's UTF-8 (4 * norm_cap) */
    size_t *boff;    /* where each character's bytes start (norm_cap + 1) */
    int *cut_id;     /* the pieces of the greedy cut: their ids (norm_cap) */
    size_t *cut_end; /* and the character each ends before (norm_cap) */
    size_t norm_cap;
    char key[WP_PREFIX_MAX + WP_MAX_TOKEN_BYTES];
} Work;

typedef struct {
    const WordPiece *w;
    WpEncoding *e;
    Work *k;
    int max_tokens;
} Enc;

static int grow(void **p, size_t need, size_t size)
{
    void *q = realloc(*p, need * size);
    if (!q)
        return AV_ERR_NOMEM;
    *p = q;
    return AV_OK;
}

static int word_room(Work *k, size_t need)
{
    if (need <= k->word_cap)
        return AV_OK;
    size_t cap = need < 64 ? 64 : need * 2;
    if (grow((void **)&k->word, cap, sizeof *k->word) ||
        grow((void **)&k->wcp, cap, sizeof *k->wcp))
        return AV_ERR_NOMEM;
    k->word_cap = cap;
    return AV_OK;
}

static int norm_room(Work *k, size_t need)
{
    if (need <= k->norm_cap)
        return AV_OK;
    size_t cap = need < 256 ? 256 : need * 2;
    if (grow((void **)&k->norm, cap, sizeof *k->norm) || grow((void **)&k->bytes, cap, 4) ||
        grow((void **)&k->boff, cap + 1, sizeof *k->boff) ||
        grow((void **)&k->cut_id, cap, sizeof *k->cut_id) ||
        grow((void **)&k->cut_end, cap, sizeof *k->cut_end))
        return AV_ERR_NOMEM;
    k->norm_cap = cap;
    return AV_OK;
}

/* Append a token; a start before the previous token's is moved up to it, so
 * that starts never go back (marks reordered by NFD can come from a later
 * character than the one before them). */
static int push(Enc *x, int id, size_t start, size_t end)
{
    WpEncoding *e = x->e;
    if (e->n >= x->max_tokens)
        return AV_ERR_TOO_MANY;
    if (e->n == e->cap) {
        int cap = e->cap ? 2 * e->cap : 64;
        if (grow((void **)&e->piece, (size_t)cap, sizeof *e->piece))
            return AV_ERR_NOMEM;
        e->cap = cap;
    }
    if (e->n > 0 && start < e->piece[e->n - 1].start)
        start = e->piece[e->n - 1].start;
    if (end < start)
        end = start;
    e->piece[e->n++] = (WpPiece){id, start, end - start};
    return AV_OK;
}

/* A typed special token: its id (a [SEP] opens the second sentence). */
static int push_special(Enc *x, int k, size_t start, size_t end)
{
    int rc = push(x, x->w->special[k], start, end);
    if (!rc && k == WP_SEP && x->e->second < 0)
        x->e->second = x->e->n;
    return rc;
}

/* The span of c[0..n): the least start to the greatest end. */
static void span_of(const Ch *c, size_t n, size_t *start, size_t *end)
{
    *start = c[0].start, *end = c[0].end;
    for (size_t i = 1; i < n; i++) {
        if (c[i].start < *start)
            *start = c[i].start;
        if (c[i].end > *end)
            *end = c[i].end;
    }
}

/* The longest vocabulary entry starting at character s of the piece held in
 * k->bytes (n characters): its id, and in *end the character after it; -1
 * when there is none. */
static int longest_at(const Enc *x, size_t s, size_t n, size_t *end)
{
    const WordPiece *w = x->w;
    Work *k = x->k;
    size_t pre = s ? w->prefix_len : 0;
    memcpy(k->key, w->prefix, pre);
    for (size_t t = n; t > s; t--) {
        size_t blen = k->boff[t] - k->boff[s];
        if (pre + blen > WP_MAX_TOKEN_BYTES)
            continue; /* longer than any token */
        memcpy(k->key + pre, k->bytes + k->boff[s], blen);
        int id = wp_find(w, k->key, pre + blen);
        if (id >= 0) {
            *end = t;
            return id;
        }
    }
    return -1;
}

/* WordPiece on the word c[0..n) (c points into k->norm): greedy longest
 * match first, or [UNK] for the whole word. */
static int wordpiece(Enc *x, const Ch *c, size_t n)
{
    Work *k = x->k;
    size_t start, end;
    span_of(c, n, &start, &end);
    if (n > (size_t)x->w->max_chars)
        return push(x, x->w->special[WP_UNK], start, end);
    k->boff[0] = 0;
    for (size_t i = 0; i < n; i++)
        k->boff[i + 1] = k->boff[i] + (size_t)utf8_encode(c[i].cp, k->bytes + k->boff[i]);
    size_t m = 0;
    for (size_t s = 0; s < n; s = k->cut_end[m++]) {
        k->cut_id[m] = longest_at(x, s, n, &k->cut_end[m]);
        if (k->cut_id[m] < 0)
            return push(x, x->w->special[WP_UNK], start, end);
    }
    size_t s = 0;
    for (size_t p = 0; p < m; s = k->cut_end[p++]) {
        span_of(c + s, k->cut_end[p] - s, &start, &end);
        int rc = push(x, k->cut_id[p], start, end);
        if (rc)
            return rc;
    }
    return AV_OK;
}

/* Lower-case the word (Python's str.lower() over the whole word) when lower,
 * then when strip decompose (NFD: full decomposition, then marks in canonical
 * order) and drop nonspacing marks, into k->norm. Returns AV_OK or
 * AV_ERR_NOMEM; *out_n the count. */
static int normalize(Work *k, size_t n, bool lower, bool strip, size_t *out_n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned low[3], dec[WP_DECOMP_MAX];
        int nl = lower ? wp_lower_at(k->wcp, n, i, low) : (low[0] = k->wcp[i], 1);
        for (int a = 0; a < nl; a++) {
            int nd = strip ? wp_decompose(low[a], dec) : (dec[0] = low[a], 1);
            if (norm_room(k, m + (size_t)nd))
                return AV_ERR_NOMEM;
            for (int b = 0; b < nd; b++)
                k->norm[m++] = (Ch){dec[b], k->word[i].start, k->word[i].end};
        }
    }
    /* canonical ordering: a stable sort of each run of marks by class */
    for (size_t i = 1; strip && i < m; i++) {
        unsigned c = wp_ccc(k->norm[i].cp);
        for (size_t j = i; c && j > 0 && wp_ccc(k->norm[j - 1].cp) > c; j--) {
            Ch t = k->norm[j];
            k->norm[j] = k->norm[j - 1], k->norm[j - 1] = t;
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < m; i++)
        if (!strip || !(wp_flags(k->norm[i].cp) & WP_MN))
            k->norm[kept++] = k->norm[i];
    *out_n = kept;
    return AV_OK;
}

/* The special token the word k->word[0..n) spells, or -1. */
static int word_special(const Enc *x, size_t n)
{
    if (n > 16 || x->k->word[0].cp != '[')
        return -1;
    char buf[64] = "";
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)utf8_encode(x->k->word[i].cp, buf + len);
    for (int s = 0; s < WP_N_SPECIAL; s++) {
        size_t tl;
        const char *t = wp_token(x->w, x->w->special[s], &tl);
        if (t && tl == len && memcmp(t, buf, len) == 0)
            return s;
    }
    return -1;
}

/* One whitespace-separated word of n characters in k->word: lower-cased and
 * stripped of accents as the vocabulary says, split at punctuation, each part cut
 * into pieces. */
static int word_done(Enc *x, size_t n)
{
    Work *k = x->k;
    if (n == 0)
        return AV_OK;
    int s = word_special(x, n);
    if (s >= 0)
        return push_special(x, s, k->word[0].start, k->word[n - 1].end);
    size_t m = n;
    int rc = AV_OK;
    if (x->w->lower || x->w->strip) {
        rc = normalize(k, n, x->w->lower, x->w->strip, &m);
    } else if (!(rc = norm_room(k, n))) {
        memcpy(k->norm, k->word, n * sizeof *k->norm);
    }
    for (size_t i = 0, from = 0; !rc && i <= m; i++) {
        int punct = i < m && (wp_flags(k->norm[i].cp) & WP_PUNCT);
        if (i == m || punct) {
            if (i > from)
                rc = wordpiece(x, k->norm + from, i - from);
            if (!rc && punct)
                rc = wordpiece(x, k->norm + i, 1);
            from = i + 1;
        }
    }
    return rc;
}

/* The basic tokenizer over text[from, to): characters removed, spaces and
 * CJK ideographs separating words, each word to word_done. */
static int stretch(Enc *x, const char *text, size_t from, size_t to)
{
    Work *k = x->k;
    size_t n = 0;
    int rc = AV_OK;
    for (size_t at = from; at < to && !rc;) {
        unsigned cp;
        int l = utf8_decode(text + at, to - at, &cp);
        unsigned f = wp_flags(cp);
        if (cp == 0 || cp == 0xFFFD || (f & WP_CONTROL)) {
            /* removed: the characters on each side join */
        } else if (f & (WP_SPACE | WP_PYSPACE)) {
            rc = word_done(x, n), n = 0;
        } else if (!(rc = word_room(k, n + 1))) {
            int cjk = wp_is_cjk(cp);
            if (cjk && n)
                rc = word_done(x, n), n = 0;
            k->word[n] = (Ch){cp, at, at + (size_t)l};
            k->wcp[n++] = cp;
            if (!rc && cjk)
                rc = word_done(x, n), n = 0;
        }
        at += (size_t)l;
    }
    return rc ? rc : word_done(x, n);
}

/* The next special token typed in text[from, len): its index, at *at; or -1. */
static int next_special(const WordPiece *w, const char *text, size_t from, size_t len, size_t *at)
{
    for (size_t p = from; p < len; p++) {
        if (text[p] != '[')
            continue;
        for (int s = 0; s < WP_N_SPECIAL; s++) {
            size_t tl;
            const char *t = wp_token(w, w->special[s], &tl);
            if (t && tl > 0 && tl <= len - p && memcmp(text + p, t, tl) == 0) {
                *at = p;
                return s;
            }
        }
    }
    return -1;
}

int wp_encode(const WordPiece *w, const char *text, size_t len, int max_tokens, WpEncoding *e)
{
    e->n = 0, e->second = -1, e->bad_offset = 0;
    size_t valid = utf8_valid_prefix(text, len);
    if (valid < len) {
        e->bad_offset = valid;
        return AV_ERR_UTF8;
    }
    if (!e->work && !(e->work = calloc(1, sizeof(Work))))
        return AV_ERR_NOMEM;
    Enc x = {w, e, e->work, max_tokens};
    int rc = push(&x, w->special[WP_CLS], 0, 0);
    for (size_t from = 0; !rc && from <= len;) {
        size_t at = len;
        int s = next_special(w, text, from, len, &at);
        rc = stretch(&x, text, from, at);
        if (s < 0 || rc)
            break;
        size_t tl;
        wp_token(w, w->special[s], &tl);
        rc = push_special(&x, s, at, at + tl);
        from = at + tl;
    }
    if (!rc)
        rc = push(&x, w->special[WP_SEP], len, len);
    if (rc)
        e->n = 0, e->second = -1;
    return rc;
}

void wp_encoding_free(WpEncoding *e)
{
    Work *k = e->work;
    if (k) {
        free(k->word);
        free(k->wcp);
        free(k->norm);
        free(k->bytes);
        free(k->boff);
        free(k->cut_id);
        free(k->cut_end);
        free(k);
    }
    free(e->piece);
    memset(e, 0, sizeof *e);
}
