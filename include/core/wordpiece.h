/* wordpiece.h - BERT's tokenizer: a WordPiece vocabulary, and text to token
 * ids with the byte spans of the text they come from.
 *
 * The vocabulary is built in memory by the caller (io/hfwordpiece.c reads
 * vocab.txt or tokenizer.json): each id's token, then wp_finish. Encoding
 * follows BERT's reference tokenizer (google-research/bert tokenization.py)
 * with Hugging Face's special tokens:
 *  - the special tokens [CLS], [SEP], [MASK], [UNK] and [PAD] (those the
 *    vocabulary has) typed anywhere in the text are those tokens, and the text
 *    on each side is tokenized on its own; a word that is one of them once
 *    control characters are removed is that token too;
 *  - the basic tokenizer: U+0000, U+FFFD and control characters (Cc, Cf; not
 *    \t \n \r) removed; whitespace (space, \t \n \r, Zs, and what Python's
 *    str.split() also splits on: U+2028, U+2029) separates words; each CJK
 *    ideograph is a word; when lower-casing, each word is lower-cased as
 *    Python's str.lower() does (full case mapping, final sigma); when
 *    stripping accents (with lower-casing unless told otherwise), it is
 *    decomposed (NFD) and stripped of nonspacing marks (Mn); then every punctuation
 *    character (ASCII 33-47, 58-64, 91-96, 123-126, category P*) is a word;
 *  - WordPiece: each word greedily cut into the longest vocabulary entries
 *    from its start, pieces after the first looked up with the prefix "##";
 *    a word that cannot be cut, or has more than max_chars characters, is
 *    [UNK];
 *  - [CLS] first and [SEP] last. A typed [SEP] makes a sentence pair: the
 *    tokens after the first one have token type 1 (WpEncoding.second).
 * No I/O, no global state; a finished WordPiece is only read (safe to share).
 */
#ifndef ATTNVIZ_WORDPIECE_H
#define ATTNVIZ_WORDPIECE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tokenize.h"

#define WP_PREFIX_MAX 16 /* bytes of the continuing-subword prefix */
#define WP_MAX_TOKEN_BYTES 1024
#define WP_N_SPECIAL 5

/* The special tokens, in the order of WordPiece.special. */
enum { WP_CLS, WP_SEP, WP_MASK, WP_UNK, WP_PAD };

typedef struct {
    int n_vocab;                /* ids 0 .. n_vocab-1 */
    bool lower;                 /* do_lower_case: lower-case */
    bool strip;                 /* strip accents (NFD, Mn removed): as lower by default */
    int max_chars;              /* max_input_chars_per_word (100) */
    char prefix[WP_PREFIX_MAX]; /* continuing_subword_prefix ("##") */
    size_t prefix_len;
    int special[WP_N_SPECIAL]; /* ids of [CLS] [SEP] [MASK] [UNK] [PAD], or -1 */
    uint32_t *off, *len;       /* token id is pool[off[id], off[id] + len[id]) */
    char *pool;
    size_t pool_used, pool_cap;
    int32_t *hash; /* (slots): open addressing, token bytes -> id, -1 empty */
    size_t slots;
    int n_set; /* ids given a token so far */
} WordPiece;

/* One token of an encoding: its id and the bytes of the text it comes from
 * (len 0 for the [CLS] and the last [SEP] added around the text). */
typedef struct {
    int id;
    size_t start, len;
} WpPiece;

/* An encoding, reused from call to call (zero it before the first). */
typedef struct {
    WpPiece *piece;
    int n, cap;
    int second;        /* index of the first token of type 1, or -1: no typed [SEP] */
    size_t bad_offset; /* with AV_ERR_UTF8: the first byte that is not UTF-8 */
    void *work;        /* scratch: the characters of one stretch of text */
    size_t work_cap;
} WpEncoding;

/* Start an empty vocabulary of n_vocab ids (1 .. 1<<24), lower-casing and
 * stripping accents, prefix "##", max_chars 100 (change them before wp_finish). *w is
 * overwritten. Returns AV_OK, AV_ERR_CONFIG or AV_ERR_NOMEM. */
int wp_init(WordPiece *w, int n_vocab);

/* Give id its token s[0..len) (UTF-8, 0 .. WP_MAX_TOKEN_BYTES bytes). A
 * token given to two ids is found as the later one (as Hugging Face's
 * vocabulary dictionary does). Returns AV_OK, AV_ERR_MODEL with a line in why
 * (id out of range or already given, not UTF-8, too long) or AV_ERR_NOMEM. */
int wp_set_token(WordPiece *w, int id, const char *s, size_t len, char *why, size_t whylen);

/* The id whose token is s[0..len), or -1. */
int wp_find(const WordPiece *w, const char *s, size_t len);

/* Check every id has a token and the vocabulary has [UNK], [CLS] and [SEP]
 * (unk names the unknown token when not "[UNK]", or is NULL), and note the
 * special tokens' ids. Returns AV_OK or AV_ERR_MODEL with a line in why. */
int wp_finish(WordPiece *w, const char *unk, char *why, size_t whylen);

/* Free what wp_init allocated; accepts a zeroed WordPiece. Leaves it zeroed. */
void wp_free(WordPiece *w);

/* The token of id (not NUL-terminated) and its length in *len; NULL (and
 * *len = 0) when id is out of range. */
const char *wp_token(const WordPiece *w, int id, size_t *len);

/* Encode text[0..len) (UTF-8) into *e, [CLS] and [SEP] included, at most
 * max_tokens tokens. Spans lie in the text and their starts never go back; a
 * piece made from part of one character (a Hangul syllable's jamo) has that
 * character's span. Returns AV_OK, AV_ERR_UTF8 (e->bad_offset set, e->n =
 * 0), AV_ERR_TOO_MANY (e->n = 0) or AV_ERR_NOMEM. w must be finished. */
int wp_encode(const WordPiece *w, const char *text, size_t len, int max_tokens, WpEncoding *e);

/* Free an encoding's allocations; accepts a zeroed one. Leaves it zeroed. */
void wp_encoding_free(WpEncoding *e);

/* A TokenList (tokenize.h) from an encoding of text: spans from e, each
 * token's str the vocabulary's string of its id ("[CLS]", "##able").
 * *tl must be zeroed or hold an earlier list (it is freed first). Returns
 * AV_OK or AV_ERR_NOMEM. */
int wp_token_list(const WordPiece *w, const WpEncoding *e, TokenList *tl);

#endif
