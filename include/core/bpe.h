/* bpe.h - GPT-2's byte-level BPE tokenizer: a vocabulary with its merges,
 * text to token ids with their byte spans, and ids back to bytes.
 *
 * The vocabulary is built in memory by the caller (io/hfvocab.c reads the
 * Hugging Face files): each id's token as raw bytes (not in GPT-2's printable
 * byte alphabet, where a space is written `Ġ`: bpe_unicode_byte converts),
 * then the merges in rank order, then bpe_finish. Encoding follows GPT-2
 * exactly:
 *  - the literal text `<|endoftext|>` (when the vocabulary has that token) is
 *    that one token, as Hugging Face's tokenizer treats its special token; the
 *    text on each side is encoded on its own;
 *  - the rest is cut by GPT-2's pattern
 *    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
 *    (implemented by hand over code points; the classes are those of Python's
 *    regex module, Unicode 15.0, src/core/text/bpe_unicode.inc);
 *  - each piece's UTF-8 bytes start as single-byte tokens and the adjacent
 *    pair of lowest merge rank is merged until none is left (leftmost first
 *    among equal ranks), as GPT-2's encoder.py does.
 * Every token stands for a contiguous byte range of the text, so the spans of
 * an encoding cover the text in order without gaps. No I/O, no global state;
 * a finished Bpe is only read by the encoding functions (safe to share).
 */
#ifndef ATTNVIZ_BPE_H
#define ATTNVIZ_BPE_H

#include <stddef.h>
#include <stdint.h>

#include "core/tokenize.h"

#define BPE_EOT_TEXT "<|endoftext|>"

typedef struct {
    int n_vocab;      /* ids 0 .. n_vocab-1 */
    int n_merges;     /* merges added so far: the next one's rank */
    int eot;          /* id of <|endoftext|>, or -1 (set by bpe_finish) */
    int byte_id[256]; /* id of each single-byte token (set by bpe_finish) */
    uint32_t *off;    /* (n_vocab + 1): token id is pool[off[id], off[id] + len[id]) */
    uint32_t *len;    /* (n_vocab): byte length; 0 while the id has no token */
    char *pool;       /* the tokens' bytes, back to back */
    size_t pool_used, pool_cap;
    int32_t *tok_hash; /* (tok_slots): open addressing, token bytes -> id, -1 empty */
    size_t tok_slots;
    uint64_t *pair_key; /* (pair_slots): left << 32 | right, UINT64_MAX empty */
    int32_t *pair_rank; /* (pair_slots): the merge's rank */
    int32_t *pair_id;   /* (pair_slots): the merged token's id */
    size_t pair_slots;
} Bpe;

/* One token of an encoding: its id and the bytes of the text it stands for. */
typedef struct {
    int id;
    size_t start, len;
} BpePiece;

/* An encoding, reused from call to call (zero it before the first). */
typedef struct {
    BpePiece *piece;
    int n, cap;
    size_t bad_offset; /* with AV_ERR_UTF8: the first byte that is not UTF-8 */
    void *work;        /* scratch for the merges of one piece */
    size_t work_cap;
} BpeEncoding;

/* Start an empty vocabulary of n_vocab ids (1 .. 1<<24) with room for
 * n_merges merges (a hint; more may be added). *b is overwritten. Returns
 * AV_OK, AV_ERR_CONFIG (n_vocab out of range) or AV_ERR_NOMEM. */
int bpe_init(Bpe *b, int n_vocab, int n_merges);

/* Give id its token, s[0..len) (raw bytes, 1 .. 1024 of them). Returns AV_OK,
 * AV_ERR_MODEL with a line in why (id out of range, id already given, the
 * same bytes already another id's, an empty or too long token) or
 * AV_ERR_NOMEM. */
int bpe_set_token(Bpe *b, int id, const char *s, size_t len, char *why, size_t whylen);

/* The id whose token is s[0..len), or -1. */
int bpe_find(const Bpe *b, const char *s, size_t len);

/* Add the merge of ids left and right, ranked after those added before.
 * Returns AV_OK, AV_ERR_MODEL with a line in why (an id without a token, the
 * concatenation not in the vocabulary, the same pair twice) or AV_ERR_NOMEM.
 * All tokens must be set before the first merge. */
int bpe_add_merge(Bpe *b, int left, int right, char *why, size_t whylen);

/* The rank of the merge of ids left and right (its merged id in *id), or -1
 * when the pair is not a merge. */
int bpe_merge_rank(const Bpe *b, int left, int right, int *id);

/* Check the vocabulary is whole (every id has a token, every one of the 256
 * bytes is a token of its own) and note <|endoftext|>'s id. Returns AV_OK or
 * AV_ERR_MODEL with a line in why. */
int bpe_finish(Bpe *b, char *why, size_t whylen);

/* Free what bpe_init allocated; accepts a zeroed Bpe. Leaves it zeroed. */
void bpe_free(Bpe *b);

/* The token of id (raw bytes, not NUL-terminated) and its length in *len;
 * NULL (and *len = 0) when id is out of range. */
const char *bpe_token(const Bpe *b, int id, size_t *len);

/* GPT-2's byte alphabet (bytes_to_unicode in encoder.py): the code point
 * that stands for byte c in vocab.json and merges.txt, and back: the byte of
 * a code point, or -1 when cp is not in the alphabet. */
unsigned bpe_byte_unicode(unsigned char c);
int bpe_unicode_byte(unsigned cp);

/* Encode text[0..len) (UTF-8) into *e, at most max_tokens tokens. e keeps its
 * allocations from call to call. Returns AV_OK, AV_ERR_UTF8 (e->bad_offset
 * set, e->n = 0), AV_ERR_TOO_MANY (e->n = 0) or AV_ERR_NOMEM. b must be
 * finished. An empty text gives AV_OK and n = 0. */
int bpe_encode(const Bpe *b, const char *text, size_t len, int max_tokens, BpeEncoding *e);

/* Free an encoding's allocations; accepts a zeroed one. Leaves it zeroed. */
void bpe_encoding_free(BpeEncoding *e);

/* The bytes of ids[0..n) into out[0..cap): returns the number of bytes the
 * whole text needs (write at most cap of them; not NUL-terminated), or
 * (size_t)-1 when an id is out of range. */
size_t bpe_decode(const Bpe *b, const int *ids, int n, char *out, size_t cap);

/* The display string of bytes s[0..len) into out (NUL-terminated, at most
 * BPE_DISPLAY_MAX(len) bytes with the NUL): the text it stands for, with a
 * space shown as "␣" (U+2423), a newline as "↵", a tab as "⇥" (netresult.c's
 * marks), another control character as ^X (^? for DEL), and each byte that is
 * not part of a whole UTF-8 character in s (a token holding part of one) as
 * "‹e6›" (U+2039, two lowercase hex digits, U+203A). Returns the length. */
#define BPE_DISPLAY_MAX(len) ((len)*8 + 1)
size_t bpe_display(const char *s, size_t len, char *out);

/* A TokenList (tokenize.h) from an encoding of text: spans from e, each
 * token's str its display string (bpe_display). *tl must be zeroed or hold an
 * earlier list (it is freed first). Returns AV_OK or AV_ERR_NOMEM. */
int bpe_token_list(const char *text, const BpeEncoding *e, TokenList *tl);

#endif
