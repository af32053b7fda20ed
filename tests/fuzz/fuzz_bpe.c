/* fuzz_bpe.c - libFuzzer harness for GPT-2's tokenizer (core/bpe.h).
 *
 * The input is the text, encoded with a small built-in vocabulary (the 256
 * bytes, some English and UTF-8 merges, <|endoftext|>). Besides the
 * sanitizers, the harness aborts when the contract breaks: invalid UTF-8
 * reported exactly at the first bad byte and nothing else; otherwise every id
 * in range, the spans covering the text in order without gaps, each token's
 * bytes equal to its span, decode(encode(x)) == x byte for byte, a TokenList
 * with the same spans and a non-empty display string each, and a cap of
 * max_tokens refused exactly when the text needs more. Not a unit test: it
 * prints only when an invariant fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/bpe.h"
#include "core/utf8.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_bpe: invariant broken: %s\n", what);
        abort();
    }
}

/* Merges in rank order; each result becomes a token. */
static const char *const merges[][2] = {
    {"t", "h"},           {"th", "e"},          {"h", "e"},   {" ", "t"},
    {" t", "he"},         {"i", "n"},           {"in", "g"},  {"e", "r"},
    {" ", "a"},           {"a", "a"},           {"aa", "aa"}, {"\xc3", "\xa9"},
    {"\xf0", "\x9f"},     {"\xf0\x9f", "\x98"}, {" ", " "},   {"  ", "  "},
    {"\n", "\n"},         {"'", "s"},           {"1", "2"},   {"\xe6", "\x97"},
    {"\xe6\x97", "\xa5"}, {" ", "\xc3\xa9"},
};

static int vocab_build(Bpe *b)
{
    char why[160];
    int n = 256 + (int)(sizeof merges / sizeof merges[0]) + 1;
    if (bpe_init(b, n, n))
        return 0;
    for (int c = 0; c < 256; c++) {
        char s = (char)c;
        bpe_set_token(b, c, &s, 1, why, sizeof why);
    }
    int id = 256;
    for (size_t k = 0; k < sizeof merges / sizeof merges[0]; k++) {
        char s[16];
        snprintf(s, sizeof s, "%s%s", merges[k][0], merges[k][1]);
        check(bpe_set_token(b, id++, s, strlen(s), why, sizeof why) == AV_OK, why);
    }
    check(bpe_set_token(b, id, BPE_EOT_TEXT, 13, why, sizeof why) == AV_OK, why);
    for (size_t k = 0; k < sizeof merges / sizeof merges[0]; k++) {
        int l = bpe_find(b, merges[k][0], strlen(merges[k][0]));
        int r = bpe_find(b, merges[k][1], strlen(merges[k][1]));
        check(bpe_add_merge(b, l, r, why, sizeof why) == AV_OK, why);
    }
    check(bpe_finish(b, why, sizeof why) == AV_OK, why);
    return 1;
}

static void check_encoding(const Bpe *b, const char *text, size_t size, const BpeEncoding *e)
{
    size_t at = 0;
    int *ids = malloc(((size_t)e->n + 1) * sizeof *ids);
    char *back = malloc(size + 1);
    check(ids && back, "out of memory");
    for (int i = 0; i < e->n; i++) {
        const BpePiece *p = &e->piece[i];
        size_t len;
        check(p->id >= 0 && p->id < b->n_vocab, "an id out of range");
        check(p->start == at && p->len > 0, "spans leave a gap or go backwards");
        const char *t = bpe_token(b, p->id, &len);
        check(t && len == p->len && memcmp(t, text + at, len) == 0, "a token is not its span");
        at += p->len;
        ids[i] = p->id;
    }
    check(at == size, "the spans do not reach the end of the text");
    check(bpe_decode(b, ids, e->n, back, size) == size && memcmp(back, text, size) == 0,
          "decode(encode(x)) != x");
    TokenList tl = {0};
    check(bpe_token_list(text, e, &tl) == AV_OK && tl.n == e->n, "no TokenList");
    for (int i = 0; i < tl.n; i++)
        check(tl.tok[i].start == e->piece[i].start && tl.tok[i].len == e->piece[i].len &&
                  tl.tok[i].str && tl.tok[i].str[0] &&
                  utf8_valid_prefix(tl.tok[i].str, strlen(tl.tok[i].str)) == strlen(tl.tok[i].str),
              "a TokenList entry differs or its display string is empty or not UTF-8");
    tokenize_free(&tl);
    free(ids);
    free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static Bpe b;
    static int built;
    if (!built)
        built = vocab_build(&b);
    check(built, "the vocabulary cannot be built");
    const char *text = (const char *)data;
    BpeEncoding e = {0};
    int rc = bpe_encode(&b, text, size, 1 << 20, &e);
    size_t valid = utf8_valid_prefix(text, size);
    if (valid < size) {
        check(rc == AV_ERR_UTF8 && e.bad_offset == valid && e.n == 0, "bad UTF-8 not reported");
    } else {
        check(rc == AV_OK, "a valid text was not encoded");
        check_encoding(&b, text, size, &e);
        int n = e.n;
        if (n > 0) {
            check(bpe_encode(&b, text, size, n - 1, &e) == AV_ERR_TOO_MANY && e.n == 0,
                  "a cap below the count was not refused");
            check(bpe_encode(&b, text, size, n, &e) == AV_OK && e.n == n,
                  "a cap equal to the count was refused");
        }
    }
    bpe_encoding_free(&e);
    return 0;
}
