/* bpe_encode.c - GPT-2's encoder (bpe.h): the literal <|endoftext|>, GPT-2's
 * pre-tokenisation pattern written out by hand over code points, and the
 * merges of each piece by rank with a linked list of symbols and a binary
 * heap of candidate pairs (O(m log m) for a piece of m bytes, so a long run
 * of letters costs no more than its length). Not the vocabulary (bpe.c).
 */
#include "core/bpe.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"

enum { BPE_CLASS_OTHER, BPE_CLASS_SPACE, BPE_CLASS_LETTER, BPE_CLASS_NUMBER };

typedef struct {
    uint32_t first, last;
    uint8_t cls;
} ClassRange;

static const ClassRange class_ranges[] = {
#include "bpe_unicode.inc"
};

/* \s, \p{L}, \p{N} or none, as Python's regex module says. */
static int char_class(unsigned cp)
{
    if (cp < 0x80) {
        if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z')
            return BPE_CLASS_LETTER;
        if (cp >= '0' && cp <= '9')
            return BPE_CLASS_NUMBER;
        return cp == ' ' || (cp >= '\t' && cp <= '\r') ? BPE_CLASS_SPACE : BPE_CLASS_OTHER;
    }
    size_t lo = 0, hi = sizeof class_ranges / sizeof class_ranges[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cp < class_ranges[mid].first)
            hi = mid;
        else if (cp > class_ranges[mid].last)
            lo = mid + 1;
        else
            return class_ranges[mid].cls;
    }
    return BPE_CLASS_OTHER;
}

/* The class of the code point at t[i] (valid UTF-8) and its end in *next. */
static int class_at(const char *t, size_t len, size_t i, size_t *next)
{
    if ((unsigned char)t[i] < 0x80) { /* ASCII, most of most texts: no decoding */
        *next = i + 1;
        return char_class((unsigned char)t[i]);
    }
    unsigned cp = 0;
    int m = utf8_decode(t + i, len - i, &cp);
    *next = i + (size_t)(m ? m : 1);
    return char_class(cp);
}

/* The end of the run of class cls that starts at i. */
static size_t run_end(const char *t, size_t len, size_t i, int cls)
{
    size_t next;
    while (i < len && class_at(t, len, i, &next) == cls)
        i = next;
    return i;
}

/* GPT-2's contractions: the length of the one at t[i] ('s 't 're 've 'm 'll
 * 'd, lowercase only, as the pattern is case-sensitive), or 0. */
static size_t contraction(const char *t, size_t len, size_t i)
{
    if (t[i] != '\'' || i + 1 >= len)
        return 0;
    char a = t[i + 1], b = i + 2 < len ? t[i + 2] : 0;
    if (a == 's' || a == 't' || a == 'm' || a == 'd')
        return 2;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l'))
        return 3;
    return 0;
}

/* The end of the piece of text[0..len) that starts at i < len: the pattern's
 * alternatives in their order, the first that matches at i. */
static size_t piece_end(const char *t, size_t len, size_t i)
{
    size_t c = contraction(t, len, i), next, after;
    if (c)
        return i + c;
    int cls = class_at(t, len, i, &next);
    /* " ?\p{L}+", " ?\p{N}+", " ?[^\s\p{L}\p{N}]+": an optional U+0020 first */
    if (t[i] == ' ' && next < len) {
        int cls1 = class_at(t, len, next, &after);
        if (cls1 != BPE_CLASS_SPACE)
            return run_end(t, len, after, cls1);
    }
    if (cls != BPE_CLASS_SPACE)
        return run_end(t, len, next, cls);
    /* "\s+(?!\S)": the whole run when the text ends there, else all but its
     * last code point (the run's last space then precedes the next piece);
     * "\s+": a single space before a non-space */
    size_t last = i, j = i;
    while (j < len && class_at(t, len, j, &next) == BPE_CLASS_SPACE)
        last = j, j = next;
    return j == len || last == i ? j : last;
}

/* One symbol of a piece being merged: a token over bytes [at, at + len) of
 * the piece, in a list by position; len 0 once merged into its left. */
typedef struct {
    int id, prev, next;
    int at, len;
} Sym;

/* A candidate merge of symbols left and left's next (right), valid while both
 * still hold the ids they had when it was pushed. Its key orders candidates
 * as the merges must go: by rank, then leftmost first (rank << 32 | left,
 * one comparison where a pair of fields took up to three). */
typedef struct {
    uint64_t key;
    int right, lid, rid, id;
} Cand;

typedef struct {
    Cand *c;
    int n;
} Heap;

static void heap_push(Heap *h, Cand c)
{
    int k = h->n++;
    while (k > 0 && c.key < h->c[(k - 1) / 2].key) {
        h->c[k] = h->c[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h->c[k] = c;
}

/* Take the least candidate out. The hole it leaves goes down along the
 * lesser children to a leaf (one comparison a level), and the last
 * candidate rises from there: it belongs near the bottom, so this takes
 * about half the comparisons of sifting it down from the root. */
static Cand heap_pop(Heap *h)
{
    Cand top = h->c[0], last = h->c[--h->n];
    int n = h->n, k = 0;
    if (n == 0)
        return top;
    for (int m = 1; m < n; k = m, m = 2 * m + 1) {
        if (m + 1 < n && h->c[m + 1].key < h->c[m].key)
            m++;
        h->c[k] = h->c[m];
    }
    while (k > 0 && last.key < h->c[(k - 1) / 2].key) {
        h->c[k] = h->c[(k - 1) / 2];
        k = (k - 1) / 2;
    }
    h->c[k] = last;
    return top;
}

/* Push the merge of symbol l with its right neighbour, when it is a merge. */
static void push_pair(const Bpe *b, const Sym *sym, Heap *h, int l)
{
    if (l < 0 || sym[l].next < 0)
        return;
    int r = sym[l].next, id;
    int rank = bpe_merge_rank(b, sym[l].id, sym[r].id, &id);
    if (rank >= 0)
        heap_push(h, (Cand){(uint64_t)rank << 32 | (uint32_t)l, r, sym[l].id, sym[r].id, id});
}

static int add_piece(BpeEncoding *e, int max_tokens, int id, size_t start, size_t len)
{
    if (e->n >= max_tokens)
        return AV_ERR_TOO_MANY;
    if (e->n == e->cap) {
        int cap = e->cap ? e->cap * 2 : 64;
        BpePiece *p = realloc(e->piece, (size_t)cap * sizeof *p);
        if (!p)
            return AV_ERR_NOMEM;
        e->piece = p, e->cap = cap;
    }
    e->piece[e->n++] = (BpePiece){id, start, len};
    return AV_OK;
}

/* Scratch for a piece of m bytes: up to 3m candidates (the first m - 1,
 * then at most two new ones per merge) and m symbols. */
static int work_reserve(BpeEncoding *e, size_t m)
{
    size_t need = m * sizeof(Sym) + 3 * m * sizeof(Cand);
    if (need <= e->work_cap)
        return AV_OK;
    void *w = realloc(e->work, need * 2);
    if (!w)
        return AV_ERR_NOMEM;
    e->work = w, e->work_cap = need * 2;
    return AV_OK;
}

/* Merge the piece t[start, start + m) and append its tokens to e. */
static int merge_piece(const Bpe *b, const char *t, size_t start, size_t m, int max_tokens,
                       BpeEncoding *e)
{
    const unsigned char *u = (const unsigned char *)t + start;
    if (m == 1)
        return add_piece(e, max_tokens, b->byte_id[u[0]], start, 1);
    if (m == 2) { /* one pair: merged or not, no list or heap needed */
        int id, rc;
        if (bpe_merge_rank(b, b->byte_id[u[0]], b->byte_id[u[1]], &id) >= 0)
            return add_piece(e, max_tokens, id, start, 2);
        rc = add_piece(e, max_tokens, b->byte_id[u[0]], start, 1);
        return rc ? rc : add_piece(e, max_tokens, b->byte_id[u[1]], start + 1, 1);
    }
    if (m > (size_t)INT32_MAX / 4)
        return AV_ERR_TOO_MANY;
    if (work_reserve(e, m))
        return AV_ERR_NOMEM;
    Heap h = {e->work, 0}; /* the candidates first: their 64-bit keys stay aligned */
    Sym *sym = (Sym *)(h.c + 3 * m);
    for (int k = 0; k < (int)m; k++)
        sym[k] = (Sym){b->byte_id[(unsigned char)t[start + (size_t)k]], k - 1,
                       k + 1 < (int)m ? k + 1 : -1, k, 1};
    for (int k = 0; k + 1 < (int)m; k++)
        push_pair(b, sym, &h, k);
    while (h.n > 0) {
        Cand c = heap_pop(&h);
        int left = (int)(uint32_t)c.key;
        Sym *l = &sym[left], *r = &sym[c.right];
        if (!l->len || l->next != c.right || l->id != c.lid || r->id != c.rid)
            continue; /* stale: one side changed since it was pushed */
        l->id = c.id, l->len += r->len, l->next = r->next;
        if (r->next >= 0)
            sym[r->next].prev = left;
        r->len = 0;
        push_pair(b, sym, &h, l->prev);
        push_pair(b, sym, &h, left);
    }
    for (int k = 0; k >= 0; k = sym[k].next) {
        int rc = add_piece(e, max_tokens, sym[k].id, start + (size_t)sym[k].at, (size_t)sym[k].len);
        if (rc)
            return rc;
    }
    return AV_OK;
}

/* Pre-tokenise and merge text[from, to) (no <|endoftext|> inside). */
static int encode_span(const Bpe *b, const char *t, size_t from, size_t to, int max_tokens,
                       BpeEncoding *e)
{
    for (size_t i = from; i < to;) {
        size_t j = piece_end(t, to, i);
        int rc = merge_piece(b, t, i, j - i, max_tokens, e);
        if (rc)
            return rc;
        i = j;
    }
    return AV_OK;
}

/* The next <|endoftext|> in t[i, len), or len. */
static size_t find_eot(const char *t, size_t len, size_t i)
{
    size_t n = sizeof BPE_EOT_TEXT - 1;
    for (; i + n <= len; i++) {
        const char *p = memchr(t + i, '<', len - n + 1 - i);
        if (!p)
            break;
        i = (size_t)(p - t);
        if (memcmp(p, BPE_EOT_TEXT, n) == 0)
            return i;
    }
    return len;
}

int bpe_encode(const Bpe *b, const char *text, size_t len, int max_tokens, BpeEncoding *e)
{
    e->n = 0;
    e->bad_offset = 0;
    size_t valid = utf8_valid_prefix(text, len);
    if (valid < len) {
        e->bad_offset = valid;
        return AV_ERR_UTF8;
    }
    size_t n_eot = sizeof BPE_EOT_TEXT - 1;
    int rc = AV_OK;
    for (size_t i = 0; i < len && !rc;) {
        size_t k = b->eot >= 0 ? find_eot(text, len, i) : len;
        rc = encode_span(b, text, i, k, max_tokens, e);
        if (!rc && k < len)
            rc = add_piece(e, max_tokens, b->eot, k, n_eot);
        i = k < len ? k + n_eot : len;
    }
    if (rc)
        e->n = 0;
    return rc;
}

void bpe_encoding_free(BpeEncoding *e)
{
    free(e->piece);
    free(e->work);
    memset(e, 0, sizeof *e);
}
