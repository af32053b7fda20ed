/* test_bpe.c - the BPE core on small hand-made vocabularies: GPT-2's
 * pre-tokenisation pieces (seen through a vocabulary whose merges join every
 * byte pair of a piece), merge order by rank and leftmost first, the literal
 * <|endoftext|>, spans, decode, display strings and TokenLists, the
 * errors (UTF-8, too many tokens, vocabulary faults), and the merges of long
 * and short words against a slow reference on random vocabularies.
 */
#include "test_common.h"

#include <stdlib.h>
#include <string.h>

#include "core/av.h"
#include "core/bpe.h"
#include "core/rng.h"

static char why[160];

/* The 256 byte tokens as ids 0..255, then extra tokens from 256. */
static void bytes_vocab(Bpe *b, const char *const *extra, int n_extra)
{
    assert_int_equal(bpe_init(b, 256 + n_extra, 8), AV_OK);
    for (int c = 0; c < 256; c++) {
        char s = (char)c;
        assert_int_equal(bpe_set_token(b, c, &s, 1, why, sizeof why), AV_OK);
    }
    for (int k = 0; k < n_extra; k++)
        assert_int_equal(bpe_set_token(b, 256 + k, extra[k], strlen(extra[k]), why, sizeof why),
                         AV_OK);
}

static void merge(Bpe *b, const char *l, const char *r)
{
    int rc =
        bpe_add_merge(b, bpe_find(b, l, strlen(l)), bpe_find(b, r, strlen(r)), why, sizeof why);
    if (rc)
        fail_msg("merge %s %s: %s", l, r, why);
}

/* Encode text; the tokens as "tok|tok|..." into out. */
static const char *pieces(const Bpe *b, const char *text, char *out)
{
    BpeEncoding e = {0};
    assert_int_equal(bpe_encode(b, text, strlen(text), 1000, &e), AV_OK);
    char *o = out;
    for (int i = 0; i < e.n; i++) {
        size_t len;
        const char *t = bpe_token(b, e.piece[i].id, &len);
        assert_memory_equal(t, text + e.piece[i].start, len);
        o += sprintf(o, "%s%.*s", i ? "|" : "", (int)len, t);
    }
    *o = 0;
    bpe_encoding_free(&e);
    return out;
}

static void test_bpe_merge_order(void **state)
{
    (void)state;
    /* expect: the pair of lowest rank first ("bc" before "ab"), equal ranks
       leftmost first ("aaa" is aa|a), new pairs ranked as they form */
    static const char *const extra[] = {"ab", "bc", "abc", "aa", "aaaa"};
    Bpe b;
    char out[256];
    bytes_vocab(&b, extra, 5);
    merge(&b, "b", "c");
    merge(&b, "a", "b");
    merge(&b, "a", "bc");
    merge(&b, "a", "a");
    merge(&b, "aa", "aa");
    assert_int_equal(bpe_finish(&b, why, sizeof why), AV_OK);
    assert_int_equal(b.eot, -1);
    assert_string_equal(pieces(&b, "abc", out), "abc");
    assert_string_equal(pieces(&b, "abx", out), "ab|x");
    assert_string_equal(pieces(&b, "aaa", out), "aa|a");
    assert_string_equal(pieces(&b, "aaaaa", out), "aaaa|a");
    assert_string_equal(pieces(&b, "aaaaaaa", out), "aaaa|aa|a");
    assert_string_equal(pieces(&b, "", out), "");
    bpe_free(&b);
}

/* A vocabulary in which any two adjacent parts of one piece merge: every
 * substring of the given texts is a token, with a merge for each way to cut
 * it in two. Then each piece of GPT-2's pattern comes out as one token (and
 * never two pieces, which are merged apart), so "|" shows the pattern's cuts. */
static void whole_piece_vocab(Bpe *b, const char *const *texts, int n)
{
    const char *sub[512];
    char *keep[512];
    int ns = 0, id;
    for (int t = 0; t < n; t++) {
        size_t len = strlen(texts[t]);
        for (size_t i = 0; i < len; i++)
            for (size_t j = i + 2; j <= len; j++) {
                char *s = strndup(texts[t] + i, j - i);
                int dup = 0;
                for (int k = 0; k < ns && !dup; k++)
                    dup = strcmp(sub[k], s) == 0;
                if (dup || ns == 512)
                    free(s);
                else
                    keep[ns] = s, sub[ns] = s, ns++;
            }
    }
    bytes_vocab(b, sub, ns);
    for (int k = 0; k < ns; k++)
        for (size_t cut = 1; cut < strlen(sub[k]); cut++) {
            int l = bpe_find(b, sub[k], cut), r = bpe_find(b, sub[k] + cut, strlen(sub[k]) - cut);
            if (bpe_merge_rank(b, l, r, &id) < 0)
                assert_int_equal(bpe_add_merge(b, l, r, why, sizeof why), AV_OK);
        }
    assert_int_equal(bpe_finish(b, why, sizeof why), AV_OK);
    for (int k = 0; k < ns; k++)
        free(keep[k]);
}

static void test_bpe_pattern_pieces(void **state)
{
    (void)state;
    /* expect: GPT-2's pattern's cuts: contractions (lowercase only), an
       optional space before letters, digits or other symbols, a run of
       spaces ending one before a word, newlines and tabs apart, NBSP and
       U+0085 as spaces (Python's \s), U+FEFF and U+200D as symbols */
    static const char *const pieces_in[] = {
        "I'm",
        "don't",
        " we've",
        "I'M",
        "  hello",
        "a\n\nb",
        "x\t\ty",
        "3.14",
        "!!'s",
        " 'x",
        "a   ",
        "\xc2\xa0"
        "a",
        "x\xc2\x85y",
        "\xef\xbb\xbf"
        "a",
        "\xc3\xa9t\xc3\xa9",
        "a\xe2\x80\x8d"
        "b",
        "12abc",
        " \xd9\xa3\xd9\xa4",
    };
    static const char *const want[] = {
        "I|'m",
        "don|'t",
        " we|'ve",
        "I|'|M",
        " | hello",
        "a|\n|\n|b",
        "x|\t|\t|y",
        "3|.|14",
        "!!'|s",
        " '|x",
        "a|   ",
        "\xc2\xa0|a",
        "x|\xc2\x85|y",
        "\xef\xbb\xbf|a",
        "\xc3\xa9t\xc3\xa9",
        "a|\xe2\x80\x8d|b",
        "12|abc",
        " \xd9\xa3\xd9\xa4",
    };
    Bpe b;
    char out[256];
    whole_piece_vocab(&b, pieces_in, sizeof pieces_in / sizeof pieces_in[0]);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (strcmp(pieces(&b, pieces_in[k], out), want[k]) != 0)
            fail_msg("'%s' cut as '%s', want '%s'", pieces_in[k], out, want[k]);
    bpe_free(&b);
}

static void test_bpe_endoftext(void **state)
{
    (void)state;
    /* expect: the literal <|endoftext|> is its own token, with its 13 bytes
       as span, and the text on each side encoded apart */
    static const char *const extra[] = {"<|endoftext|>"};
    Bpe b;
    BpeEncoding e = {0};
    bytes_vocab(&b, extra, 1);
    assert_int_equal(bpe_finish(&b, why, sizeof why), AV_OK);
    assert_int_equal(b.eot, 256);
    const char *t = "a<|endoftext|><|endoftext|>b<|endof";
    assert_int_equal(bpe_encode(&b, t, strlen(t), 100, &e), AV_OK);
    assert_int_equal(e.n, 3 + 8); /* b < | e n d o f: no merges */
    assert_int_equal(e.piece[1].id, 256);
    assert_int_equal(e.piece[1].start, 1);
    assert_int_equal(e.piece[1].len, 13);
    assert_int_equal(e.piece[2].id, 256);
    assert_int_equal(e.piece[3].id, 'b');
    assert_int_equal(e.piece[4].id, '<');
    bpe_encoding_free(&e);
    bpe_free(&b);
}

static void test_bpe_decode_and_display(void **state)
{
    (void)state;
    /* expect: decode gives the bytes back; display marks spaces, tabs,
       newlines and controls, and each byte of a partial character */
    static const char *const extra[] = {" caf", "\xc3\xa9", "\xf0\x9f", " x"};
    Bpe b;
    BpeEncoding e = {0};
    TokenList tl = {0};
    char out[64], disp[BPE_DISPLAY_MAX(8)];
    bytes_vocab(&b, extra, 4);
    merge(&b, " ", "x");
    merge(&b, "\xc3", "\xa9");
    merge(&b, "\xf0", "\x9f");
    assert_int_equal(bpe_finish(&b, why, sizeof why), AV_OK);
    int ids[] = {256, 257, 10};
    assert_int_equal(bpe_decode(&b, ids, 3, out, sizeof out), 7);
    assert_memory_equal(out, " caf\xc3\xa9\n", 7);
    assert_int_equal(bpe_decode(&b, ids, 3, out, 2), 7); /* the length needed */
    int bad[] = {3, 999};
    assert_int_equal(bpe_decode(&b, bad, 2, out, sizeof out), (size_t)-1);
    bpe_display(" caf", 4, disp);
    assert_string_equal(disp, "\xe2\x90\xa3"
                              "caf");
    bpe_display("\t\n\x01\x7f", 4, disp);
    assert_string_equal(disp, "\xe2\x87\xa5\xe2\x86\xb5^A^?");
    bpe_display("\xf0\x9f", 2, disp);
    assert_string_equal(disp, "\xe2\x80\xb9"
                              "f0\xe2\x80\xba\xe2\x80\xb9"
                              "9f\xe2\x80\xba");
    const char *t = "\xf0\x9f\x98\x80 x";
    assert_int_equal(bpe_encode(&b, t, strlen(t), 100, &e), AV_OK);
    assert_int_equal(bpe_token_list(t, &e, &tl), AV_OK);
    assert_int_equal(tl.n, 4); /* f0 9f | 98 | 80 | " x" */
    assert_string_equal(tl.tok[0].str, "\xe2\x80\xb9"
                                       "f0\xe2\x80\xba\xe2\x80\xb9"
                                       "9f\xe2\x80\xba");
    assert_int_equal(tl.tok[3].start, 4);
    assert_int_equal(tl.tok[3].len, 2);
    assert_string_equal(tl.tok[3].str, "\xe2\x90\xa3x");
    tokenize_free(&tl);
    bpe_encoding_free(&e);
    bpe_free(&b);
}

static void test_bpe_errors(void **state)
{
    (void)state;
    /* expect: bad UTF-8 reported at its offset, a token cap, reuse of an
       encoding, and each vocabulary fault refused with a reason */
    Bpe b;
    BpeEncoding e = {0};
    bytes_vocab(&b, NULL, 0);
    assert_int_equal(bpe_finish(&b, why, sizeof why), AV_OK);
    assert_int_equal(bpe_encode(&b, "ab\xc3(", 4, 100, &e), AV_ERR_UTF8);
    assert_int_equal(e.bad_offset, 2);
    assert_int_equal(e.n, 0);
    assert_int_equal(bpe_encode(&b, "abcd", 4, 3, &e), AV_ERR_TOO_MANY);
    assert_int_equal(e.n, 0);
    assert_int_equal(bpe_encode(&b, "abc", 3, 3, &e), AV_OK);
    assert_int_equal(e.n, 3);
    assert_int_equal(bpe_set_token(&b, 256, "x", 1, why, sizeof why), AV_ERR_MODEL);
    assert_string_equal(why, "token id 256 is out of range (256 tokens: ids 0..255)");
    assert_int_equal(bpe_set_token(&b, 5, "xy", 2, why, sizeof why), AV_ERR_MODEL);
    assert_string_equal(why, "token id 5 is given twice");
    assert_int_equal(bpe_add_merge(&b, 'a', 'b', why, sizeof why), AV_ERR_MODEL);
    assert_string_equal(why, "merge 1 makes a token that is not in the vocabulary");
    assert_int_equal(bpe_add_merge(&b, 'a', 300, why, sizeof why), AV_ERR_MODEL);
    bpe_encoding_free(&e);
    bpe_free(&b);
    assert_int_equal(bpe_init(&b, 3, 0), AV_OK);
    assert_int_equal(bpe_finish(&b, why, sizeof why), AV_ERR_MODEL);
    assert_string_equal(why, "token id 0 has no token (ids must run 0..2)");
    bpe_free(&b);
    assert_int_equal(bpe_init(&b, 0, 0), AV_ERR_CONFIG);
    bpe_free(&b);
}

/* GPT-2's encoder.py's merging, written the slow way: while any adjacent
 * pair is a merge, take the pair of lowest rank and merge every occurrence of
 * it from left to right. ids[0..n) in place; returns the new n. */
static int reference_passes(const Bpe *b, int *ids, int n)
{
    for (;;) {
        int best = -1, best_l = 0, best_r = 0, id;
        for (int i = 0; i + 1 < n; i++) {
            int r = bpe_merge_rank(b, ids[i], ids[i + 1], &id);
            if (r >= 0 && (best < 0 || r < best))
                best = r, best_l = ids[i], best_r = ids[i + 1];
        }
        if (best < 0)
            return n;
        bpe_merge_rank(b, best_l, best_r, &id);
        int o = 0;
        for (int i = 0; i < n; i++) {
            if (i + 1 < n && ids[i] == best_l && ids[i + 1] == best_r)
                ids[o++] = id, i++;
            else
                ids[o++] = ids[i];
        }
        n = o;
    }
}

/* The rule bpe.h states, one merge at a time: the adjacent pair of lowest
 * rank, the leftmost of equal ones, until none is left. It differs from
 * encoder.py's passes only when a merge makes a pair of lower rank than its
 * own, which a learned merges.txt never does. */
static int reference_single(const Bpe *b, int *ids, int n)
{
    for (;;) {
        int best = -1, at = 0, id;
        for (int i = 0; i + 1 < n; i++) {
            int r = bpe_merge_rank(b, ids[i], ids[i + 1], &id);
            if (r >= 0 && (best < 0 || r < best))
                best = r, at = i;
        }
        if (best < 0)
            return n;
        bpe_merge_rank(b, ids[at], ids[at + 1], &id);
        ids[at] = id;
        memmove(ids + at + 1, ids + at + 2, (size_t)(n - at - 2) * sizeof *ids);
        n--;
    }
}

static int below(Rng *r, int n)
{
    return (int)(rng_next(r) % (uint64_t)n);
}

/* A random vocabulary over the letters a b c: the 256 bytes, then tokens
 * made by joining two earlier ones (at most 12 bytes), one merge each, in the
 * order they were made or (shuffled) in any order, so that a merge can make a
 * pair of lower rank than its own. */
static void random_abc_vocab(Bpe *b, Rng *rng, int n_extra, int shuffled)
{
    char tok[64][13];
    int left[64], right[64], order[64], n = 0;
    int have[3] = {'a', 'b', 'c'};
    while (n < n_extra) {
        int pick[2];
        for (int k = 0; k < 2; k++) {
            int r = below(rng, 3 + n);
            pick[k] = r < 3 ? have[r] : 256 + (r - 3);
        }
        const char *s[2];
        char one[2][2] = {{0}};
        for (int k = 0; k < 2; k++) {
            if (pick[k] < 256)
                one[k][0] = (char)pick[k], s[k] = one[k];
            else
                s[k] = tok[pick[k] - 256];
        }
        size_t l0 = strlen(s[0]), l1 = strlen(s[1]);
        if (l0 + l1 > 12)
            continue;
        char joined[13];
        memcpy(joined, s[0], l0);
        memcpy(joined + l0, s[1], l1);
        joined[l0 + l1] = 0;
        int dup = strlen(joined) < 2;
        for (int k = 0; k < n && !dup; k++)
            dup = strcmp(tok[k], joined) == 0;
        if (dup)
            continue;
        strcpy(tok[n], joined);
        left[n] = pick[0], right[n] = pick[1], order[n] = n;
        n++;
    }
    const char *extra[64];
    for (int k = 0; k < n; k++)
        extra[k] = tok[k];
    bytes_vocab(b, extra, n);
    for (int k = n - 1; shuffled && k > 0; k--) {
        int j = below(rng, k + 1), t = order[k];
        order[k] = order[j], order[j] = t;
    }
    for (int k = 0; k < n; k++)
        assert_int_equal(bpe_add_merge(b, left[order[k]], right[order[k]], why, sizeof why), AV_OK);
    assert_int_equal(bpe_finish(b, why, sizeof why), AV_OK);
}

static void test_bpe_merges_match_reference(void **state)
{
    (void)state;
    /* expect: on one-piece words of a b c (short ones, and runs of one
       letter or of a few letters repeated) the encoder gives the ids of
       encoder.py's passes on vocabularies whose merge ranks follow their
       making (as a learned merges.txt's do; words up to 3000 bytes), and the
       ids of one merge at a time on shuffled ones (up to 150 bytes) */
    Rng rng;
    rng_seed(&rng, 24);
    enum { MAXW = 3000 };
    static char word[MAXW + 1];
    static int ids[MAXW];
    BpeEncoding e = {0};
    int words = 0, long_words = 0;
    for (int v = 0; v < 40; v++) {
        Bpe b;
        random_abc_vocab(&b, &rng, 8 + v % 40, v % 2);
        int shuffled = v % 2, max_len = shuffled ? 150 : MAXW;
        for (int w = 0; w < 60; w++) {
            int len, unit = 1 + below(&rng, 4);
            if (w % 3 == 0)
                len = 1 + below(&rng, 40);
            else
                len = unit * (1 + below(&rng, max_len / unit));
            char pat[4];
            for (int k = 0; k < unit; k++)
                pat[k] = (char)('a' + below(&rng, 3));
            for (int k = 0; k < len; k++)
                word[k] = w % 3 == 0 ? (char)('a' + below(&rng, 3)) : pat[k % unit];
            word[len] = 0;
            for (int k = 0; k < len; k++)
                ids[k] = (unsigned char)word[k];
            int n = shuffled ? reference_single(&b, ids, len) : reference_passes(&b, ids, len);
            assert_int_equal(bpe_encode(&b, word, (size_t)len, MAXW, &e), AV_OK);
            if (e.n != n)
                fail_msg("vocabulary %d, word %d (%d bytes): %d tokens, want %d", v, w, len, e.n,
                         n);
            for (int k = 0; k < n; k++)
                if (e.piece[k].id != ids[k])
                    fail_msg("vocabulary %d, word %d: token %d is id %d, want %d", v, w, k,
                             e.piece[k].id, ids[k]);
            words++;
            long_words += len >= 1000;
        }
        bpe_free(&b);
    }
    bpe_encoding_free(&e);
    assert_int_equal(words, 40 * 60);
    assert_true(long_words > 250);
}

static void test_bpe_byte_alphabet(void **state)
{
    (void)state;
    /* expect: GPT-2's alphabet: '!' itself, space U+0120 (Ġ), newline
       U+010A (Ċ), 0x7F U+0121, 0xAD U+0143, and a bijection back */
    assert_int_equal(bpe_byte_unicode('!'), '!');
    assert_int_equal(bpe_byte_unicode(' '), 0x120);
    assert_int_equal(bpe_byte_unicode('\n'), 0x10A);
    assert_int_equal(bpe_byte_unicode(0x7F), 0x121);
    assert_int_equal(bpe_byte_unicode(0xAD), 0x143);
    for (int c = 0; c < 256; c++)
        assert_int_equal(bpe_unicode_byte(bpe_byte_unicode((unsigned char)c)), c);
    assert_int_equal(bpe_unicode_byte(' '), -1);
    assert_int_equal(bpe_unicode_byte(0x144), -1);
    assert_int_equal(bpe_unicode_byte(0xAD), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bpe_merge_order),
        cmocka_unit_test(test_bpe_pattern_pieces),
        cmocka_unit_test(test_bpe_endoftext),
        cmocka_unit_test(test_bpe_decode_and_display),
        cmocka_unit_test(test_bpe_errors),
        cmocka_unit_test(test_bpe_byte_alphabet),
        cmocka_unit_test(test_bpe_merges_match_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
