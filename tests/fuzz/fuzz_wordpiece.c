/* fuzz_wordpiece.c - libFuzzer harness for BERT's tokenizer (core/wordpiece.h)
 * and its files (io/hfwordpiece.h).
 *
 * The first byte chooses: bit 7 clear, the rest is a text encoded with a
 * small built-in vocabulary (bit 0: lower-casing, bit 1: a word limit of 5
 * characters instead of 100, bit 2: accents stripped when bit 0 is clear and
 * kept when it is set); bit 7 set, the rest is a vocab.txt (bit 6
 * clear) or a tokenizer.json (bit 6 set), and a vocabulary read is then used
 * on a fixed text. Besides the sanitizers, the harness aborts when the
 * contract breaks: invalid UTF-8 reported exactly at the first bad byte;
 * otherwise [CLS] first and [SEP] last, every id in range, every span inside
 * the text with starts that never go back, the pair index in range, the same
 * encoding twice, a TokenList alike, and a cap of max_tokens refused exactly
 * when the text needs more; a refused file has a one-line reason. Not a unit
 * test: it prints only when an invariant fails.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/utf8.h"
#include "core/wordpiece.h"
#include "io/hfwordpiece.h"

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_wordpiece: invariant broken: %s\n", what);
        abort();
    }
}

static const char *const tokens[] = {"[PAD]",
                                     "[UNK]",
                                     "[CLS]",
                                     "[SEP]",
                                     "[MASK]",
                                     "the",
                                     "a",
                                     "##a",
                                     "b",
                                     "##b",
                                     "un",
                                     "##aff",
                                     "##able",
                                     "hello",
                                     "world",
                                     ",",
                                     ".",
                                     "!",
                                     "[",
                                     "]",
                                     "#",
                                     "##",
                                     "###",
                                     "cafe",
                                     "café",
                                     "Café",
                                     "##s",
                                     "\xce\xbf\xce\xb4\xce\xbf\xcf\x82",
                                     "\xcf\x83",
                                     "\xe4\xb8\x80",
                                     "\xe1\x84\x80",
                                     "##\xe1\x85\xa1",
                                     "\xf0\x9f\x98\x80",
                                     "e",
                                     "##e",
                                     "i"};

static void vocab_build(WordPiece *w, int lower, int strip, int max_chars)
{
    char why[160];
    int n = (int)(sizeof tokens / sizeof tokens[0]);
    check(wp_init(w, n) == AV_OK, "wp_init");
    w->lower = lower;
    w->strip = strip;
    w->max_chars = max_chars;
    for (int id = 0; id < n; id++)
        check(wp_set_token(w, id, tokens[id], strlen(tokens[id]), why, sizeof why) == AV_OK, why);
    check(wp_finish(w, NULL, why, sizeof why) == AV_OK, why);
}

static void check_encoding(const WordPiece *w, const char *text, size_t size, WpEncoding *e)
{
    int n = e->n;
    check(n >= 2 && e->piece[0].id == w->special[WP_CLS] &&
              e->piece[n - 1].id == w->special[WP_SEP],
          "not [CLS] ... [SEP]");
    for (int i = 0; i < n; i++) {
        const WpPiece *p = &e->piece[i];
        check(p->id >= 0 && p->id < w->n_vocab, "an id out of range");
        check(p->start <= size && p->len <= size - p->start, "a span outside the text");
        check(i == 0 || p->start >= e->piece[i - 1].start, "a span starts before the last");
    }
    check(e->second == -1 || (e->second >= 2 && e->second < n), "the pair index is out of range");
    WpPiece *copy = malloc((size_t)n * sizeof *copy);
    check(copy != NULL, "out of memory");
    memcpy(copy, e->piece, (size_t)n * sizeof *copy);
    check(wp_encode(w, text, size, 1 << 20, e) == AV_OK && e->n == n &&
              memcmp(copy, e->piece, (size_t)n * sizeof *copy) == 0,
          "a second encoding differs");
    free(copy);
    TokenList tl = {0};
    check(wp_token_list(w, e, &tl) == AV_OK && tl.n == n, "no TokenList");
    for (int i = 0; i < n; i++)
        check(tl.tok[i].start == e->piece[i].start && tl.tok[i].len == e->piece[i].len,
              "a TokenList span differs");
    tokenize_free(&tl);
    check(wp_encode(w, text, size, n - 1, e) == AV_ERR_TOO_MANY && e->n == 0,
          "a cap below the count was not refused");
    check(wp_encode(w, text, size, n, e) == AV_OK && e->n == n, "a cap equal to the count failed");
}

static void encode_text(const WordPiece *w, const char *text, size_t size)
{
    WpEncoding e = {0};
    int rc = wp_encode(w, text, size, 1 << 20, &e);
    size_t valid = utf8_valid_prefix(text, size);
    if (valid < size) {
        check(rc == AV_ERR_UTF8 && e.bad_offset == valid && e.n == 0, "bad UTF-8 not reported");
    } else {
        check(rc == AV_OK, "a valid text was not encoded");
        check_encoding(w, text, size, &e);
    }
    wp_encoding_free(&e);
}

static void read_file(const char *data, size_t size, int json)
{
    static const char text[] = "H\xc3\xa9llo, [MASK] the unaffable [SEP] \xe4\xb8\x80 world!";
    char why[256] = "";
    WordPiece w;
    int rc = json ? hfwp_parse_tokenizer(data, size, true, &w, why, sizeof why)
                  : hfwp_parse_vocab(data, size, true, &w, why, sizeof why);
    if (rc == AV_OK) {
        encode_text(&w, text, sizeof text - 1);
        wp_free(&w);
    } else {
        check(rc == AV_ERR_MODEL || rc == AV_ERR_NOMEM, "a refusal that is not AV_ERR_MODEL");
        check(rc != AV_ERR_MODEL || (why[0] && !strchr(why, '\n')), "no one-line reason");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static WordPiece vocab[8];
    static int built;
    if (!built) {
        for (int k = 0; k < 8; k++)
            vocab_build(&vocab[k], k & 1, (k & 1) != !!(k & 4), k & 2 ? 5 : 100);
        built = 1;
    }
    if (size == 0)
        return 0;
    const char *rest = (const char *)data + 1;
    if (data[0] & 0x80)
        read_file(rest, size - 1, data[0] & 0x40);
    else
        encode_text(&vocab[data[0] & 7], rest, size - 1);
    return 0;
}
